package io.grove.internal.file;

import io.grove.GroveFileException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes that have a Grove file open: a table of records in the file, and the operating system's byte-range
 * locks that tell a live process from one that ended; the only place that computes offsets inside the table and
 * the positions of those locks.
 *
 * <pre>
 * table (at {@link FileHeader#PROCESSES_OFFSET}, {@link #SLOTS} records of 64 bytes):
 *   record i, byte  0  state (long: 0 free, 1 taken by a process that has the file open)
 *                   8  process id (long)
 *                  16  when that process started (long: milliseconds since the epoch, 0 unknown)
 *                  24  when it opened the file (long: milliseconds since the epoch)
 *                  32  zero (room for what later formats keep per process)
 *   in the platform's byte order, as the pool's state record
 * locks (FileChannel byte-range locks of the file, advisory: the mapping ignores them):
 *   byte 0                  the gate: exclusive while a process opens or closes the file
 *   byte 1                  the users' lock: shared by every process that has the file open; exclusive only
 *                           under the gate, by an opener that found no other process
 *   byte 2                  the growth lock: exclusive while a process has the device take new blocks
 *   byte 3                  the creation lock: exclusive while a process makes the file under a draft name,
 *                           from the draft's creation until the draft's name is removed ({@code MappedFile})
 *   byte 64 + i             record i's lock: exclusive by the process in record i while it has the file open
 * </pre>
 *
 * <p>Implementation notes. The operating system releases a process's locks when the process ends, however it ends
 * (also by {@code SIGKILL}), and a process id alone proves nothing (ids are reused, and a zombie process still
 * has one): so a record whose state says taken and whose lock is free belongs to a process that ended without
 * closing the file. An opener takes the gate (waiting at most {@link #gateWaitNanos}), then tries the users'
 * lock exclusively: if it gets it, no other process has the file open, every taken record is left by a process
 * that ended ({@link #departed}) and is freed, and the caller may recover the file; otherwise other processes
 * have it open. It then takes a free record and its lock, writes the record (state last), and, once the file is
 * ready for others, changes its users' lock to shared and lets go of the gate ({@link #admitOthers}). With no record
 * free, it takes over the record of a process that ended without closing the file ({@link #inherited}): its lock
 * is free, and the opener must salvage what that process left in the file under the record (segment locks, hazard
 * slots, release stripes) before any of its threads uses the record as its own; else processes that end faster than
 * others open the file would fill the table for good, as a process must have a record before it can salvage the
 * ended ones. A close takes the gate, frees the record and lets go of its record's lock, of the users' lock and
 * last of the gate, so that the next opener finds the users' lock as the close left it.
 *
 * <p>The locks are POSIX record locks (Linux's {@code fcntl}, which the JDK uses): they belong to the process, and
 * closing <em>any</em> descriptor of the file in the process releases all of them. So this process must never open
 * and close the file otherwise while it has it open ({@link MappedFile#openReadOnly} reuses the open file's
 * channel); a lock released so would make the process look ended to the others.
 */
public final class ProcessTable {
    /** The records in the table: at most this many processes have a file open at once. */
    static final int SLOTS = 256;
    /** The bytes of the table. */
    static final long SIZE = (long) SLOTS * 64;

    private static final long GATE = 0;
    private static final long USERS = 1;
    private static final long GROWTH = 2;
    /** The creation lock's byte ({@link #tryLockCreation}). */
    private static final long CREATION = 3;
    private static final long FIRST_RECORD_LOCK = 64;
    private static final long RECORD = 64;
    private static final long FREE = 0;
    private static final long TAKEN = 1;
    private static final long STATE = 0;
    private static final long PID = 8;
    private static final long STARTED = 16;
    private static final long OPENED = 24;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    /** A process named in the table: its record, id, start and when it opened the file (0 where unknown). */
    public record Process(int slot, long pid, long startedMillis, long openedMillis) {
        @Override
        public String toString() {
            return "process " + pid + " (" + (startedMillis == 0 ? "" : "started " + Instant.ofEpochMilli(startedMillis)
                    + ", ") + "opened the file at " + Instant.ofEpochMilli(openedMillis) + ")";
        }
    }

    private final String name;
    private final FileChannel channel;
    private final MemorySegment table;
    /**
     * How long an opener or a closer waits for the gate, which others hold only while they open (a recovery of the
     * whole file included) or close: the map's wait for another process ({@code otherProcessWait}).
     */
    private final long gateWaitNanos;
    private FileLock gate;
    private FileLock users;
    private FileLock recordLock;
    private int slot = -1;
    /** Whether {@link #join} found no other process with the file open. */
    private boolean alone;
    /** Whether the gate could not be had in time for the close ({@link #beginLeave}): {@link #leave} goes on. */
    private boolean gateStuck;
    private List<Process> departed = List.of();
    /** The process that ended without closing the file whose record {@link #join} took over, else {@code null}. */
    private Process inherited;
    /** Whether {@link #leave} gives the record back to {@link #inherited} ({@link #giveBackInherited}). */
    private boolean givingBack;

    /**
     * The table of the file {@code name}, whose channel is {@code channel} and whose table bytes are {@code table}
     * (read-only for a tool), where an opener or a closer waits at most {@code gateWaitNanos} for the gate.
     */
    ProcessTable(String name, FileChannel channel, MemorySegment table, long gateWaitNanos) {
        this.name = name;
        this.channel = channel;
        this.table = table;
        this.gateWaitNanos = gateWaitNanos;
    }

    /**
     * Joins the processes that have the file open: takes the gate, finds whether another process has the file open
     * ({@link #alone}) and, if none does, frees the records of processes that ended without closing it
     * ({@link #departed}), then takes a record: a free one, else one of a process that ended without closing the file
     * ({@link #inherited}). Holds the gate until {@link #admitOthers} or {@link #leave}.
     *
     * @throws GroveFileException if the gate stays taken, or if every record is taken by a process that has the
     *     file open or by one that ended and that another process is salvaging now
     */
    void join() throws IOException {
        takeGate("opening");
        users = channel.tryLock(USERS, 1, false);
        alone = users != null;
        if (alone) {
            List<Process> ended = new ArrayList<>();
            for (int i = 0; i < SLOTS; i++) {
                if (state(i) == TAKEN) {
                    ended.add(process(i));
                    table.set(LONG, i * RECORD + STATE, FREE);
                }
            }
            departed = List.copyOf(ended);
        } else {
            users = Uninterruptible.run(() -> channel.lock(USERS, 1, true)); // held shared by others: granted at once
        }
        for (int i = 0; i < SLOTS && slot < 0; i++) {
            FileLock lock = state(i) == FREE ? channel.tryLock(FIRST_RECORD_LOCK + i, 1, false) : null;
            if (lock != null) {
                recordLock = lock;
                slot = i;
            }
        }
        for (int i = 0; i < SLOTS && slot < 0; i++) {
            FileLock lock = takeOver(i);
            if (lock != null) {
                recordLock = lock;
                slot = i;
                inherited = process(i);
            }
        }
        if (slot < 0) {
            releaseUsersThenGate();
            throw new GroveFileException(name, "has " + SLOTS + " processes in its table already, each of which has"
                    + " it open or ended without closing it and is being salvaged by another process");
        }
        ProcessHandle self = ProcessHandle.current();
        identify(slot, self.pid(), self.info().startInstant().map(Instant::toEpochMilli).orElse(0L),
                System.currentTimeMillis());
        table.set(LONG, slot * RECORD + STATE, TAKEN);
    }

    private void identify(int i, long pid, long startedMillis, long openedMillis) {
        long base = i * RECORD;
        table.set(LONG, base + PID, pid);
        table.set(LONG, base + STARTED, startedMillis);
        table.set(LONG, base + OPENED, openedMillis);
    }

    /**
     * The process that had the file open and ended without closing it whose record {@link #join} took over, for want
     * of a free one; {@code null} if none. Its leftovers are this process's to salvage, before any use.
     */
    Process inherited() {
        return inherited;
    }

    /** Whether {@link #join} found no other process with the file open. */
    boolean alone() {
        return alone;
    }

    /** This process's record, taken by {@link #join}. */
    int record() {
        return slot;
    }

    /**
     * The processes that had the file open and ended without closing it, found by {@link #join}, in the order of
     * their records; empty if none.
     */
    List<Process> departed() {
        return departed;
    }

    /**
     * Ends the opening: the file is ready for other processes. Changes the users' lock to shared if this process
     * holds it alone, and lets go of the gate.
     */
    void admitOthers() throws IOException {
        if (!users.isShared()) {
            users.release();
            users = Uninterruptible.run(() -> channel.lock(USERS, 1, true)); // under the gate: granted at once
        }
        gate.release();
        gate = null;
    }

    /**
     * Begins this process's close: takes the gate (so that no process opens or closes the file until {@link #leave})
     * and returns whether this process is the last to have the file open, holding the users' lock exclusively if so.
     * If the gate cannot be had in time, returns {@code false}: the file is then left as open, and the next process
     * to open it alone recovers it.
     */
    boolean beginLeave() throws IOException {
        if (gate == null) {
            try {
                takeGate("closing");
            } catch (GroveFileException stuck) {
                gateStuck = true;
                return false;
            }
        }
        if (!users.isShared()) {
            return true; // never admitted others
        }
        users.release();
        users = channel.tryLock(USERS, 1, false);
        return users != null;
    }

    /**
     * Makes {@link #leave} give the record that {@link #join} took over back to the process that ended in it
     * ({@link #inherited}) instead of freeing it: for an open that could not salvage what that process left (a
     * segment damaged beyond what a kill leaves, still locked under the record). The table then shows what it showed
     * before the open, a record taken by a process that ended, which the other processes treat as such.
     */
    void giveBackInherited() {
        givingBack = inherited != null;
    }

    /**
     * Leaves the table: frees this process's record, or gives it back ({@link #giveBackInherited}), under the gate if
     * it can be had in time, and lets go of its lock, then of the users' lock and only then of the gate
     * ({@link #releaseUsersThenGate}).
     */
    void leave() throws IOException {
        if (slot < 0) {
            return;
        }
        if (gate == null && !gateStuck) {
            try {
                takeGate("closing");
            } catch (GroveFileException stuck) {
                // another process holds the gate far too long: the record is ours, free it anyway
            }
        }
        if (givingBack) {
            identify(slot, inherited.pid(), inherited.startedMillis(), inherited.openedMillis());
        } else {
            table.set(LONG, slot * RECORD + STATE, FREE);
        }
        recordLock.release();
        slot = -1;
        releaseUsersThenGate();
    }

    /**
     * Lets go of the users' lock, then of the gate: an opener that takes the gate next must find the users' lock as
     * this process leaves it. (The channel's close would release both, in an order of its own: an opener that took
     * the gate before the last closer's users' lock was released took itself for one of several processes, and the
     * pool state, marked closed, for damaged.)
     */
    private void releaseUsersThenGate() throws IOException {
        if (users != null) {
            users.release();
            users = null;
        }
        if (gate != null) {
            gate.release();
            gate = null;
        }
    }

    private void takeGate(String doing) throws IOException {
        long deadline = System.nanoTime() + gateWaitNanos;
        while ((gate = channel.tryLock(GATE, 1, false)) == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new GroveFileException(name, "could not be taken for " + doing + ": another process has been"
                        + " opening or closing it for " + gateWaitNanos / 1_000_000 + " ms (a recovery of a large"
                        + " file, or stopped while doing so?)");
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new GroveFileException(name, "was not opened: interrupted while waiting for another process"
                        + " to finish opening or closing it");
            }
        }
    }

    /**
     * Tries the creation lock of the file (or draft) open on {@code channel}: held by its creator from the moment the
     * draft exists until its draft name is removed, so a draft whose lock is free was left by a creator that ended.
     * Returns {@code null} if another process holds it.
     */
    static FileLock tryLockCreation(FileChannel channel) throws IOException {
        return channel.tryLock(CREATION, 1, false);
    }

    /** Takes the growth lock, waiting while another process holds it; an interrupt does not end the wait. */
    FileLock lockGrowth() throws IOException {
        return Uninterruptible.run(() -> channel.lock(GROWTH, 1, false));
    }

    /**
     * The processes whose records are taken and whose locks are held (this one's included), from a table that may
     * change meanwhile; works on a read-only channel.
     */
    List<Process> liveProcesses() throws IOException {
        return taken(true);
    }

    /** The records taken whose locks are free: processes that ended without closing the file. */
    List<Process> endedProcesses() throws IOException {
        return taken(false);
    }

    private List<Process> taken(boolean live) throws IOException {
        List<Process> found = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            if (state(i) == TAKEN && held(FIRST_RECORD_LOCK + i) == live) {
                found.add(process(i));
            }
        }
        return found;
    }

    /**
     * Whether the process in record {@code i} ended without closing the file: the record says taken and its lock is
     * free (a record freed since says the process closed the file: it did not end holding anything).
     */
    boolean ended(int i) throws IOException {
        return state(i) == TAKEN && !held(FIRST_RECORD_LOCK + i);
    }

    /**
     * Takes the lock of record {@code i}, whose process ended without closing the file ({@link #ended}), so that this
     * thread alone repairs what that process left; {@code null} if another thread, of this process or another, holds
     * it (repairing) or the record is free. While held, the record's process looks alive to every other thread; the
     * thread frees the record ({@link #free}) once it has salvaged what the process left.
     */
    FileLock takeOver(int i) throws IOException {
        if (state(i) != TAKEN) {
            return null;
        }
        FileLock lock;
        try {
            lock = channel.tryLock(FIRST_RECORD_LOCK + i, 1, false);
        } catch (OverlappingFileLockException repairedHere) {
            return null;
        }
        if (lock != null && state(i) != TAKEN) { // freed by a thread that salvaged it just before
            lock.release();
            return null;
        }
        return lock;
    }

    /**
     * Frees record {@code i}, which the calling thread took over ({@link #takeOver}) and whose process's leftovers
     * were salvaged, so that an opener may take it: in a file that stays open while processes come and go, records
     * of processes that ended would otherwise fill the table.
     */
    void free(int i) {
        table.set(LONG, i * RECORD + STATE, FREE);
    }

    /** Whether a process holds the lock on byte {@code position}: tries it shared and lets go at once. */
    private boolean held(long position) throws IOException {
        try (FileLock probe = channel.tryLock(position, 1, true)) {
            return probe == null;
        } catch (OverlappingFileLockException heldHere) {
            return true;
        }
    }

    private long state(int i) {
        return table.get(LONG, i * RECORD + STATE);
    }

    Process process(int i) {
        long base = i * RECORD;
        return new Process(i, table.get(LONG, base + PID), table.get(LONG, base + STARTED),
                table.get(LONG, base + OPENED));
    }
}
