package io.grove.internal.sorted;

import io.grove.internal.view.SliceHandle;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One open snapshot of an ordered map: its time, which selects the version of each value its reads see
 * ({@link Values#versionAt}), and its slot in the map's {@link SnapshotRegistry}, which keeps those versions from
 * being freed until {@link #close}. The views of a snapshot share this object; it holds no reference to them, so it
 * can be the action a {@link java.lang.ref.Cleaner} runs for a snapshot dropped without being closed. It is the
 * {@link SliceHandle.Lease} of its zero-copy handles: the versions it reads are neither written nor freed while it is
 * open.
 */
final class Snapshot implements Runnable, SliceHandle.Lease {
    final long time;
    private final int slot;
    private final ChunkMap<?, ?> map;
    private final AtomicBoolean closed = new AtomicBoolean();

    Snapshot(ChunkMap<?, ?> map, int slot, long time) {
        this.map = map;
        this.slot = slot;
        this.time = time;
    }

    @Override
    public boolean holds() {
        return !closed.get() && map.isOpen();
    }

    /** Throws {@link IllegalStateException} if the snapshot, or its map, was closed. */
    @Override
    public void check() {
        if (closed.get()) {
            throw new IllegalStateException("the snapshot is closed");
        }
        map.checkOpen();
    }

    /** Closes the snapshot (idempotent): its versions may be freed from now on. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            map.closeSnapshot(slot);
        }
    }

    /** The cleaning action: closes the snapshot. */
    @Override
    public void run() {
        close();
    }
}
