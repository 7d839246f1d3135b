package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A chunk of an ordered map (Oak §3.1 and §4.1): the entries of one key range {@code [minKey, upperKey)}, in a
 * primitive array on the heap, with keys and values off heap.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Entry {@code e} is four longs of {@link #entries} from {@code 4e}: the key's reference, the value's
 * reference (0: no value, written by CAS), a link word holding the key's length (high 32 bits) and the next
 * entry plus one (low 32 bits; 0 ends the list), and the key's {@link Keys#prefix} taken after the chunk's
 * {@link #shared} bytes by the chunk's {@link #plan}, which lets searches compare most keys without reading them
 * off heap. Entries form a
 * singly linked list sorted by key, with no key twice. A chunk made by a rebalance holds its entries in array
 * order, linked in that order: the sorted prefix {@code [0, sortedCount)}, searched by binary search. Later entries
 * are taken from {@link #allocated} by a fetch-and-add and linked into the list by a CAS on their predecessor's
 * link (or {@link #head}), so a search binary-searches the prefix and walks the list from there. Entries are never
 * unlinked: a removed key keeps its entry with value 0 until the next rebalance drops it.
 *
 * <p>Invariants: (I1) the list is sorted and duplicate-free; (I2) an entry's key reference, length and prefix
 * are written before the CAS that links it and never change, so a thread that reads a link (volatile) sees them;
 * (I3) while {@link #state} is {@link #ACTIVE} entries change only inside a {@link #publish}ed operation; a
 * rebalancer freezes the chunk ({@link #freeze}) and waits until no operation is published, after which the list
 * and every entry's value reference are fixed; (I4) a key slice an entry refers to is deleted only after
 * {@link #state} became {@link #REPLACED} (a rebalance deletes the keys of entries without a value, and the keys it
 * moved to fresh slices in a map that lays out its pairs, {@link Moves}; the map's close, which retires its chunks
 * without replacing them, deletes all), so a search of this chunk is valid if
 * the chunk was not replaced when it ended ({@link #isReplaced} after the search's reads); (I5) every key of
 * the chunk lies in {@code [minKey, upperKey)} (the index partitions the key space, and an insertion goes to the
 * chunk whose range holds its key), so it starts with the {@link #shared} bytes and its prefix is taken after them;
 * a probe that does not start with them is ordered against all entries at once.
 *
 * <p>A chunk the close retired stays in the index for good. So a thread that finds a chunk replaced and would
 * look for its successor in the index again must first check that the map is open ({@link Closing#check}): it
 * would find the same chunk for ever. The close marks the map closed before it retires any chunk, and the state
 * is read with acquire semantics, so whoever sees a retired chunk sees the map closed.
 *
 * <p>Publish and freeze are a Dekker pair: a writer increments {@link #pending} then reads {@link #state}; a
 * rebalancer CASes {@link #state} then reads {@link #pending}. Both are volatile, so one of them sees the other:
 * either the writer sees the freeze and backs out, or the rebalancer waits for the writer.
 */
final class Chunk {
    static final int ACTIVE = 0;
    static final int FROZEN = 1;
    static final int REPLACED = 2;
    static final int NONE = -1;

    private static final int KEY = 0;
    private static final int VALUE = 1;
    private static final int LINK = 2;
    private static final int PREFIX = 3;
    private static final int STRIDE = 4;
    private static final long NEXT_MASK = 0xFFFF_FFFFL;

    private static final VarHandle ENTRIES = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle ALLOCATED;
    private static final VarHandle HEAD;
    private static final VarHandle PENDING;
    private static final VarHandle STATE;
    private static final VarHandle LIVE;
    private static final VarHandle TOMBSTONES;
    private static final VarHandle VERSIONED;
    private static final VarHandle HANDED_OUT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ALLOCATED = l.findVarHandle(Chunk.class, "allocated", int.class);
            HEAD = l.findVarHandle(Chunk.class, "head", int.class);
            PENDING = l.findVarHandle(Chunk.class, "pending", int.class);
            STATE = l.findVarHandle(Chunk.class, "state", int.class);
            LIVE = l.findVarHandle(Chunk.class, "live", int.class);
            TOMBSTONES = l.findVarHandle(Chunk.class, "tombstones", int.class);
            VERSIONED = l.findVarHandle(Chunk.class, "versioned", VersionedEntries.class);
            HANDED_OUT = l.findVarHandle(Chunk.class, "handedOut", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The lowest key of the range, inclusive; {@code null} for the first chunk (minus infinity). */
    final Key minKey;
    /** The end of the range, exclusive; {@code null} for the last chunk (plus infinity). */
    final Key upperKey;
    /**
     * How many first bytes every key of the range has in common: those {@link #minKey} and {@link #upperKey}
     * share ({@link Key#sharedLength}). Entries' prefixes are taken after them ({@link #prefixOf}); a probe that
     * does not start with them lies below or above the whole chunk ({@link Keys#outside}).
     */
    final int shared;
    /** How the chunk takes its entries' prefixes after the {@link #shared} bytes; never changes. */
    final PrefixPlan plan;
    /** Entries the chunk's array holds: the most entries it can take before a rebalance ({@link Rebalancer}). */
    final int capacity;
    /** The entries the chunk was built with, sorted, at the start of its array. */
    final int sortedCount;
    private final long[] entries;
    @SuppressWarnings("unused") private volatile int allocated;
    /** The first entry plus one; 0 if the list is empty. */
    @SuppressWarnings("unused") private volatile int head;
    @SuppressWarnings("unused") private volatile int pending;
    @SuppressWarnings("unused") private volatile int state;
    /** Entries with a value. */
    @SuppressWarnings("unused") private volatile int live;
    /** Entries whose value is a tombstone: a removal an open snapshot must not see ({@link Versions}). */
    @SuppressWarnings("unused") private volatile int tombstones;
    /** The entries whose values may have older versions (a map that takes snapshots), made on first use. */
    @SuppressWarnings("unused") private volatile VersionedEntries versioned;
    /** The chunk whose rebalance froze this one (itself, or a neighbour that engaged it); null until recorded. */
    private volatile Chunk frozenFor;
    /**
     * Whether a zero-copy handle that outlives its read (from {@code zc().get} or a set's iterator) was pointed into
     * this chunk: no rebalance then moves the pairs of its range ({@link #handOut}). Set once, inherited by the
     * chunks that replace it.
     */
    private volatile boolean handedOut;
    /** Where the rebalance that replaced this chunk put its entries (a map that lays out pairs for scans); or null. */
    private volatile Moves moves;
    /** Whether a rebalance laid the sorted entries' pairs out in key order ({@link Rebalancer#scanned}). */
    private boolean laidOut;
    /**
     * The bytes besides {@code 2 n} that may lie between the start of a laid-out key of {@code n} bytes and its value
     * ({@link #holdsWhereLaidOut}): the key's slice header, granule and size-class rounding (a quarter at most).
     */
    private static final int LAID_OUT_GAP = 64;
    /**
     * Whether an entry of the sorted prefix of this laid-out chunk took a value since it was built (a put replaced one
     * laid out, into a slice anywhere); written without atomicity, once: a hint for scans ({@link #valuesReplaced}).
     */
    private boolean valuesReplaced;
    /** Scans that read this chunk to its end since it was built; counted without atomicity: a hint. */
    private int scans;

    /**
     * A chunk for {@code [minKey, upperKey)} whose first {@code count} entries are copied from {@code from} on of
     * the given key references, lengths and prefixes (taken by {@code plan}, whose start is the range's shared
     * bytes) and value references (sorted, all with values), linked in array order.
     */
    Chunk(Key minKey, Key upperKey, PrefixPlan plan, int capacity, long[] keyRefs, int[] keyLengths,
            long[] keyPrefixes, long[] valueRefs, int from, int count) {
        this.minKey = minKey;
        this.upperKey = upperKey;
        this.shared = Key.sharedLength(minKey, upperKey);
        if (plan.start != shared) {
            throw new IllegalArgumentException("a prefix plan from byte " + plan.start
                    + " for a chunk whose keys share " + shared);
        }
        this.plan = plan;
        this.capacity = capacity;
        this.sortedCount = count;
        this.entries = new long[capacity * STRIDE];
        for (int i = 0; i < count; i++) {
            int b = i * STRIDE;
            entries[b + KEY] = keyRefs[from + i];
            entries[b + VALUE] = valueRefs[from + i];
            entries[b + LINK] = ((long) keyLengths[from + i] << 32) | (i + 1 < count ? i + 2 : 0);
            entries[b + PREFIX] = keyPrefixes[from + i];
        }
        this.allocated = count;
        this.head = count > 0 ? 1 : 0;
        this.live = count;
        VarHandle.releaseFence(); // the chunk is published by a CAS of the index; entries first
    }

    // ---- entries

    long keyRef(int e) {
        return entries[e * STRIDE + KEY];
    }

    int keyLength(int e) {
        return (int) (entries[e * STRIDE + LINK] >>> 32);
    }

    long keyPrefix(int e) {
        return entries[e * STRIDE + PREFIX];
    }

    long valueRef(int e) {
        return (long) ENTRIES.getVolatile(entries, e * STRIDE + VALUE);
    }

    boolean casValue(int e, long expected, long value) {
        if (!ENTRIES.compareAndSet(entries, e * STRIDE + VALUE, expected, value)) {
            return false;
        }
        if (value != 0 && laidOutInOrder(e) && !valuesReplaced) {
            valuesReplaced = true;
        }
        return true;
    }

    /** The entry after {@code e} in the list, or {@link #NONE}. */
    int next(int e) {
        return (int) ((long) ENTRIES.getVolatile(entries, e * STRIDE + LINK) & NEXT_MASK) - 1;
    }

    /** The first entry of the list, or {@link #NONE}. */
    int first() {
        return (int) HEAD.getVolatile(this) - 1;
    }

    /**
     * Takes a free entry and writes its key (not yet linked): the entry, or {@link #NONE} if the chunk is full.
     */
    int allocate(long keyRef, int keyLength, long keyPrefix) {
        if ((int) ALLOCATED.getVolatile(this) >= capacity) {
            return NONE;
        }
        int e = (int) ALLOCATED.getAndAdd(this, 1);
        if (e >= capacity) {
            return NONE;
        }
        entries[e * STRIDE + KEY] = keyRef;
        entries[e * STRIDE + LINK] = (long) keyLength << 32;
        entries[e * STRIDE + PREFIX] = keyPrefix;
        return e;
    }

    /**
     * The prefix this chunk keeps for the key {@code [offset, offset + length)} of {@code source}, a key of its
     * range (which starts with the {@link #shared} bytes): its {@link Keys#prefix} after them, by {@link #plan}.
     */
    long prefixOf(Keys keys, MemorySegment source, long offset, int length) {
        return keys.prefix(plan, source, offset, length);
    }

    // ---- search

    /**
     * The window around the probe: the last entry whose key is below it (at or below it if {@code inclusive}) and
     * the entry the walk saw after that one, packed by {@link #window}; either may be {@link #NONE}. A binary
     * search of the sorted prefix, then a walk of the list. The successor is the one read by the walk: reading the
     * link again could return an entry inserted since, with a key on the wrong side of the probe.
     */
    long window(Keys keys, MemorySegment probe, int length, boolean inclusive) {
        int limit = inclusive ? -1 : 0; // an entry is before the probe while compare(probe, key) > limit
        int outside = keys.outside(probe, length, minKey, shared);
        long prefix = outside == 0 ? prefixOf(keys, probe, 0, length) : 0;
        int pred = lastSortedBelow(keys, probe, length, prefix, outside, inclusive); // -1 is NONE
        int next = pred == NONE ? first() : next(pred);
        while (next != NONE && compare(keys, probe, length, prefix, outside, next) > limit) {
            pred = next;
            next = next(next);
        }
        return window(pred, next);
    }

    /**
     * Compares the probe, whose prefix for this chunk is {@code prefix} and whose place against the chunk's shared
     * bytes is {@code outside} ({@link Keys#outside}: nonzero decides for every entry), with entry {@code e}'s key.
     * A search that did not publish may read a key slice reused since the chunk was replaced (I4) and hand those
     * bytes to a user comparator's deserializer, which may throw: if the chunk is replaced, the failure is dropped
     * and -1 returned (the caller discards what it read from a replaced chunk); if not, the bytes were the key's and
     * the failure is the user's.
     */
    private int compare(Keys keys, MemorySegment probe, int length, long prefix, int outside, int e) {
        if (outside != 0) {
            return outside;
        }
        try {
            return keys.compare(probe, length, prefix, keyRef(e), keyLength(e), keyPrefix(e));
        } catch (RuntimeException | Error failure) { // what a deserializer may throw on reused bytes (Serializer)
            if (isReplaced()) {
                return -1;
            }
            throw failure;
        }
    }

    /** The place of the heap key {@code probe} against this chunk's shared bytes ({@link Keys#outside}). */
    int outside(Keys keys, Key probe) {
        return keys.outside(probe.segment(), probe.length(), minKey, shared);
    }

    /** The prefix this chunk keeps for the heap key {@code probe}, one of its range ({@link #outside} 0). */
    long prefixOf(Keys keys, Key probe) {
        return shared == 0 && plan.isContiguous() ? keys.prefix(probe)
                : prefixOf(keys, probe.segment(), 0, probe.length());
    }

    /**
     * Compares the heap key {@code probe}, whose {@link #outside} and {@link #prefixOf} for this chunk are given
     * (taken once for all the entries a scan compares with it), with entry {@code e}'s key; failures as for the
     * probe comparison.
     */
    int compare(Keys keys, Key probe, int outside, long prefix, int e) {
        return compare(keys, probe.segment(), probe.length(), prefix, outside, e);
    }

    static long window(int pred, int succ) {
        return ((long) (pred + 1) << 32) | (succ + 1);
    }

    static int predecessorOf(long window) {
        return (int) (window >>> 32) - 1;
    }

    static int successorOf(long window) {
        return (int) (window & NEXT_MASK) - 1;
    }

    /** The entry with the probe's key given the probe's (exclusive) {@link #window}, or {@link #NONE}. */
    int holding(Keys keys, MemorySegment probe, int length, long window) {
        int candidate = successorOf(window);
        if (candidate == NONE) {
            return NONE;
        }
        int outside = keys.outside(probe, length, minKey, shared);
        long prefix = outside == 0 ? prefixOf(keys, probe, 0, length) : 0;
        return compare(keys, probe, length, prefix, outside, candidate) == 0 ? candidate : NONE;
    }

    /**
     * The index of the last sorted-prefix entry below the probe (at or below it if {@code inclusive}), or -1:
     * where a descending walk starts (Oak §4.2).
     */
    int lastSortedBelow(Keys keys, MemorySegment probe, int length, boolean inclusive) {
        int outside = keys.outside(probe, length, minKey, shared);
        long prefix = outside == 0 ? prefixOf(keys, probe, 0, length) : 0;
        return lastSortedBelow(keys, probe, length, prefix, outside, inclusive);
    }

    private int lastSortedBelow(Keys keys, MemorySegment probe, int length, long prefix, int outside,
            boolean inclusive) {
        int limit = inclusive ? -1 : 0;
        int lo = 0;
        int hi = sortedCount - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(keys, probe, length, prefix, outside, mid) > limit) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /**
     * Links the allocated entry {@code e}, whose key is the probe, into the list (Oak's entriesLLputIfAbsent):
     * returns {@code e}, or the entry already holding that key (then {@code e} stays unlinked). Must run inside a
     * published operation. {@code window} is the probe's exclusive window from a search of this chunk that the
     * caller knows valid (this chunk was not replaced after it); the first attempt links there, later ones search
     * again. An old window is still a window: entries are never unlinked and keys never change, so only entries
     * inserted between its two ends since can make the CAS fail.
     */
    int link(Keys keys, MemorySegment probe, int length, int e, long window) {
        for (boolean first = true; ; first = false) {
            if (!first) {
                window = window(keys, probe, length, false);
            }
            int pred = predecessorOf(window);
            int succ = successorOf(window);
            if (holding(keys, probe, length, window) != NONE) {
                return succ;
            }
            int b = e * STRIDE + LINK;
            entries[b] = (entries[b] & ~NEXT_MASK) | (succ + 1);
            boolean linked;
            if (pred == NONE) {
                linked = HEAD.compareAndSet(this, succ + 1, e + 1);
            } else {
                int p = pred * STRIDE + LINK;
                long link = (long) ENTRIES.getVolatile(entries, p);
                linked = (int) (link & NEXT_MASK) == succ + 1
                        && ENTRIES.compareAndSet(entries, p, link, (link & ~NEXT_MASK) | (e + 1));
            }
            if (linked) {
                return e;
            }
        }
    }

    // ---- publish, freeze, replace

    /** Announces an operation that will change entries; {@code false} (nothing announced) if the chunk is frozen. */
    boolean publish() {
        PENDING.getAndAdd(this, 1);
        if ((int) STATE.getVolatile(this) != ACTIVE) {
            PENDING.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    void unpublish() {
        PENDING.getAndAdd(this, -1);
    }

    /** Claims the chunk for a rebalance: {@code true} for the one thread whose CAS froze it. */
    boolean freeze() {
        return STATE.compareAndSet(this, ACTIVE, FROZEN);
    }

    /**
     * Marks this chunk as holding pairs a long-lived zero-copy handle points into, and tells whether it was still
     * active then: if so, no rebalance moves its pairs, now or in the chunks that replace it. A Dekker pair with
     * {@link #freeze}: a rebalancer reads the mark after its freeze, so it sees every mark made before a freeze
     * that the marking thread did not see.
     */
    boolean handOut() {
        if (!(boolean) HANDED_OUT.getAcquire(this)) {
            HANDED_OUT.setVolatile(this, true);
        }
        return isActive();
    }

    boolean isHandedOut() {
        return handedOut;
    }

    /** Marks a chunk not yet published as holding pairs {@link #handOut} protects, as an old one did. */
    void inheritHandedOut() {
        handedOut = true;
    }

    /** Records, before this chunk is marked replaced, where its rebalance put its entries. */
    void movedTo(Moves moves) {
        this.moves = moves;
    }

    /** Where the rebalance that replaced this chunk put its entries, or {@code null}. */
    Moves moves() {
        return moves;
    }

    /**
     * Whether entry {@code e}'s key, and the value it was built with, lie in key order between those of its
     * neighbours: it is in the sorted prefix of a chunk built with its pairs laid out ({@link #markLaidOut}).
     */
    boolean laidOutInOrder(int e) {
        return laidOut && e < sortedCount;
    }

    /**
     * Whether an entry of this laid-out chunk may hold a value other than the one it was laid out with: a hint, read
     * without synchronization (a scan may see it late, and then reads a few values out of order untouched).
     */
    boolean valuesReplaced() {
        return valuesReplaced;
    }

    /**
     * Whether value slice {@code valueRef}, read from entry {@code e}, starts right after the entry's key, where a
     * layout puts it ({@link Rebalancer} moves a pair's key and value into fresh slices one after the other): at most
     * {@code 2 n + }{@value #LAID_OUT_GAP} bytes after the start of a key of {@code n} bytes. A hint: a value replaced
     * into a slice that happens to lie there reads as laid out.
     */
    boolean holdsWhereLaidOut(int e, long valueRef) {
        long distance = Pool.distance(keyRef(e), valueRef);
        return distance > 0 && distance <= 2L * keyLength(e) + LAID_OUT_GAP;
    }

    /** Marks a chunk not yet published as built with its pairs laid out in key order. */
    void markLaidOut() {
        laidOut = true;
    }

    /**
     * Counts a scan that read this chunk to its end; whether the chunk should now be laid out again: scanned more
     * than once since it was built, and {@link #holdsPairsOutOfOrder}.
     */
    boolean scannedOutOfOrder() {
        return holdsPairsOutOfOrder() && ++scans >= 2;
    }

    /**
     * Whether many of this chunk's pairs lie out of key order: it was not laid out, or a quarter as many entries
     * were inserted since.
     */
    boolean holdsPairsOutOfOrder() {
        int unordered = laidOut ? allocated() - sortedCount : allocated();
        return unordered > 0 && unordered >= (laidOut ? Math.max(1, sortedCount / 4) : 1);
    }

    /** Records, right after its {@link #freeze}, that the rebalance of {@code rebalanced} froze this chunk. */
    void frozenFor(Chunk rebalanced) {
        frozenFor = rebalanced;
    }

    /**
     * The chunk whose rebalance froze this one, or {@code null} if not (yet) recorded: chunks frozen by one
     * rebalance are replaced together, once each of them is drained.
     */
    Chunk frozenFor() {
        return frozenFor;
    }

    boolean hasPending() {
        return (int) PENDING.getVolatile(this) != 0;
    }

    boolean isActive() {
        return (int) STATE.getVolatile(this) == ACTIVE;
    }

    /**
     * Orders the reads before it, then tells whether the chunk was replaced, or retired by the map's close (its
     * keys may be reused).
     */
    boolean isReplaced() {
        VarHandle.loadLoadFence();
        return (int) STATE.getAcquire(this) == REPLACED;
    }

    /** Marks the chunk replaced, by its rebalancer once the new chunks are in the index, or by the map's close. */
    void markReplaced() {
        STATE.setVolatile(this, REPLACED);
    }

    // ---- counts

    void addLive(int delta) {
        LIVE.getAndAdd(this, delta);
    }

    /** Sets the counts of a new chunk's entries that a live count leaves out: their tombstones. */
    void setTombstones(int count) {
        TOMBSTONES.setVolatile(this, count);
    }

    void addTombstones(int delta) {
        TOMBSTONES.getAndAdd(this, delta);
    }

    int tombstones() {
        return (int) TOMBSTONES.getVolatile(this);
    }

    /** The notes of the entries whose values may have older versions, for the sweep after a snapshot's close. */
    VersionedEntries versioned() {
        VersionedEntries v = (VersionedEntries) VERSIONED.getAcquire(this);
        if (v == null) {
            v = new VersionedEntries(capacity);
            VersionedEntries witness = (VersionedEntries) VERSIONED.compareAndExchange(this, null, v);
            v = witness == null ? v : witness;
        }
        return v;
    }

    /** Whether an entry's value may have older versions. */
    boolean mayHoldVersions() {
        VersionedEntries v = (VersionedEntries) VERSIONED.getAcquire(this);
        return v != null && !v.isEmpty();
    }

    int live() {
        return (int) LIVE.getVolatile(this);
    }

    /**
     * The entries taken from the array so far, linked or not: those it was built with and those inserts took
     * since. {@code allocated() - live()} are the entries a compaction would drop (removed keys, slots whose link
     * lost a race, and inserts not yet given their value).
     */
    int allocated() {
        return Math.min(capacity, (int) ALLOCATED.getVolatile(this));
    }

    /** Whether inserts took entries since the chunk was built. */
    boolean tookInserts() {
        return allocated() > sortedCount;
    }

    /** Bytes of heap the chunk takes, about. */
    long heapBytes() {
        return 16L + entries.length * 8L + 64;
    }
}
