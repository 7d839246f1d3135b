package io.grove.testing;

import io.grove.testing.LinearizabilityGraph.Rule;
import io.grove.testing.Primitives.IntList;
import java.util.Comparator;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/**
 * The writes and reads of one key in a {@link LinearizabilityGraph}, grouped in chains, and the inference rules of
 * that key that compare the bounds of its operations (write order, anti-dependency, reads of absent); the rules
 * that an edge between two operations triggers are the graph's own ({@code inferAlongEdges}).
 *
 * <p>A <em>chain</em> is a run of writes of the key each known to follow the one before directly: a put or a
 * remove that returned a value directly follows the write of that value. A chain is therefore a contiguous block
 * of the key's order of writes: no other write of the key falls inside it. A chain starts at a write whose
 * predecessor is unknown: a batch's write (a batch returns nothing) or a put that found the key absent ("absent"
 * does not name the removal it followed). Every write of a chain puts a value but its last, which may remove the
 * key (nothing links to a removal, so a removal ends its chain), and a batch's removal, a chain of its own. Chain
 * 0 is the initial state alone (it writes absent to every key, before everything).
 *
 * <p>Because chains are contiguous, "some write of chain C is ordered before some write of chain D" means "all of
 * C before all of D", which the rules record as an edge from C's last write to D's first. The rules use only the
 * frontier of each set of chains they derive (the chains not known to be ordered after, or before, another of
 * the set): the others are reachable through the frontier's own edges, and the graph stays linear in size.
 */
final class KeyChains {
    private static final long NONE = Long.MAX_VALUE;

    final long key;
    /** Indices of the writes of this key in the graph's write table. */
    final IntList writes = new IntList(8);
    /** Indices of the reads of this key in the graph's read table. */
    final IntList reads = new IntList(8);
    /** Whether the bounds or edges this key's rules depend on changed since they were last applied. */
    boolean changed;

    /** The nodes of every chain, chain after chain, each in its order of writes; chain 0 is the initial state. */
    private int[] members;
    /** Chain c is {@code members[chainStart[c]]} to {@code members[chainStart[c + 1] - 1]}. */
    private int[] chainStart;
    /** Whether {@code members[i]} puts a value (rather than removing the key). */
    private boolean[] memberPuts;
    private int chains;

    KeyChains(long key) {
        this.key = key;
    }

    /** How many chains the key has, the initial state's included (after {@link #buildChains}). */
    int chains() {
        return chains;
    }

    /** The first write of chain c. */
    int head(int c) {
        return members[chainStart[c]];
    }

    /** The last write of chain c. */
    int tail(int c) {
        return members[chainStart[c + 1] - 1];
    }

    /**
     * Links the writes of the key into chains. Called once the graph is known to have no cycle: then no write has
     * two direct successors (two operations that returned the same previous value each precede the other by
     * anti-dependency).
     */
    void buildChains(LinearizabilityGraph g) {
        int n = writes.size();
        for (int i = 0; i < reads.size(); i++) {
            int r = reads.get(i);
            if (g.readReturnsPrevious[r] && g.readValue[r] != History.ABSENT) {
                int predecessor = g.writeNode[g.readSource[r]];
                if (g.nextOnKey[predecessor] != -1) {
                    throw new IllegalStateException("two direct successors of one write of key " + key
                            + " in a graph without a cycle");
                }
                g.nextOnKey[predecessor] = g.readNode[r];
                g.hasPredecessorOnKey[g.readNode[r]] = true;
            }
        }
        for (int i = 0; i < n; i++) {
            int w = writes.get(i);
            g.writeOnKey[g.writeNode[w]] = w;
        }
        members = new int[n + 1];
        memberPuts = new boolean[n + 1];
        IntList starts = new IntList(8);
        starts.add(0);
        members[0] = LinearizabilityGraph.INITIAL;
        int placed = 1;
        for (int i = 0; i < n; i++) {
            int first = g.writeNode[writes.get(i)];
            if (g.hasPredecessorOnKey[first]) {
                continue;
            }
            int c = starts.size();
            starts.add(placed);
            for (int node = first; node != -1; node = g.nextOnKey[node]) {
                int w = g.writeOnKey[node];
                g.writeChain[w] = c;
                members[placed] = node;
                memberPuts[placed] = g.writeValue[w] != History.ABSENT;
                placed++;
            }
        }
        if (placed != n + 1) {
            throw new IllegalStateException("the direct successors of key " + key + " form a loop");
        }
        starts.add(placed);
        chainStart = starts.toArray();
        chains = chainStart.length - 1;
        for (int node : members) {
            g.nextOnKey[node] = -1;
            g.hasPredecessorOnKey[node] = false;
        }
    }

    /**
     * Applies the rules of this key to the current graph, whose nodes' bounds ({@code lo}, {@code hi}) and
     * adjacency are up to date; returns how many edges it added. Each edge names the operations that show why it
     * holds: for an order by bounds, the write (or read) that holds the bound of each side.
     */
    int infer(LinearizabilityGraph g) {
        Bounds b = new Bounds(g);
        Frontier after = new Frontier(chains, c -> c > 0, b.maxLo, b.minHi);
        Frontier before = new Frontier(chains, c -> c > 0, complement(b.minHi), complement(b.maxLo));
        Frontier beforeWithPut = new Frontier(chains, c -> c > 0 && b.minHiOfPuts[c] != NONE,
                complement(b.minHiOfPuts), complement(b.maxLo));
        int added = 0;
        IntList found = new IntList(16);
        // write order by bounds: a write of c precedes one of each later chain; with the chains that an edge
        // from c's last write leads to, these are the successors whose first writes the readers of c's last value
        // precede; kept as (chain, the two operations that show the order)
        int[] successorStart = new int[chains + 1];
        IntList successors = new IntList(chains);
        for (int c = 1; c < chains; c++) {
            successorStart[c] = successors.size();
            after.query(b.minHi[c], c, found);
            for (int i = 0; i < found.size(); i++) {
                int later = found.get(i);
                addSuccessor(successors, later, b.minHiNode[c], b.maxLoNode[later]);
                added += g.addEdge(tail(c), head(later), Rule.CHAIN_ORDER_BY_BOUNDS, key, b.minHiNode[c],
                        b.maxLoNode[later]);
            }
            int last = tail(c);
            for (int e = g.outStart[last]; e < g.outStart[last + 1]; e++) {
                int next = g.edgeTo(g.outEdges[e]);
                int other = g.chainOnKey[next];
                if (other > 0 && other != c) {
                    addSuccessor(successors, other, last, next);
                }
            }
        }
        successorStart[chains] = successors.size();
        for (int i = 0; i < reads.size(); i++) {
            int read = reads.get(i);
            int r = g.readNode[read];
            if (g.readSource[read] != -1) {
                int source = g.writeNode[g.readSource[read]];
                added += inferFromValueRead(g, b, r, g.chainOnKey[source], source, successors, successorStart,
                        before, found);
            } else {
                added += inferFromAbsentRead(g, b, r, after, beforeWithPut, found);
            }
        }
        for (int node : members) {
            g.chainOnKey[node] = -1;
        }
        return added;
    }

    private static void addSuccessor(IntList successors, int chain, int earlier, int later) {
        successors.add(chain);
        successors.add(earlier);
        successors.add(later);
    }

    private static long[] complement(long[] values) {
        long[] complement = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            complement[i] = ~values[i];
        }
        return complement;
    }

    /**
     * Per chain, the bounds of its writes that the rules compare, and the write that holds each: the earliest
     * upper bound (of all writes, of its puts), the latest lower bound; and the earliest lower bound of a removal
     * of the key. Fills the graph's {@code chainOnKey} for the members.
     */
    private final class Bounds {
        final long[] minHi = new long[chains];
        final int[] minHiNode = new int[chains];
        final long[] maxLo = new long[chains];
        final int[] maxLoNode = new int[chains];
        final long[] minHiOfPuts = new long[chains];
        final int[] minHiOfPutsNode = new int[chains];
        long minLoOfRemovals = NONE;
        int earliestRemoval = -1;

        Bounds(LinearizabilityGraph g) {
            for (int c = 0; c < chains; c++) {
                minHi[c] = NONE;
                maxLo[c] = Long.MIN_VALUE;
                minHiOfPuts[c] = NONE;
                for (int i = chainStart[c]; i < chainStart[c + 1]; i++) {
                    int node = members[i];
                    g.chainOnKey[node] = c;
                    if (g.hi[node] < minHi[c]) {
                        minHi[c] = g.hi[node];
                        minHiNode[c] = node;
                    }
                    if (g.lo[node] > maxLo[c]) {
                        maxLo[c] = g.lo[node];
                        maxLoNode[c] = node;
                    }
                    if (memberPuts[i] && g.hi[node] < minHiOfPuts[c]) {
                        minHiOfPuts[c] = g.hi[node];
                        minHiOfPutsNode[c] = node;
                    } else if (!memberPuts[i] && c > 0 && g.lo[node] < minLoOfRemovals) {
                        minLoOfRemovals = g.lo[node];
                        earliestRemoval = node;
                    }
                }
            }
        }
    }

    /** The rules of read {@code r} that returned the value {@code source} wrote, a write of chain {@code c}. */
    private int inferFromValueRead(LinearizabilityGraph g, Bounds b, int r, int c, int source, IntList successors,
            int[] successorStart, Frontier before, IntList found) {
        int added = 0;
        if (source == tail(c)) {
            // anti-dependency: the value lasted until the first write of a chain after c
            for (int i = successorStart[c]; i < successorStart[c + 1]; i += 3) {
                added += g.addEdge(r, head(successors.get(i)), Rule.OVERWRITTEN, key, successors.get(i + 1),
                        successors.get(i + 2));
            }
        }
        // write order by reads: a chain with a write before r precedes c
        before.query(~g.lo[r], c, found);
        for (int i = 0; i < found.size(); i++) {
            int earlier = found.get(i);
            added += g.addEdge(tail(earlier), head(c), Rule.CHAIN_ORDER_BY_READ_AFTER, key, b.minHiNode[earlier], r);
        }
        return added;
    }

    /**
     * The rules of read {@code r} that found the key absent (a get, a snapshot's read, a remove that found
     * nothing, or a put that found nothing, which heads a chain of its own).
     */
    private int inferFromAbsentRead(LinearizabilityGraph g, Bounds b, int r, Frontier after, Frontier beforeWithPut,
            IntList found) {
        int own = g.chainOnKey[r];
        int added = 0;
        if (b.minLoOfRemovals > g.hi[r]) {
            // every removal of the key comes after r: r read the initial state, before every chain
            after.query(Long.MIN_VALUE, own, found);
            for (int i = 0; i < found.size(); i++) {
                added += g.addEdge(r, head(found.get(i)), Rule.ABSENT_FROM_INITIAL, key, r, b.earliestRemoval);
            }
        }
        // after a put of chain c, the key stays present up to c's last write: r follows that last write
        beforeWithPut.query(~g.lo[r], own, found);
        for (int i = 0; i < found.size(); i++) {
            int c = found.get(i);
            added += g.addEdge(tail(c), r, Rule.READ_ABSENT_AFTER_CHAIN, key, b.minHiOfPutsNode[c], r);
        }
        // from the first write of chain c (a put, or c is that write alone) the key is present up to c's last
        // write: r, before a write of c, precedes c's first write
        after.query(g.hi[r], own, found);
        for (int i = 0; i < found.size(); i++) {
            int c = found.get(i);
            added += g.addEdge(r, head(c), Rule.ABSENT_BEFORE_CHAIN, key, r, b.maxLoNode[c]);
        }
        return added;
    }

    /**
     * The chains "after a bound" and their frontier. Each indexed chain c has a {@code last} and a {@code first}
     * figure, with {@code first[c] < last[d]} meaning "c precedes d". {@link #query} returns the chains whose
     * {@code last} exceeds the bound and that follow no other such chain: the earliest chains of the set. With
     * {@code last} the latest lower bound of a chain's writes and {@code first} their earliest upper bound, that
     * is the earliest chains with a write after the bound; with both figures complemented (which reverses their
     * order), the latest chains with a write before the bound.
     *
     * <p>Chains are sorted by {@code last}; for every suffix of that order, the three smallest {@code first}
     * figures (with their chains) tell in O(1) whether a chain of the suffix follows another one of it, other
     * than itself and than the one chain a query excludes.
     */
    private static final class Frontier {
        private final int[] sorted;
        private final long[] last;
        private final long[][] smallest = new long[3][];
        private final int[][] smallestChain = new int[3][];

        Frontier(int chains, IntPredicate indexed, long[] lastOf, long[] firstOf) {
            sorted = IntStream.range(0, chains).filter(indexed).boxed()
                    .sorted(Comparator.comparingLong(c -> lastOf[c])).mapToInt(Integer::intValue).toArray();
            int n = sorted.length;
            last = new long[n];
            for (int k = 0; k < 3; k++) {
                smallest[k] = new long[n + 1];
                smallestChain[k] = new int[n + 1];
                smallest[k][n] = NONE;
                smallestChain[k][n] = -1;
            }
            for (int j = n - 1; j >= 0; j--) {
                int c = sorted[j];
                last[j] = lastOf[c];
                long f = firstOf[c];
                int at = f < smallest[0][j + 1] ? 0 : f < smallest[1][j + 1] ? 1 : f < smallest[2][j + 1] ? 2 : 3;
                for (int k = 0; k < 3; k++) {
                    int from = k < at ? k : k == at ? -1 : k - 1;
                    smallest[k][j] = from == -1 ? f : smallest[from][j + 1];
                    smallestChain[k][j] = from == -1 ? c : smallestChain[from][j + 1];
                }
            }
        }

        /** Puts into {@code out} the frontier of the chains other than {@code excluded} whose last exceeds t. */
        void query(long t, int excluded, IntList out) {
            out.clear();
            int from = upperBound(t);
            int n = sorted.length;
            for (int j = from; j < n && last[j] <= smallest[2][from]; j++) {
                int c = sorted[j];
                if (c == excluded) {
                    continue;
                }
                long bound = NONE;
                for (int k = 0; k < 3; k++) {
                    int other = smallestChain[k][from];
                    if (other != c && other != excluded) {
                        bound = smallest[k][from];
                        break;
                    }
                }
                if (last[j] <= bound) {
                    out.add(c);
                }
            }
        }

        /** The first position whose last exceeds t. */
        private int upperBound(long t) {
            int lo = 0;
            int hi = last.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (last[mid] <= t) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }
}
