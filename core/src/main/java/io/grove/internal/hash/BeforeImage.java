package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The bytes of a value as they were before an in-place update of a map in a file, kept in the file so that a reopen
 * after a killed process can put them back (the update's own undo journal is on the heap and dies with the
 * process). The only place that computes offsets inside such a slice.
 *
 * <pre>
 * byte offset 0              8                12               16
 *            +--------------+----------------+----------------+-----------------------+
 *            | entry (ref)  | value start    | value length   | the value's bytes     |
 *            +--------------+----------------+----------------+-----------------------+
 * </pre>
 *
 * <p>Protocol, under the segment's lock: the image is written while private, then recorded in the segment's
 * {@code journal} field with a release store, before the entry's stamp turns odd; it is forgotten (field cleared
 * with a release store, slice deleted) after the stamp is even again or the entry was replaced. So an entry found
 * with an odd stamp at a reopen is the one the segment's image names, and the image holds its value from before
 * the update ({@link TableRecovery}). Value start: the offset of the value in the entry's payload. In the
 * platform's byte order.
 */
final class BeforeImage {
    private static final int ENTRY = 0;
    private static final int START = 8;
    private static final int LENGTH = 12;
    private static final int BYTES = 16;

    private BeforeImage() {}

    /**
     * A new private slice holding the value of entry {@code e}, whose payload has {@code entryLength} bytes, from
     * payload offset {@code start} to its end.
     */
    static long save(Pool pool, long e, int start, int entryLength) {
        int length = entryLength - start;
        long image = pool.allocate(BYTES + length);
        MemorySegment ib = pool.segment(image);
        long io = pool.payloadOffset(image);
        ib.set(ValueLayout.JAVA_LONG, io + ENTRY, e);
        ib.set(ValueLayout.JAVA_INT, io + START, start);
        ib.set(ValueLayout.JAVA_INT, io + LENGTH, length);
        MemorySegment.copy(pool.segment(e), pool.payloadOffset(e) + start, ib, io + BYTES, length);
        return image;
    }

    /** The entry whose value {@code image} holds. */
    static long entry(Pool pool, long image) {
        return pool.segment(image).get(ValueLayout.JAVA_LONG, pool.payloadOffset(image) + ENTRY);
    }

    /**
     * Writes the bytes of {@code image} back into its entry {@code e}, whose payload has {@code entryLength} bytes;
     * {@code false}, writing nothing, if they do not fit it (a damaged image).
     */
    static boolean restore(Pool pool, long image, long e, int entryLength) {
        MemorySegment ib = pool.segment(image);
        long io = pool.payloadOffset(image);
        int start = ib.get(ValueLayout.JAVA_INT, io + START);
        int length = ib.get(ValueLayout.JAVA_INT, io + LENGTH);
        if (start < EntryLayout.KEY || length < 0 || (long) start + length != entryLength
                || BYTES + length > pool.length(image)) {
            return false;
        }
        MemorySegment.copy(ib, io + BYTES, pool.segment(e), pool.payloadOffset(e) + start, length);
        return true;
    }
}
