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

    /** Nova's deletePrivate: no other thread can race, so a plain store. Returns the capacity in granules. */
    static long deletePrivate(Blocks blocks, long ref) {
        long granule = Reference.granule(ref);
        MemorySegment block = blocks.block(granule);
        long header = blocks.offsetInBlock(granule);
        long state = SliceHeader.statePlain(block, header);
        if (!Reference.sameIncarnation(state, ref)) {
            throw new IllegalStateException("deletePrivate of a slice that is not live: " + Reference.toString(ref));
        }
        SliceHeader.setStatePlain(block, header, SliceHeader.asDeleted(state));
        return SliceHeader.capacityGranules(block, header);
    }

    /** Writes the header of a free slice (deleted, so every reference to the place fails) of {@code capacity}. */
    static void initializeFree(Blocks blocks, long granule, long capacity) {
        SliceHeader.initialize(blocks.block(granule), blocks.offsetInBlock(granule), capacity,
                SliceHeader.asDeleted(SliceHeader.state(1, 0)));
    }
}
