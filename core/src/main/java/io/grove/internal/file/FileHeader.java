package io.grove.internal.file;

import io.grove.GroveFileException;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The settings that define a Grove file, as its first page records them; the only place that computes offsets
 * inside that page. Immutable once the file is created.
 *
 * <pre>
 * byte offset  0  magic "GROVE-HT" (8 ASCII bytes)
 *              8  format version (int)          12  header length in bytes up to the checksum (int)
 *             16  maximum file size (long)
 *             24  block size (int)              28  cell size in bytes (int: 8 for slots only)
 *             32  maximum entries (long: Long.MAX_VALUE if not bounded)
 *             40  maximum bytes (long: Long.MAX_VALUE if not bounded)
 *             48  creation time (long: milliseconds since the epoch)
 *             56  key serializer identity (int length, then that many UTF-8 bytes, at most 1,024)
 *              …  value serializer identity (same)
 *     length      CRC32C of bytes [0, length) (int)
 * </pre>
 * All numbers are little-endian, whatever the platform, so that a file's header reads the same everywhere. The
 * rest of the page is zero.
 *
 * @param maxFileSize the file's size: the whole file is mapped at once, sparse where the file system allows
 * @param blockSize the pool's block size
 * @param cellBytes the bytes of each cell of the hash table's slot arrays: 8 if they hold slots only, more if
 *     entries lie in the cells ({@code GroveHashMap.Builder.inlineEntries})
 * @param maxEntries a bounded map's maximum size, {@link Long#MAX_VALUE} if not bounded
 * @param maxBytes a bounded map's maximum bytes, {@link Long#MAX_VALUE} if not bounded
 * @param keySerializer what identifies the key serializer (its class name)
 * @param valueSerializer what identifies the value serializer (its class name)
 * @param createdMillis when the file was created
 */
public record FileHeader(long maxFileSize, int blockSize, int cellBytes, long maxEntries, long maxBytes,
        String keySerializer, String valueSerializer, long createdMillis) {
    /**
     * The format this code writes and the only one it reads. 2 (2026-11-25): the pool state records the boot id of the
     * last open and whether the last close forced the file. 3 (2026-11-25): the hash table's open-addressed slot
     * arrays, 16-byte entry headers with a check word. 4 (2026-11-27): a tag array of 2-byte tags beside each slot
     * array. 5 (2026-11-27): 24-byte entry headers with an entry identity, 96-byte segment records. 6 (2026-11-27):
     * 1-byte tags, any number of segments (a key's segment scaled from its hash's top 24 bits). 7 (2026-12-06): the
     * cell size in the header, entries in the cells of the slot arrays. 8 (2026-12-06): the table of the processes that
     * have the file open ({@link ProcessTable}) after a pool state record cut to 44 KiB. 9 (2026-12-06): the hazard
     * slots of every process in the file, before the blocks. 10 (2026-12-06): a segment's lock holds its holder's
     * process record plus one (1 in memory), -1 once closed. 11 (2026-12-06): the release stripes of every process in
     * the file, after the hazard slots; a count of salvaged processes in the pool state. 12 (2026-12-06): every
     * process's counts of live slices and free granules in the file, after the release stripes, instead of two words of
     * the pool state. 13 (2026-12-06): 112-byte segment records, whose last two words name the slices an operation
     * holding the lock has in hand. Files of formats 1 to 12 were never released.
     */
    public static final int FORMAT_VERSION = 13;
    /** The header's page. */
    public static final long PAGE = 4096;
    /** Where the pool's state record starts (after the header page). */
    public static final long STATE_OFFSET = PAGE;
    /**
     * The bytes the pool's state record may take: its free-list heads take 33 KB with the 8 MiB blocks of a file's
     * pool.
     */
    public static final long STATE_SIZE = 44 * 1024;
    /** Where the table of the processes that have the file open starts ({@link ProcessTable}). */
    public static final long PROCESSES_OFFSET = STATE_OFFSET + STATE_SIZE;
    /** Where the hazard slots of the processes' writes in progress start (Nova's TAP, kept in the file). */
    public static final long HAZARDS_OFFSET = PROCESSES_OFFSET + ProcessTable.SIZE;
    /** The bytes of the hazard slots: 1,024 slots, one per 64-byte line. */
    public static final long HAZARDS_SIZE = 64 * 1024;
    /**
     * Where the release stripes of the processes start (Nova's release lists, kept in the file): the deleted slices
     * each process has not freed yet, {@link Pool#RELEASE_AREA_BYTES} per record of the process table.
     */
    public static final long RELEASES_OFFSET = HAZARDS_OFFSET + HAZARDS_SIZE;
    /** The bytes of the release stripes. */
    public static final long RELEASES_SIZE = ProcessTable.SLOTS * Pool.RELEASE_AREA_BYTES;
    /**
     * Where the processes' counts start: the live slices and free granules the processes in each record of the process
     * table added and took away, {@link Pool#COUNT_AREA_BYTES} per record; their sums are the pool's counts.
     */
    public static final long COUNTS_OFFSET = RELEASES_OFFSET + RELEASES_SIZE;
    /** The bytes of the processes' counts. */
    public static final long COUNTS_SIZE = ProcessTable.SLOTS * Pool.COUNT_AREA_BYTES;
    /** Where the pool's blocks start: granule 0 of the pool. */
    public static final long BLOCKS_OFFSET = COUNTS_OFFSET + COUNTS_SIZE;
    /** The longest serializer identity, in UTF-8 bytes. */
    public static final int MAX_IDENTITY_BYTES = 1024;

    static final byte[] MAGIC = "GROVE-HT".getBytes(StandardCharsets.US_ASCII);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int VERSION_AT = 8;
    private static final int LENGTH_AT = 12;
    private static final int MAX_FILE_SIZE_AT = 16;
    private static final int BLOCK_SIZE_AT = 24;
    private static final int CELL_BYTES_AT = 28;
    private static final int MAX_ENTRIES_AT = 32;
    private static final int MAX_BYTES_AT = 40;
    private static final int CREATED_AT = 48;
    private static final int IDENTITIES_AT = 56;

    public FileHeader {
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("blockSize must be a power of two, was " + blockSize);
        }
        if (maxFileSize < BLOCKS_OFFSET + blockSize) {
            throw new IllegalArgumentException("a maximum file size of " + maxFileSize + " bytes leaves no room for"
                    + " one block of " + blockSize + " bytes after the " + BLOCKS_OFFSET
                    + " bytes of header and state");
        }
        if (cellBytes < Long.BYTES || cellBytes % Long.BYTES != 0) {
            throw new IllegalArgumentException("cellBytes must be a positive multiple of 8, was " + cellBytes);
        }
        checkIdentity("key serializer", keySerializer);
        checkIdentity("value serializer", valueSerializer);
    }

    private static void checkIdentity(String what, String identity) {
        if (identity.getBytes(StandardCharsets.UTF_8).length > MAX_IDENTITY_BYTES) {
            throw new IllegalArgumentException("the " + what + " identity takes more than " + MAX_IDENTITY_BYTES
                    + " bytes: " + identity);
        }
    }

    /** The bytes of the block area: the file's size less header and state. */
    public long blockAreaSize() {
        return maxFileSize - BLOCKS_OFFSET;
    }

    /** Writes this header into {@code page} (at least {@link #PAGE} bytes), checksum included. */
    void writeTo(MemorySegment page) {
        page.asSlice(0, PAGE).fill((byte) 0);
        MemorySegment.copy(MAGIC, 0, page, ValueLayout.JAVA_BYTE, 0, MAGIC.length);
        page.set(INT, VERSION_AT, FORMAT_VERSION);
        page.set(LONG, MAX_FILE_SIZE_AT, maxFileSize);
        page.set(INT, BLOCK_SIZE_AT, blockSize);
        page.set(INT, CELL_BYTES_AT, cellBytes);
        page.set(LONG, MAX_ENTRIES_AT, maxEntries);
        page.set(LONG, MAX_BYTES_AT, maxBytes);
        page.set(LONG, CREATED_AT, createdMillis);
        long at = writeString(page, IDENTITIES_AT, keySerializer);
        at = writeString(page, at, valueSerializer);
        page.set(INT, LENGTH_AT, (int) at);
        page.set(INT, at, checksum(page, (int) at));
    }

    private static long writeString(MemorySegment page, long at, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        page.set(INT, at, bytes.length);
        MemorySegment.copy(bytes, 0, page, ValueLayout.JAVA_BYTE, at + 4, bytes.length);
        return at + 4 + bytes.length;
    }

    private static int checksum(MemorySegment page, int length) {
        CRC32C crc = new CRC32C();
        crc.update(page.asSlice(0, length).asByteBuffer());
        return (int) crc.getValue();
    }

    /**
     * The header in {@code page}, the first {@link #PAGE} bytes of {@code file} (named in messages).
     *
     * @throws GroveFileException if it is not a Grove file, has a newer format or its header is damaged
     */
    static FileHeader readFrom(MemorySegment page, String file) {
        for (int i = 0; i < MAGIC.length; i++) {
            if (page.get(ValueLayout.JAVA_BYTE, i) != MAGIC[i]) {
                throw new GroveFileException(file, "is not a Grove file (its first bytes are not \"GROVE-HT\")");
            }
        }
        int version = page.get(INT, VERSION_AT);
        if (version != FORMAT_VERSION) {
            throw new GroveFileException(file, "has format version " + version + ", and this Grove reads version "
                    + FORMAT_VERSION + " only");
        }
        int length = page.get(INT, LENGTH_AT);
        if (length < IDENTITIES_AT + 8 || length > PAGE - 4) {
            throw new GroveFileException(file, "has a damaged header (header length " + length + ")");
        }
        int stored = page.get(INT, length);
        int computed = checksum(page, length);
        if (stored != computed) {
            throw new GroveFileException(file, "has a damaged header (checksum " + Integer.toHexString(stored)
                    + " recorded, " + Integer.toHexString(computed) + " computed)");
        }
        try {
            long at = IDENTITIES_AT;
            String key = readString(page, at, length);
            at += 4 + key.getBytes(StandardCharsets.UTF_8).length;
            String value = readString(page, at, length);
            return new FileHeader(page.get(LONG, MAX_FILE_SIZE_AT), page.get(INT, BLOCK_SIZE_AT),
                    page.get(INT, CELL_BYTES_AT),
                    page.get(LONG, MAX_ENTRIES_AT), page.get(LONG, MAX_BYTES_AT), key, value,
                    page.get(LONG, CREATED_AT));
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new GroveFileException(file, "has a header whose checksum holds but whose settings do not: "
                    + e.getMessage());
        }
    }

    private static String readString(MemorySegment page, long at, int length) {
        int n = page.get(INT, at);
        if (n < 0 || n > MAX_IDENTITY_BYTES || at + 4 + n > length) {
            throw new IllegalArgumentException("a serializer identity of " + n + " bytes at " + at);
        }
        byte[] bytes = new byte[n];
        MemorySegment.copy(page, ValueLayout.JAVA_BYTE, at + 4, bytes, 0, n);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The settings of {@code wanted} that contradict this header's, one sentence each naming the setting, the
     * file's value and the wanted one; empty if they agree. Creation time is not a setting.
     */
    List<String> contradictions(FileHeader wanted) {
        List<String> out = new ArrayList<>();
        compare(out, "maxFileSize", maxFileSize, wanted.maxFileSize);
        compare(out, "blockSize", blockSize, wanted.blockSize);
        compare(out, "cell size (inlineEntries)", cellBytes, wanted.cellBytes);
        compare(out, "maximumSize", maxEntries, wanted.maxEntries);
        compare(out, "maximumBytes", maxBytes, wanted.maxBytes);
        compare(out, "key serializer", keySerializer, wanted.keySerializer);
        compare(out, "value serializer", valueSerializer, wanted.valueSerializer);
        return out;
    }

    private static void compare(List<String> out, String setting, Object inFile, Object wanted) {
        if (!inFile.equals(wanted)) {
            out.add(setting + " is " + inFile + " in the file, " + wanted + " wanted");
        }
    }
}
