package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;

/** Header state transitions both allocators share. */
final class SliceStates {
    private SliceStates() {}

    /**
     * Nova's DELETE (Algorithm 2, lines 32-40) on the header: sets the deleted bit with a CAS if the header is
     * still the incarnation {@code ref} names. Returns the slice's capacity in granules if this call deleted it,
     * or -1 if it was deleted already or {@code ref} is stale. The CAS is the linearization point of a delete.
     */
    static long tryDelete(Blocks blocks, long ref) {
        if (Reference.isDeleted(ref) || ref == Reference.NULL) {
            return -1;
        }
        long granule = Reference.granule(ref);
        MemorySegment block = blocks.block(granule);
        long header = blocks.offsetInBlock(granule);
        while (true) {
            long state = SliceHeader.stateVolatile(block, header);
            if (!Reference.sameIncarnation(state, ref) || SliceHeader.magic(block, header) != SliceHeader.MAGIC) {
                return -1;
            }
            if (SliceHeader.casState(block, header, state, SliceHeader.asDeleted(state))) {
                return SliceHeader.capacityGranules(block, header);
            }
        }
    }

    /**
     * Frees the slice {@code ref} names, deleted before ({@link #tryDelete}), for its free list: sets the freed bit
     * with a CAS if the header is still that incarnation, deleted and not freed. Returns the capacity in granules if
     * this call freed it, or -1 if it was freed already (a reference a file's release area still names after its slice
     * was freed, or names twice: the later reclaim finds it freed, or reused under a later version). The CAS makes
     * freeing each deletion happen once.
     */
    static long tryFree(Blocks blocks, long ref) {
        long granule = Reference.granule(ref);
        MemorySegment block = blocks.block(granule);
        long header = blocks.offsetInBlock(granule);
        long state = SliceHeader.stateVolatile(block, header);
        if (!awaitsFree(block, header, state, ref)
                || !SliceHeader.casState(block, header, state, SliceHeader.asFreed(state))) {
            return -1;
        }
        return SliceHeader.capacityGranules(block, header);
    }

    /**
     * Whether the header at {@code header}, whose state word is {@code state}, is the incarnation {@code ref} names,
     * deleted and not freed yet: a slice a reclaim may still free through {@code ref}.
     */
    static boolean awaitsFree(MemorySegment block, long header, long state, long ref) {
        return Reference.sameIncarnation(state, Reference.asDeleted(ref)) && !SliceHeader.isFreed(state)
                && SliceHeader.magic(block, header) == SliceHeader.MAGIC;
    }

    /**
     * Nova's deletePrivate: no other thread can race, so a plain store (the slice goes straight to its free list:
     * deleted and freed). Returns the capacity in granules.
     */
    static long deletePrivate(Blocks blocks, long ref) {
        long granule = Reference.granule(ref);
        MemorySegment block = blocks.block(granule);
        long header = blocks.offsetInBlock(granule);
        long state = SliceHeader.statePlain(block, header);
        if (!Reference.sameIncarnation(state, ref)) {
            throw new IllegalStateException("deletePrivate of a slice that is not live: " + Reference.toString(ref));
        }
        SliceHeader.setStatePlain(block, header, SliceHeader.asFreed(state));
        return SliceHeader.capacityGranules(block, header);
    }

    /**
     * Writes the header of a free slice (deleted, so every reference to the place fails, and freed) of
     * {@code capacity}.
     */
    static void initializeFree(Blocks blocks, long granule, long capacity) {
        SliceHeader.initialize(blocks.block(granule), blocks.offsetInBlock(granule), capacity,
                SliceHeader.asFreed(SliceHeader.state(1, 0)));
    }
}
