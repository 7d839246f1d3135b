package io.grove.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.ZeroCopyMap;
import io.grove.serial.Serializers;
import java.util.ConcurrentModificationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A handle of a closed map is invalid, whether the map had its own pool or shared one; its reads throw. */
class HandleAfterCloseTest {
    enum Kind { HASH, SORTED }

    enum PoolKind { OWN, SHARED }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aHandleOfAClosedMapIsInvalidWithEitherPool(Kind kind) {
        for (PoolKind poolKind : PoolKind.values()) {
            MemoryPool shared = poolKind == PoolKind.SHARED ? MemoryPool.builder().build() : null;
            try {
                AutoCloseable map;
                ZeroCopyMap<Long, Long> zc;
                if (kind == Kind.HASH) {
                    GroveHashMap.Builder<Long, Long> b = GroveHashMap.builder(Serializers.longs(), Serializers.longs());
                    GroveHashMap<Long, Long> m = (shared != null ? b.pool(shared) : b).build();
                    map = m;
                    zc = m.zc();
                } else {
                    GroveSortedMap.Builder<Long, Long> b =
                            GroveSortedMap.builder(Serializers.longs(), Serializers.longs());
                    GroveSortedMap<Long, Long> m = (shared != null ? b.pool(shared) : b).build();
                    map = m;
                    zc = m.zc();
                }
                zc.put(1L, 42L);
                Handle handle = zc.get(1L);
                assertTrue(handle.isValid());
                assertEquals(42L, Serializers.longs().read(handle));
                map.close();
                String what = kind + " map, " + poolKind + " pool";
                assertFalse(handle.isValid(), what);
                Class<? extends RuntimeException> expected = poolKind == PoolKind.OWN
                        ? IllegalStateException.class : ConcurrentModificationException.class;
                assertThrows(expected, () -> handle.getLong(0), what);
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                if (shared != null) {
                    shared.close();
                }
            }
        }
    }
}
