package io.grove.internal.file;

import io.grove.GroveFileException;
import io.grove.GroveOutOfMemoryException;
import io.grove.internal.memory.Pool;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A Grove file, mapped whole: its header page ({@link FileHeader}), the pool's state record, then the pool's
 * blocks.
 *
 * <p>Implementation notes. The file is mapped once, at its maximum size, into one segment
 * ({@code FileChannel.map} with an arena maps more than 2 GB at once); a new file is extended to that size
 * sparsely, so disk is used as pages are first written. Nothing is ever remapped, so no reference into the
 * mapping moves. The device is made to hold the bytes of the file before their first use (the header and the pool
 * state when the file is created, each block when the pool first reserves it: {@link #takeBlockSpace}), so that a
 * full device fails an operation with an exception rather than a store into the mapping with SIGBUS. Before
 * mapping an existing file, its header is read through the channel and its length checked
 * against the recorded maximum: touching a mapping beyond the end of its file raises SIGBUS, which the JVM turns
 * into an asynchronous {@link InternalError} at best. A failed open writes nothing: every check happens before the
 * first write. A process maps a file at most once at a time ({@link #OPEN}, keyed by the real path and checked by the
 * file's identity too, before the process opens a descriptor of it), so that two maps of one process never run one
 * table with two sets of per-process state; and while it has it open it is in
 * the file's {@link ProcessTable}, whose locks the operating system releases when the process ends, however it
 * ends. So a file whose pool state says open (not closed cleanly) and that no process has open was left by a
 * process that is gone, and may be recovered. Those locks are released also when the process closes any other
 * descriptor of the file: a read-only open in a process that has the file open ({@link #openReadOnly}) uses the
 * open file's channel, and an open refused because the process has the file open opens none. And when an interrupted
 * thread closes the channel (a {@code FileChannel}'s blocking operations close it if their thread is interrupted):
 * the blocking operations after the open (the growth lock, the file's growth, the users' lock) run where no
 * interrupt reaches them ({@link Uninterruptible}).
 */
public final class MappedFile implements AutoCloseable {
    /** The files this process has open, by real path. */
    private static final Map<Path, Opened> OPEN = new ConcurrentHashMap<>();

    /** A file this process has open: its channel, and its identity in the file system (inode). */
    private record Opened(FileChannel channel, Object fileKey) {}
    /**
     * What {@link #takeSpace} writes, a page at a time: the page cache makes its folios as large as the writes that
     * create them (Linux 6.18, ext4), and a store into the mapping dirties, and the writeback then writes, a whole
     * folio. Measured with 20M records, 2M random puts under the kernel's default writeback
     * ({@code WritebackPerPut}): zeros written 64 KiB at a time, 8.0 pages dirtied and 32.8 KB written per put,
     * 38,492 puts/s; 4 KiB at a time, 0.64 pages and 2.6 KB, 133,032 puts/s (Chronicle Map: 0.50 pages, 151,101
     * puts/s); with no zeros written at all (pages made by faults of the mapping), more than 1.3 TB written before
     * the puts were stopped.
     */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 12).asReadOnlyBuffer();

    private final String name;
    /** The real path under which {@link #OPEN} holds the file, or {@code null} if read-only. */
    private final Path realPath;
    private final FileChannel channel;
    /** Whether closing this file closes {@link #channel}: not if it is another open's ({@link #openReadOnly}). */
    private final boolean ownsChannel;
    private final Arena arena;
    private final MemorySegment mapping;
    private final FileHeader header;
    private final boolean created;
    private final ProcessTable processes;

    private MappedFile(String name, Path realPath, FileChannel channel, boolean ownsChannel, Arena arena,
            MemorySegment mapping, FileHeader header, boolean created, long gateWaitNanos) {
        this.name = name;
        this.realPath = realPath;
        this.channel = channel;
        this.ownsChannel = ownsChannel;
        this.arena = arena;
        this.mapping = mapping;
        this.header = header;
        this.created = created;
        this.processes = new ProcessTable(name, channel,
                mapping.asSlice(FileHeader.PROCESSES_OFFSET, ProcessTable.SIZE), gateWaitNanos);
    }

    /**
     * Opens {@code path} if it exists, checking that its settings agree with {@code wanted} (creation time
     * aside); else creates it with {@code wanted}. Joins the file's {@link ProcessTable}, waiting at most
     * {@code gateWaitNanos} for another process to finish opening or closing it (also the close's wait); until
     * {@link #admitOthers} no other process may open or close it.
     *
     * @throws IllegalArgumentException naming the file and each contradicting setting with both values
     * @throws GroveFileException if the file is not a sound Grove file or cannot be opened, created or mapped, or if
     *     the processes that have it open keep it from being joined (see {@link ProcessTable})
     * @throws IllegalStateException if this process has the file open already
     */
    public static MappedFile openOrCreate(Path path, FileHeader wanted, long gateWaitNanos) {
        String name = path.toAbsolutePath().toString();
        if (Files.isDirectory(path)) {
            throw new GroveFileException(name, "is a directory");
        }
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new GroveFileException(name, "cannot be created: its directory does not exist");
        }
        while (true) { // a race with another process's creation or deletion of the name: start again
            deleteAbandonedDrafts(path);
            try {
                return open(path, name, wanted, gateWaitNanos);
            } catch (Raced replaced) {
                continue;
            } catch (NoSuchFileException missing) {
                if (Files.isSymbolicLink(path)) {
                    throw new GroveFileException(name, "is a symbolic link to a file that does not exist");
                }
            } catch (IOException e) {
                throw new GroveFileException(name, "cannot be opened: " + e, e);
            }
            try {
                return create(path, name, wanted, gateWaitNanos);
            } catch (FileAlreadyExistsException | Raced raced) {
                continue; // created, or our draft deleted, meanwhile
            } catch (IOException e) {
                throw new GroveFileException(name, "cannot be created: " + e, e);
            }
        }
    }

    /**
     * Opens the existing file at {@code path}.
     *
     * @throws Raced if the name came to name another file (deleted and created again, or replaced) while this opened
     *     it: the channel's file is then not known to be the one whose identity this process would record
     */
    private static MappedFile open(Path path, String name, FileHeader wanted, long gateWaitNanos)
            throws IOException {
        Path real = path.toRealPath();
        Object keyBefore = Files.readAttributes(real, BasicFileAttributes.class).fileKey();
        reserve(real, name, null, keyBefore); // before this process opens a second descriptor of a file it has open
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException | Error e) {
            OPEN.remove(real);
            throw e;
        }
        MappedFile file = null;
        try {
            register(path, real, channel, keyBefore);
            FileHeader header = readHeader(channel, name);
            List<String> contradictions = header.contradictions(wanted);
            if (!contradictions.isEmpty()) {
                throw new IllegalArgumentException(name + " was created with other settings: "
                        + String.join("; ", contradictions));
            }
            file = map(name, real, channel, header, false, gateWaitNanos);
            file.processes.join();
            return file;
        } catch (IOException | RuntimeException | Error e) {
            if (file != null) {
                file.arena.close();
            }
            channel.close();
            OPEN.remove(real);
            throw e;
        }
    }

    /**
     * Opens {@code path} to read it only, for tools: mapped read-only, nothing written, whatever its settings; not
     * registered, so a map of this process may have it open too (its channel is then used: a descriptor of the file
     * closed by this process would release the map's locks, see {@link ProcessTable}).
     *
     * @throws GroveFileException if the file is not a sound Grove file or cannot be opened or mapped
     */
    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the MappedFile returned, which closes it
    public static MappedFile openReadOnly(Path path) {
        String name = path.toAbsolutePath().toString();
        if (Files.isDirectory(path)) {
            throw new GroveFileException(name, "is a directory");
        }
        try {
            Object fileKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            Opened opened = opened(path.toRealPath(), fileKey);
            if (opened != null && opened.channel() == null) {
                throw new IllegalStateException(name + " is being opened by a map of this process: try again");
            }
            FileChannel openHere = opened != null ? opened.channel() : null;
            FileChannel channel = openHere != null ? openHere : FileChannel.open(path, StandardOpenOption.READ);
            Arena arena = Arena.ofShared();
            try {
                FileHeader header = readHeader(channel, name);
                MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, header.maxFileSize(), arena);
                return new MappedFile(name, null, channel, openHere == null, arena, mapping, header, false,
                        0); // a tool joins no process table: it never waits for the gate
            } catch (IOException | RuntimeException | Error e) {
                arena.close();
                if (openHere == null) {
                    channel.close();
                }
                throw e;
            }
        } catch (IOException e) {
            throw new GroveFileException(name, "cannot be opened: " + e, e);
        }
    }

    /** The header of the file open on {@code channel}, its length checked against it; reads through the channel. */
    private static FileHeader readHeader(FileChannel channel, String name) throws IOException {
        long size = channel.size();
        if (size < FileHeader.PAGE) {
            throw new GroveFileException(name, size == 0 ? "is empty, not a Grove file"
                    : "is " + size + " bytes long, too short for a Grove file's header (" + FileHeader.PAGE + ")");
        }
        ByteBuffer page = ByteBuffer.allocate((int) FileHeader.PAGE);
        while (page.hasRemaining() && channel.read(page, page.position()) >= 0) {
            // reads the whole header page
        }
        FileHeader header = FileHeader.readFrom(MemorySegment.ofBuffer(page.flip()), name);
        if (size < header.maxFileSize()) {
            throw new GroveFileException(name, "is truncated: " + size + " bytes, its header says "
                    + header.maxFileSize());
        }
        return header;
    }

    /**
     * Creates the file under a draft name beside {@code path} ({@value #DRAFT_SUFFIX}), maps it, joins its process
     * table (so its gate is held), writes and forces its header, and only then gives it its name, in one step that
     * fails if {@code path} exists ({@link #publish}); the draft's name is then removed. So no process finds at
     * {@code path} a file whose creation has not ended: one that opened it meanwhile took it for a file that is not a
     * Grove file ("is empty"), and a creator killed midway left such a file there for good. A creator killed before
     * the link leaves its draft instead, a sparse file of {@link FileHeader#maxFileSize} bytes of which only the
     * first pages are on the device, which nothing reads; one killed right after the link leaves the draft's name as
     * a second name of the file. The next open of the file deletes either ({@link #deleteAbandonedDrafts}): the
     * creator holds the draft's creation lock from right after its creation until it removed the draft's name.
     *
     * @throws FileAlreadyExistsException if another process created {@code path} meanwhile (nothing is left)
     * @throws Raced if an open took the new draft for an abandoned one (nothing is left)
     */
    private static MappedFile create(Path path, String name, FileHeader wanted, long gateWaitNanos)
            throws IOException {
        Path real = path.toAbsolutePath().getParent().toRealPath().resolve(path.getFileName());
        Path draft = path.resolveSibling("." + path.getFileName() + "." + ProcessHandle.current().pid() + "-"
                + System.nanoTime() + DRAFT_SUFFIX);
        FileChannel channel = FileChannel.open(draft, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        boolean registered = false;
        MappedFile file = null;
        FileLock creating = null;
        boolean linked;
        try {
            creating = ProcessTable.tryLockCreation(channel);
            reserve(real, name, channel, lockedDraftKey(creating, draft));
            registered = true;
            takeSpace(channel, 0, FileHeader.BLOCKS_OFFSET); // header, state, processes; blocks as reserved
            file = map(name, real, channel, wanted, true, gateWaitNanos); // extends the file, sparsely
            file.processes.join();
            wanted.writeTo(file.mapping);
            file.mapping.asSlice(0, FileHeader.PAGE).force();
            linked = publish(draft, path);
        } catch (IOException | RuntimeException | Error e) {
            if (file != null) {
                file.arena.close();
            }
            channel.close();
            if (registered) {
                OPEN.remove(real);
            }
            Files.deleteIfExists(draft);
            throw e;
        }
        if (linked) {
            try {
                Files.delete(draft);
            } catch (IOException kept) {
                // the file is sound, and may be open elsewhere already: only a second name of it is left
            }
        }
        try {
            creating.release();
        } catch (IOException stillHeld) {
            // held until the close: only a look for abandoned drafts of this file's name reads it
        }
        return file;
    }

    /**
     * The file key of the new {@code draft} whose creation lock its creator tried to take ({@code creating}, null if
     * refused). An open looking for abandoned drafts ({@link #deleteAbandonedDrafts}) holds that lock from before it
     * deletes a draft until after, so one that took the new draft for abandoned, between its creation and the
     * creator's try, holds the lock still or has removed the name; once the creator holds the lock and finds the name,
     * no open deletes it.
     *
     * @throws Raced if the lock was refused or the name is gone
     */
    private static Object lockedDraftKey(FileLock creating, Path draft) throws IOException {
        if (creating == null) {
            throw new Raced("the draft was taken for an abandoned one and deleted");
        }
        try {
            return Files.readAttributes(draft, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (NoSuchFileException deleted) {
            throw new Raced("the draft was taken for an abandoned one and deleted");
        }
    }

    /**
     * Thrown by {@link #create} when an open looking for abandoned drafts ({@link #deleteAbandonedDrafts}) took the
     * new draft for one, between its creation and its creator's taking of its creation lock, and by {@link #open}
     * when the file's name came to name another file while it opened it: open or create it again.
     */
    private static final class Raced extends IOException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;

        Raced(String what) {
            super(what);
        }
    }

    /**
     * Deletes the drafts of {@code path} ({@link #create}) that creators left when they ended before their draft's
     * name was removed: a sparse file of the map's size, or a second name of the file. A creator holds the creation
     * lock of its draft ({@link ProcessTable#tryLockCreation}) from the draft's creation until it removed that name,
     * so a draft whose lock is free is left. Skipped, as probing them would close a descriptor of a file this process
     * holds locks on (which releases every one of them): this process's own drafts, and a draft that is a name of a
     * file this process has open. A draft that cannot be probed or deleted is left: nothing reads it.
     */
    private static void deleteAbandonedDrafts(Path path) {
        Path dir = path.toAbsolutePath().getParent();
        String prefix = "." + path.getFileName() + ".";
        String self = ProcessHandle.current().pid() + "-";
        try (DirectoryStream<Path> drafts = Files.newDirectoryStream(dir, p -> {
            String n = p.getFileName().toString();
            return n.startsWith(prefix) && n.endsWith(DRAFT_SUFFIX) && !n.startsWith(self, prefix.length())
                    && DRAFT_STAMP.matcher(n.substring(prefix.length(), n.length() - DRAFT_SUFFIX.length())).matches();
        })) {
            for (Path draft : drafts) {
                BasicFileAttributes found = Files.readAttributes(draft, BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
                Object key = found.fileKey();
                if (!found.isRegularFile() || key == null
                        || OPEN.values().stream().anyMatch(o -> key.equals(o.fileKey()))) {
                    continue;
                }
                try (FileChannel channel = FileChannel.open(draft, StandardOpenOption.READ, StandardOpenOption.WRITE);
                        FileLock left = ProcessTable.tryLockCreation(channel)) {
                    if (left != null) {
                        Files.deleteIfExists(draft);
                    }
                } catch (IOException | OverlappingFileLockException probeFailed) {
                    // left: removed by a later open, or by hand
                }
            }
        } catch (IOException cannotList) {
            // drafts left, if any: nothing reads them
        }
    }

    /** The end of a draft's name ({@link #create}): {@code .<file name>.<pid>-<nanos>.creating}. */
    private static final String DRAFT_SUFFIX = ".creating";
    /** What a draft's name holds between the file's name and {@link #DRAFT_SUFFIX}: its creator's pid and a time. */
    private static final Pattern DRAFT_STAMP = Pattern.compile("\\d+--?\\d+");

    /**
     * Gives the draft {@code draft} the name {@code path}: a hard link, which fails if {@code path} exists; returns
     * {@code true} if it made one (the draft's own name is still there), {@code false} if it moved the draft there
     * instead, on a file system without hard links (a move first checks that nothing is at {@code path}, so two
     * processes creating the file at that very moment could both succeed, the later one replacing the other's file).
     *
     * @throws FileAlreadyExistsException if {@code path} exists
     */
    private static boolean publish(Path draft, Path path) throws IOException {
        try {
            Files.createLink(path, draft);
            return true;
        } catch (FileAlreadyExistsException exists) {
            throw exists;
        } catch (UnsupportedOperationException | FileSystemException noHardLinks) {
            Files.move(draft, path);
            return false;
        }
    }

    /**
     * The processes that have the file open now (this one included), for a file opened {@link #openReadOnly}: its
     * records in the {@link ProcessTable} whose locks are held.
     */
    public List<ProcessTable.Process> openIn() {
        try {
            return processes.liveProcesses();
        } catch (IOException e) {
            throw new GroveFileException(name, "cannot test its locks: " + e, e);
        }
    }

    /** The processes recorded as having the file open whose locks are free: they ended without closing it. */
    public List<ProcessTable.Process> endedWithoutClosing() {
        try {
            return processes.endedProcesses();
        } catch (IOException e) {
            throw new GroveFileException(name, "cannot test its locks: " + e, e);
        }
    }

    /**
     * The processes that had the file open and ended without closing it, found when this process opened it (and
     * taken off the {@link ProcessTable}); empty if none.
     */
    public List<ProcessTable.Process> departed() {
        return processes.departed();
    }

    /**
     * The process that had the file open and ended without closing it whose record this process took over when it
     * found none free; {@code null} if none. What it left under the record is this process's to salvage before any
     * of its threads uses the file.
     */
    public ProcessTable.Process inherited() {
        return processes.inherited();
    }

    /**
     * Makes the close give the record this process took over back to the process that ended in it
     * ({@link #inherited}), taken, as this open found it: for an open that could not salvage what that process left.
     */
    public void giveBackInherited() {
        processes.giveBackInherited();
    }

    /**
     * What a thread waiting for another process learns of it from the process table; such a wait lasts at most
     * {@code waitLimitNanos} while the process lives.
     */
    public Pool.ProcessWatch processWatch(long waitLimitNanos) {
        return new Pool.ProcessWatch() {
            @Override
            public long waitLimitNanos() {
                return waitLimitNanos;
            }

            @Override
            public boolean ended(int record) {
                try {
                    return processes.ended(record);
                } catch (IOException e) {
                    throw new GroveFileException(name, "cannot test its locks: " + e, e);
                }
            }

            @Override
            public String describe(int record) {
                return processes.process(record).toString();
            }

            @Override
            public Pool.HeldLock takeOver(int record) {
                try {
                    FileLock lock = processes.takeOver(record);
                    return lock == null ? null : () -> release(lock, "a process record's lock");
                } catch (IOException e) {
                    throw new GroveFileException(name, "cannot take a process record's lock: " + e, e);
                }
            }

            @Override
            public String file() {
                return name;
            }

            @Override
            public int[] endedRecords() {
                return endedWithoutClosing().stream().mapToInt(ProcessTable.Process::slot).toArray();
            }

            @Override
            public void free(int record) {
                processes.free(record);
            }
        };
    }

    /** Whether this process opened the file with no other process having it open. */
    public boolean alone() {
        return processes.alone();
    }

    /**
     * Begins this process's close of the file: no other process opens or closes it until {@link #close}. Returns
     * whether this process is the last to have it open.
     */
    public boolean beginClose() {
        try {
            return processes.beginLeave();
        } catch (IOException e) {
            throw new GroveFileException(name, "cannot change its locks: " + e, e);
        }
    }

    /**
     * Ends the opening: the file's table is ready (recovered, if it needed it), and other processes may open or
     * close the file.
     */
    public void admitOthers() {
        try {
            processes.admitOthers();
        } catch (IOException e) {
            throw new GroveFileException(name, "cannot change its locks: " + e, e);
        }
    }

    /**
     * Records that this process has the file at {@code path}, reserved as {@code real} ({@link #reserve}), open on
     * {@code channel}, if the name's identity is still {@code keyBefore}, read before the channel was opened. Java
     * gives no identity of an open channel's file, so the name's identity is read before and after the channel's
     * opening: if both agree, the channel's file is that one (the open channel keeps its file's key from being
     * reused), unless the name was moved to another file and back meanwhile. (If the name came to name another file
     * that this process has open under another name, closing the channel releases its locks: not handled.)
     *
     * @throws Raced if they do not
     */
    private static void register(Path path, Path real, FileChannel channel, Object keyBefore) throws IOException {
        Object key = Files.readAttributes(path.toRealPath(), BasicFileAttributes.class).fileKey();
        if (!java.util.Objects.equals(key, keyBefore)) { // both null where the file system gives no identity
            throw new Raced("its name came to name another file while it was being opened");
        }
        OPEN.put(real, new Opened(channel, key));
    }

    /**
     * Records that this process has, or is about to open ({@code channel} null), the file whose real path is
     * {@code real} and whose identity is {@code fileKey} ({@link BasicFileAttributes#fileKey}, null where the file
     * system gives none). Done before the process opens a descriptor of the file: closing any descriptor of a file
     * releases every lock the process holds on it, so an open refused after opening one would have released the locks
     * of the map that has the file open (its process record's among them, telling the other processes it ended).
     *
     * @throws IllegalStateException if this process has the file open, or is opening it, under this name or another
     */
    private static void reserve(Path real, String name, FileChannel channel, Object fileKey) {
        synchronized (OPEN) {
            if (opened(real, fileKey) != null) {
                throw new IllegalStateException(name + " is open already in this process ("
                        + (OPEN.containsKey(real) ? "as " + real : "under another name") + ")");
            }
            OPEN.put(real, new Opened(channel, fileKey));
        }
    }

    /** What this process has open as {@code real}, or under another name as {@code fileKey}; null if nothing. */
    private static Opened opened(Path real, Object fileKey) {
        Opened opened = OPEN.get(real);
        if (opened != null || fileKey == null) {
            return opened;
        }
        return OPEN.values().stream().filter(o -> fileKey.equals(o.fileKey())).findFirst().orElse(null);
    }

    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the MappedFile returned, which closes it
    private static MappedFile map(String name, Path real, FileChannel channel, FileHeader header, boolean created,
            long gateWaitNanos) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, header.maxFileSize(), arena);
            return new MappedFile(name, real, channel, true, arena, mapping, header, created, gateWaitNanos);
        } catch (IOException e) {
            arena.close();
            throw new IOException("cannot map " + header.maxFileSize() + " bytes: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    public FileHeader header() {
        return header;
    }

    /** Whether this open created the file. */
    public boolean created() {
        return created;
    }

    /** The pool's state record. */
    public MemorySegment state() {
        return mapping.asSlice(FileHeader.STATE_OFFSET, FileHeader.STATE_SIZE);
    }

    /** The hazard slots of the processes' writes in progress. */
    public MemorySegment hazards() {
        return mapping.asSlice(FileHeader.HAZARDS_OFFSET, FileHeader.HAZARDS_SIZE);
    }

    /** The release stripes of the processes that have the file open ({@link Pool.FileRegion#releases}). */
    public MemorySegment releases() {
        return mapping.asSlice(FileHeader.RELEASES_OFFSET, FileHeader.RELEASES_SIZE);
    }

    /** The counts of the processes that have the file open ({@link Pool.FileRegion#counts}). */
    public MemorySegment counts() {
        return mapping.asSlice(FileHeader.COUNTS_OFFSET, FileHeader.COUNTS_SIZE);
    }

    /** This process's record in the file's process table. */
    public int processRecord() {
        return processes.record();
    }

    /** The pool's block area: granule 0 at its start. */
    public MemorySegment blocks() {
        return mapping.asSlice(FileHeader.BLOCKS_OFFSET, header.blockAreaSize());
    }

    /** The file as named when opened, made absolute. */
    public String name() {
        return name;
    }

    /** Writes every changed page of the mapping to the storage device and waits until it is written. */
    public void force() {
        mapping.force();
    }

    /**
     * Has the storage device take the block area's bytes {@code [offset, offset + length)}, which nothing used
     * yet: writes zeros over them through the channel ({@link #takeSpace}).
     *
     * @throws GroveOutOfMemoryException naming the file if the device has no room for them
     */
    public void takeBlockSpace(long offset, long length) {
        try {
            takeSpace(channel, FileHeader.BLOCKS_OFFSET + offset, length);
        } catch (IOException e) {
            throw new GroveOutOfMemoryException(name + " cannot grow by " + length + " bytes at offset "
                    + (FileHeader.BLOCKS_OFFSET + offset) + " on its device: " + e.getMessage());
        }
    }

    /**
     * Takes the file's growth lock ({@link ProcessTable}), under which a process has the device take new blocks and
     * records them; waits while another process holds it.
     *
     * @throws GroveFileException if the lock cannot be taken
     */
    public Pool.HeldLock lockGrowth() {
        try {
            FileLock lock = processes.lockGrowth();
            return () -> release(lock, "its growth lock");
        } catch (IOException e) {
            throw new GroveFileException(name, "cannot take its growth lock: " + e, e);
        }
    }

    /** Releases {@code lock}, which is {@code what}. */
    private void release(FileLock lock, String what) {
        try {
            lock.release();
        } catch (IOException e) {
            throw new GroveFileException(name, "cannot release " + what + ": " + e, e);
        }
    }

    /**
     * Writes zeros over the file's bytes {@code [position, position + length)}, unused so far, so that the device
     * holds them: a store into a page of the mapping that the device cannot hold raises SIGBUS, which the JVM turns
     * into an {@link InternalError} thrown at an access near it (if not later), with no word of the file or the
     * cause, and leaves whatever the store was part of half done; a write through the channel reports the full
     * device as an {@link IOException} instead, before anything uses the bytes. (A sparse file's holes take no
     * space until written; Java offers no {@code fallocate}.) An interrupt of the calling thread does not close the
     * channel ({@link Uninterruptible}).
     */
    private static void takeSpace(FileChannel channel, long position, long length) throws IOException {
        Uninterruptible.run(() -> {
            long end = position + length;
            for (long at = position; at < end; ) {
                ByteBuffer zeros = ZEROS.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), end - at));
                at += channel.write(zeros, at);
            }
            return null;
        });
    }

    /**
     * Leaves the file's {@link ProcessTable}, unmaps the file and closes it; the mapping's segments throw
     * {@link IllegalStateException} after.
     */
    @Override
    public void close() {
        try {
            if (realPath != null) {
                processes.leave();
            }
            arena.close();
            if (ownsChannel) {
                channel.close();
            }
        } catch (IOException e) {
            throw new GroveFileException(name, "could not be closed: " + e, e);
        } finally {
            if (realPath != null) {
                OPEN.remove(realPath);
            }
        }
    }
}
