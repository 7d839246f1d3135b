package io.grove.internal.sorted;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Which bytes of its keys a chunk keeps as their 8-byte prefix ({@link Keys}): by default the 8 bytes after the
 * bytes all keys of its range share ({@link Chunk#shared}); for keys whose differences lie further apart, 8 bytes
 * gathered from the positions where they differ.
 *
 * <h2>Implementation notes</h2>
 *
 * <p><b>Why.</b> Composite keys of small numbers (an hour, then dimensions as 4-byte ints; an id, then a
 * timestamp) differ in a few bytes separated by bytes every key of a chunk has alike (the high bytes of small
 * ints). The 8 bytes after the shared ones then hold one or two of the differing bytes, most comparisons find
 * equal prefixes and read the stored keys off heap: in a Druid-style rollup index half of the ingestion's time.
 *
 * <p><b>The gathered prefix.</b> Positions count from {@link #start}, the chunk's shared bytes. A plan picks up to
 * 8 <em>selected</em> positions {@code p_0 < ... < p_k} and, for every other position before {@code p_k}, a
 * <em>template</em> byte. A key's prefix is built position by position up to {@code p_k} (the key zero-padded):
 * a selected position contributes the key's byte; at the first template position where the key's byte differs
 * from the template the rest of the prefix is saturated, to {@code 0xFF} bytes if the key's byte is above the
 * template's and to zeros if below; the prefix is left-aligned. Keys that have the template's bytes (the plan is
 * chosen so that most do) get their selected bytes; others get a correct prefix that separates them from less.
 *
 * <p><b>Order.</b> A chunk may compare two keys by their prefixes whenever those differ, so the prefix must be
 * monotone: {@code a <= b} implies {@code prefix(a) <= prefix(b)} unsigned (equal prefixes then fall back to the
 * keys' bytes). Zero-padding is monotone (a key that is a proper prefix of another pads with zeros, the least
 * byte). For padded keys {@code a < b} first differing at position {@code d}: if either left the template before
 * {@code d}, both left it at the same position the same way, and their prefixes are equal; else if {@code d} is
 * selected, their selected bytes agree before {@code d} and {@code a}'s is lower at {@code d}; else if {@code d}
 * is a template position, {@code a[d] < b[d]} leaves at most one of them on the template, and either {@code a}
 * saturates low or {@code b} saturates high (or both alike); else {@code d} is past {@code p_k} and the prefixes
 * are equal. In every case {@code prefix(a) <= prefix(b)}.
 *
 * <p><b>Choice.</b> {@link Keys#planFor} samples up to {@value #SAMPLES} of a new chunk's keys at a rebalance and
 * selects the first 8 positions (within {@value #SPAN} bytes after the shared ones) at which the samples differ;
 * when those all lie in the first 8 bytes, the default plan covers them with one load and is kept. Entries keep
 * their prefix when they move to a chunk with an equal plan; otherwise the rebalance takes it again from the key.
 */
final class PrefixPlan {
    /** How many bytes after the shared ones a plan may look at. */
    static final int SPAN = 32;
    /** How many of a new chunk's keys a rebalance samples to choose its plan. */
    static final int SAMPLES = 16;

    /** The number of first bytes every key of the chunk shares; positions count from here. */
    final int start;
    /** The 8-byte words from {@link #start} the prefix depends on; 0 for the default plan. */
    private final int words;
    /** Per word, big-endian: 0xFF at the template positions, else 0. */
    private final long[] templateMasks;
    /** Per word, big-endian: the template's bytes at its positions, else 0. */
    private final long[] templates;
    /** Per selected position in order: its word and the shift that brings its byte to the low 8 bits. */
    private final int[] selectedWords;
    private final int[] selectedShifts;

    private PrefixPlan(int start, long[] templateMasks, long[] templates, int[] selectedWords,
            int[] selectedShifts) {
        this.start = start;
        this.words = templates.length;
        this.templateMasks = templateMasks;
        this.templates = templates;
        this.selectedWords = selectedWords;
        this.selectedShifts = selectedShifts;
    }

    private static final long[] NO_WORDS = new long[0];
    private static final int[] NO_POSITIONS = new int[0];

    /** The default plan: the 8 bytes after the {@code start} shared ones. */
    static PrefixPlan contiguous(int start) {
        return new PrefixPlan(start, NO_WORDS, NO_WORDS, NO_POSITIONS, NO_POSITIONS);
    }

    /** Whether this is the default plan, which {@link Keys#prefix} computes with one load. */
    boolean isContiguous() {
        return words == 0;
    }

    /**
     * The plan for keys that share {@code start} first bytes, from {@code count} of them: {@code samples[i]} holds
     * the {@value #SPAN} bytes of one after the shared ones (zero-padded) as big-endian words.
     */
    static PrefixPlan choose(int start, long[][] samples, int count) {
        int[] positions = new int[Long.BYTES];
        int selected = 0;
        for (int q = 0; q < SPAN && selected < Long.BYTES; q++) {
            int first = byteAt(samples[0], q);
            for (int i = 1; i < count; i++) {
                if (byteAt(samples[i], q) != first) {
                    positions[selected++] = q;
                    break;
                }
            }
        }
        if (selected == 0 || positions[selected - 1] < Long.BYTES) {
            return contiguous(start); // the first 8 bytes hold every position that differs
        }
        int words = positions[selected - 1] / Long.BYTES + 1;
        long[] masks = new long[words];
        long[] templates = new long[words];
        int next = 0;
        for (int q = 0; q < positions[selected - 1]; q++) {
            if (q == positions[next]) {
                next++;
            } else {
                int shift = shiftOf(q);
                masks[q / Long.BYTES] |= 0xFFL << shift;
                templates[q / Long.BYTES] |= (long) byteAt(samples[0], q) << shift;
            }
        }
        int[] selectedWords = new int[selected];
        int[] selectedShifts = new int[selected];
        for (int k = 0; k < selected; k++) {
            selectedWords[k] = positions[k] / Long.BYTES;
            selectedShifts[k] = shiftOf(positions[k]);
        }
        return new PrefixPlan(start, masks, templates, selectedWords, selectedShifts);
    }

    /**
     * A sample for {@link #choose}: the {@value #SPAN} bytes after the first {@code start} of the key
     * {@code [offset, offset + length)} of {@code source}, zero-padded, as big-endian words.
     */
    static long[] sampleOf(MemorySegment source, long offset, int length, int start) {
        long[] words = new long[SPAN / Long.BYTES];
        for (int w = 0; w < words.length; w++) {
            int from = start + w * Long.BYTES;
            words[w] = Keys.bytePrefix(source, offset + from, length - from);
        }
        return words;
    }

    private static int byteAt(long[] words, int q) {
        return (int) (words[q / Long.BYTES] >>> shiftOf(q)) & 0xFF;
    }

    /** The shift that brings byte {@code q} of a big-endian word sequence to the low 8 bits of its word. */
    private static int shiftOf(int q) {
        return (Long.BYTES - 1 - q % Long.BYTES) * Byte.SIZE;
    }

    /**
     * The gathered prefix of the key {@code [offset, offset + length)} of {@code source}, which starts with the
     * {@link #start} shared bytes (not for the default plan: see {@link #isContiguous}).
     */
    long gather(MemorySegment source, long offset, int length) {
        long prefix = 0;
        int k = 0;
        int selected = selectedWords.length;
        for (int i = 0; i < words; i++) {
            int from = start + i * Long.BYTES;
            long word = Keys.bytePrefix(source, offset + from, length - from);
            long departure = (word & templateMasks[i]) ^ templates[i];
            int stop = departure == 0 ? -1 : Long.SIZE - Byte.SIZE - (Long.numberOfLeadingZeros(departure) & ~7);
            for (; k < selected && selectedWords[k] == i && selectedShifts[k] > stop; k++) {
                prefix = (prefix << Byte.SIZE) | ((word >>> selectedShifts[k]) & 0xFF);
            }
            if (departure != 0) { // the key leaves the template here: saturate what is left
                // the masked word and the template agree above byte stop, so their order is that byte's
                long fill = Long.compareUnsigned(word & templateMasks[i], templates[i]) > 0 ? 0xFF : 0;
                for (; k < selected; k++) {
                    prefix = (prefix << Byte.SIZE) | fill;
                }
                break;
            }
        }
        return prefix << ((Long.BYTES - selected) * Byte.SIZE);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PrefixPlan p && start == p.start && Arrays.equals(templateMasks, p.templateMasks)
                && Arrays.equals(templates, p.templates) && Arrays.equals(selectedShifts, p.selectedShifts)
                && Arrays.equals(selectedWords, p.selectedWords);
    }

    @Override
    public int hashCode() {
        return 31 * start + Arrays.hashCode(templates);
    }
}
