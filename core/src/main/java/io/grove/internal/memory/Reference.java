package io.grove.internal.memory;

/**
 * The codec of slice references: one {@code long} that names a slice's header and the version the slice had
 * when the reference was made (Nova's safe-pointer, Nova §3.2). The only place that knows the bit layout.
 *
 * <pre>
 *  63   62                         34 33                                   0
 * +---+-----------------------------+--------------------------------------+
 * | D |     version (29 bits)        |   granule (34 bits)                  |
 * +---+-----------------------------+--------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>granule: the position of the slice's header in the pool, in 16-byte granules counted from the start of
 *       block 0; block {@code b} covers granules {@code [b << s, (b + 1) << s)} where {@code s} is
 *       {@code log2(blockSize) - 4}. 34 bits address 256 GiB per pool. A reference is an offset, never an address,
 *       so it stays meaningful when blocks are backed by a file mapped elsewhere.
 *   <li>version: the era in which the slice was allocated (see {@link #versionOfEra}); never 0, so the value 0
 *       ({@link #NULL}) is never a reference to a slice.
 *   <li>D: set in a reference through which the slice was deleted; the header's own deleted bit is the truth.
 * </ul>
 *
 * <p>Bits 63-34 sit where {@link SliceHeader}'s state word keeps the same fields, so validation is one
 * {@code xor} and one mask ({@link #sameIncarnation}).
 */
public final class Reference {
    public static final long NULL = 0L;

    static final int GRANULE_BITS = 34;
    static final int VERSION_BITS = 29;
    static final int VERSION_SHIFT = GRANULE_BITS;
    static final long GRANULE_MASK = (1L << GRANULE_BITS) - 1;
    static final long VERSION_MASK = ((1L << VERSION_BITS) - 1) << VERSION_SHIFT;
    static final long DELETED_BIT = 1L << 63;
    /** Version and deleted bit: the fields a reference and its header must agree on. */
    static final long IDENTITY_MASK = DELETED_BIT | VERSION_MASK;
    /** The number of distinct versions: versions run 1, 2, ..., {@code VERSION_COUNT} and then wrap to 1. */
    static final long VERSION_COUNT = (1L << VERSION_BITS) - 1;

    private Reference() {}

    static long of(long granule, int version) {
        assert granule >= 0 && granule <= GRANULE_MASK : granule;
        assert version > 0 && version <= VERSION_COUNT : version;
        return ((long) version << VERSION_SHIFT) | granule;
    }

    /** The granule of the slice's header. */
    static long granule(long ref) {
        return ref & GRANULE_MASK;
    }

    public static int version(long ref) {
        return (int) ((ref & VERSION_MASK) >>> VERSION_SHIFT);
    }

    public static boolean isDeleted(long ref) {
        return (ref & DELETED_BIT) != 0;
    }

    /** The same reference with its deleted bit set. */
    public static long asDeleted(long ref) {
        return ref | DELETED_BIT;
    }

    /** Whether a header state word (or a reference) agrees with {@code ref} on version and deleted bit. */
    static boolean sameIncarnation(long stateWord, long ref) {
        return ((stateWord ^ ref) & IDENTITY_MASK) == 0;
    }

    /** The version a slice allocated in era {@code era} (era &ge; 1) carries: eras wrap onto 1..VERSION_COUNT. */
    static int versionOfEra(long era) {
        return (int) ((era - 1) % VERSION_COUNT) + 1;
    }

    public static String toString(long ref) {
        if (ref == NULL) {
            return "ref[null]";
        }
        return "ref[granule=" + granule(ref) + ", version=" + version(ref) + (isDeleted(ref) ? ", deleted]" : "]");
    }
}
