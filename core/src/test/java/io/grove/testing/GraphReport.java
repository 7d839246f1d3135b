package io.grove.testing;

import io.grove.testing.History.Recorder;
import io.grove.testing.LinearizabilityGraph.EdgeKind;
import io.grove.testing.LinearizabilityGraph.Rule;
import io.grove.testing.LinearizabilityGraph.Step;
import io.grove.testing.Primitives.IntList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The words of a {@link LinearizabilityGraph}: its operations and values as a report shows them, and, once the
 * graph has a cycle, the search of a shortest one and its explanation, operation by operation.
 */
final class GraphReport {
    private static final int SHORTEST_CYCLE_TRIES = 8;

    private final LinearizabilityGraph g;

    GraphReport(LinearizabilityGraph g) {
        this.g = g;
    }

    /**
     * A shortest cycle, counting operations (a run of time nodes between two operations is one real-time edge),
     * through one of a few operations of some cycle. The nodes Kahn's sort left ({@code waiting} &gt; 0) each
     * have a predecessor left, so walking predecessors among them must come back to a node: that closes a first
     * cycle. A breadth-first search (0-1: edges into time nodes weigh 0) from each of up to
     * {@value #SHORTEST_CYCLE_TRIES} of its operations then finds the shortest cycle through each.
     */
    List<Step> shortestCycle(int[] waiting) {
        boolean[] left = new boolean[g.nodes];
        for (int v = 0; v < g.nodes; v++) {
            left[v] = waiting[v] > 0;
        }
        int[] seenAt = new int[g.nodes];
        Arrays.fill(seenAt, -1);
        IntList walk = new IntList(64);
        int v = 0;
        while (!left[v]) {
            v++;
        }
        while (seenAt[v] == -1) {
            seenAt[v] = walk.size();
            walk.add(v);
            int next = -1;
            for (int e = g.inStart[v]; e < g.inStart[v + 1] && next == -1; e++) {
                int u = g.edgeFrom(g.inEdges[e]);
                next = left[u] ? u : -1;
            }
            v = next;
        }
        int[] best = null;
        int tries = 0;
        for (int i = seenAt[v]; i < walk.size() && tries < SHORTEST_CYCLE_TRIES; i++) {
            if (walk.get(i) < g.operations) {
                tries++;
                int[] cycle = shortestCycleThrough(walk.get(i), left);
                if (best == null || operationsOn(cycle) < operationsOn(best)) {
                    best = cycle;
                }
            }
        }
        if (best == null) {
            throw new IllegalStateException("a cycle of time nodes alone");
        }
        return steps(best);
    }

    private int operationsOn(int[] cycleEdges) {
        int n = 0;
        for (int e : cycleEdges) {
            n += g.edgeTo(e) < g.operations ? 1 : 0;
        }
        return n;
    }

    /** The edges of a shortest cycle through operation {@code s} among the nodes {@code left}, from s. */
    private int[] shortestCycleThrough(int s, boolean[] left) {
        int[] distance = new int[g.nodes];
        Arrays.fill(distance, Integer.MAX_VALUE);
        int[] parentEdge = new int[g.nodes];
        int[] deque = new int[2 * g.nodes + 1];
        int head = g.nodes;
        int tail = g.nodes;
        distance[s] = 0;
        deque[tail++] = s;
        while (head < tail) {
            int v = deque[head++];
            for (int e = g.outStart[v]; e < g.outStart[v + 1]; e++) {
                int w = g.edgeTo(g.outEdges[e]);
                if (left[w] && distance[w] == Integer.MAX_VALUE) {
                    parentEdge[w] = g.outEdges[e];
                    if (w < g.operations) {
                        distance[w] = distance[v] + 1;
                        deque[tail++] = w;
                    } else {
                        distance[w] = distance[v];
                        deque[--head] = w;
                    }
                }
            }
        }
        int closing = -1;
        for (int e = g.inStart[s]; e < g.inStart[s + 1]; e++) {
            int u = g.edgeFrom(g.inEdges[e]);
            if (left[u] && distance[u] != Integer.MAX_VALUE
                    && (closing == -1 || distance[u] < distance[g.edgeFrom(closing)])) {
                closing = g.inEdges[e];
            }
        }
        IntList reversed = new IntList(16);
        reversed.add(closing);
        for (int v = g.edgeFrom(closing); v != s; v = g.edgeFrom(parentEdge[v])) {
            reversed.add(parentEdge[v]);
        }
        int[] cycle = new int[reversed.size()];
        for (int i = 0; i < cycle.length; i++) {
            cycle[i] = reversed.get(cycle.length - 1 - i);
        }
        return cycle;
    }

    /** The operations of a cycle given by its edges, a run of time nodes folded into one real-time edge. */
    private List<Step> steps(int[] cycleEdges) {
        List<Step> steps = new ArrayList<>();
        int from = g.edgeFrom(cycleEdges[0]);
        int via = 0;
        for (int e : cycleEdges) {
            int to = g.edgeTo(e);
            via++;
            if (to >= g.operations) {
                continue;
            }
            if (via > 1) {
                steps.add(new Step(describe(from), EdgeKind.REAL_TIME, Rule.REAL_TIME.meaning + " (responded at "
                        + time(g.responded[from]) + ", next invoked at " + time(g.invoked[to]) + ")"));
            } else {
                Rule rule = g.edgeRule.get(e);
                long key = g.edgeKey.get(e);
                steps.add(new Step(describe(from), rule.kind, "key " + key + ": " + rule.meaning + " [it "
                        + accessesOn(from, key) + "; the next " + accessesOn(to, key) + shownBy(e, from, to) + "]"));
            }
            from = to;
            via = 0;
        }
        return Collections.unmodifiableList(steps);
    }

    /** The operations that show why inferred edge {@code e} holds, if it names them. */
    private String shownBy(int e, int from, int to) {
        int earlier = g.edgeEarlier.get(e);
        int later = g.edgeLater.get(e);
        if (earlier == -1 || later == -1) {
            return "";
        }
        return "; shown by " + name(earlier, from, to) + " ordered before " + name(later, from, to);
    }

    private String name(int node, int from, int to) {
        return node == from ? "it" : node == to ? "the next" : describe(node);
    }

    String explain(List<Step> cycle) {
        StringBuilder b = new StringBuilder("not linearizable: a cycle of ").append(cycle.size())
                .append(" operations (times in ns from the first invocation; vT.N: the N-th value that thread T "
                        + "made with newValue; a chain: writes of one key each of which returned the value of the one "
                        + "before, so contiguous in the key's order):");
        for (Step s : cycle) {
            b.append("\n  ").append(s.operation()).append("\n      -> ").append(s.edge()).append(": ")
                    .append(s.why());
        }
        return b.append("\n  (back to the first)").toString();
    }

    String describe(int node) {
        if (node == LinearizabilityGraph.INITIAL) {
            return "the initial state (every key absent)";
        }
        Recorder r = g.history.recorder(g.nodeThread[node]);
        int i = g.nodeEvent[node];
        String what = switch (r.kinds[i]) {
            case PUT -> "put(" + r.keys[i] + ", " + show(r.values[i]) + ") -> " + show(r.results[i]);
            case REMOVE -> "remove(" + r.keys[i] + ") -> " + show(r.results[i]);
            case GET -> "get(" + r.keys[i] + ") -> " + show(r.results[i]);
            case BATCH -> batch(r, i);
            case SNAPSHOT -> "snapshot s" + ((r.values[i] >>> 32) - 1) + "." + (int) r.values[i];
            default -> throw new IllegalStateException("not an operation: " + r.kinds[i]);
        };
        return "thread " + g.nodeThread[node] + " #" + i + " " + what + " [" + time(r.invoked[i]) + ", "
                + time(r.responded[i]) + "]";
    }

    private String batch(Recorder r, int i) {
        int at = r.extraStart[i];
        int count = (int) r.extra[at];
        StringBuilder b = new StringBuilder("batch{");
        for (int j = 0; j < count; j++) {
            long v = r.extra[at + 1 + count + j];
            b.append(j == 0 ? "" : ", ").append(r.extra[at + 1 + j]).append('=')
                    .append(v == History.ABSENT ? "remove" : show(v));
        }
        return b.append('}').toString();
    }

    /** What {@code node} read and wrote on {@code key}. */
    private String accessesOn(int node, long key) {
        if (node == LinearizabilityGraph.INITIAL) {
            return "wrote absent";
        }
        StringBuilder b = new StringBuilder();
        for (int r = 0; r < g.readNode.length; r++) {
            if (g.readNode[r] == node && g.readKey[r] == key) {
                b.append("read ").append(show(g.readValue[r]));
            }
        }
        for (int w = 0; w < g.writeNode.length; w++) {
            if (g.writeNode[w] == node && g.writeKey[w] == key) {
                b.append(b.isEmpty() ? "" : ", ").append("wrote ").append(show(g.writeValue[w]));
            }
        }
        return b.toString();
    }

    /** A value as a report shows it: "absent", vT.N for the N-th value of thread T's newValue, else the number. */
    String show(long value) {
        long thread = (value >>> 32) - 1;
        if (value == History.ABSENT) {
            return "absent";
        }
        return thread >= 0 && thread < g.history.threads() && (int) value > 0 ? "v" + thread + "." + (int) value
                : Long.toString(value);
    }

    private String time(long t) {
        return t == Long.MIN_VALUE ? "-inf" : Long.toString(t - g.firstInvocation);
    }
}
