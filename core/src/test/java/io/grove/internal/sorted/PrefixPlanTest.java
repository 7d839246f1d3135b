package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The prefixes a chunk gathers from the bytes where its keys differ ({@link PrefixPlan}): they must never
 * contradict the keys' order (a chunk trusts unequal prefixes), for keys that fit the plan's template and for keys
 * that leave it, are shorter or longer; and for composite keys of small ints they must separate the keys the
 * 8 bytes after the shared ones do not.
 */
class PrefixPlanTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void gatheredPrefixesFollowTheKeysOrderForKeysOnAndOffTheTemplate() {
        Random random = new Random(7);
        int gathered = 0;
        for (int round = 0; round < 400; round++) {
            int shared = random.nextInt(4);
            byte[] stem = new byte[shared];
            random.nextBytes(stem);
            List<byte[]> family = compositeKeys(random, stem, 64);
            PrefixPlan plan = planOf(shared, family);
            if (plan.isContiguous()) {
                continue;
            }
            gathered++;
            List<byte[]> keys = new ArrayList<>(family);
            for (int i = 0; i < 600; i++) {
                keys.add(perturbed(random, family.get(random.nextInt(family.size())), shared));
            }
            keys.sort(Arrays::compareUnsigned);
            for (int i = 1; i < keys.size(); i++) {
                byte[] before = keys.get(i - 1);
                byte[] key = keys.get(i);
                assertTrue(Long.compareUnsigned(plan.gather(MemorySegment.ofArray(before), 0, before.length),
                        plan.gather(MemorySegment.ofArray(key), 0, key.length)) <= 0,
                        () -> HEX.formatHex(before) + " has a larger prefix than " + HEX.formatHex(key));
            }
        }
        assertTrue(gathered > 200, "rounds whose keys called for a gathered plan: " + gathered);
    }

    @Test
    void compositeKeysOfSmallIntsGetAPrefixPerKey() {
        // a rollup index's keys in one chunk: the hour and the first dimensions shared, small ints after them
        List<byte[]> keys = new ArrayList<>();
        for (int d3 = 0; d3 < 2; d3++) {
            for (int d4 = 0; d4 < 16; d4++) {
                for (int d5 = 0; d5 < 32; d5++) {
                    keys.add(ByteBuffer.allocate(28).putLong(17).putInt(1).putInt(3).putInt(d3).putInt(d4)
                            .putInt(d5).array());
                }
            }
        }
        int shared = 19; // the first chunk key's and the next chunk's first key's common bytes
        List<byte[]> sample = new ArrayList<>();
        for (int i = 0; i < PrefixPlan.SAMPLES; i++) {
            sample.add(keys.get((keys.size() - 1) * i / (PrefixPlan.SAMPLES - 1)));
        }
        PrefixPlan plan = planOf(shared, sample);
        assertFalse(plan.isContiguous(), "the differing bytes 19, 23 and 27 are more than 8 bytes apart");
        Set<Long> prefixes = new HashSet<>();
        for (byte[] key : keys) {
            prefixes.add(plan.gather(MemorySegment.ofArray(key), 0, key.length));
        }
        assertEquals(keys.size(), prefixes.size(), "keys with equal gathered prefixes");
    }

    @Test
    void keysThatDifferInTheirFirstEightBytesKeepTheDefaultPlan() {
        Random random = new Random(3);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < PrefixPlan.SAMPLES; i++) {
            byte[] key = new byte[20];
            random.nextBytes(key);
            keys.add(key);
        }
        assertEquals(PrefixPlan.contiguous(0), planOf(0, keys));
        assertTrue(planOf(0, List.of(new byte[12], new byte[12])).isContiguous(), "keys that never differ");
    }

    /**
     * Keys after {@code stem}: a few fields of 1-8 bytes each holding small numbers (mostly zero high bytes), so
     * that the bytes that differ lie apart.
     */
    private static List<byte[]> compositeKeys(Random random, byte[] stem, int count) {
        int fields = 2 + random.nextInt(5);
        int[] widths = new int[fields];
        int[] ranges = new int[fields];
        for (int f = 0; f < fields; f++) {
            widths[f] = 1 + random.nextInt(8);
            ranges[f] = 1 + random.nextInt(300);
        }
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ByteBuffer key = ByteBuffer.allocate(stem.length + Arrays.stream(widths).sum());
            key.put(stem);
            for (int f = 0; f < fields; f++) {
                long value = random.nextInt(ranges[f]);
                for (int b = widths[f] - 1; b >= 0; b--) {
                    key.put((byte) (value >>> (8 * b)));
                }
            }
            keys.add(key.array());
        }
        return keys;
    }

    /**
     * {@code key} with its stem kept and one of: a byte changed (often to 0x80 or more), two bytes changed (keys
     * that leave the template at one position and differ after it), cut short, extended.
     */
    private static byte[] perturbed(Random random, byte[] key, int shared) {
        int at = shared + random.nextInt(key.length - shared);
        return switch (random.nextInt(5)) {
            case 0 -> Arrays.copyOf(key, at);
            case 1 -> {
                byte[] longer = Arrays.copyOf(key, key.length + 1 + random.nextInt(12));
                longer[key.length + random.nextInt(longer.length - key.length)] = (byte) random.nextInt(256);
                yield longer;
            }
            case 2 -> {
                byte[] changed = key.clone();
                changed[at] = (byte) random.nextInt(256);
                changed[at + random.nextInt(key.length - at)] = (byte) random.nextInt(256);
                yield changed;
            }
            default -> {
                byte[] changed = key.clone();
                changed[at] = (byte) (random.nextBoolean() ? random.nextInt(256) : changed[at] + 1);
                yield changed;
            }
        };
    }

    /** The plan a rebalance chooses for keys sharing {@code shared} bytes from this sample ({@link Keys#planFor}). */
    private static PrefixPlan planOf(int shared, List<byte[]> sample) {
        long[][] words = new long[sample.size()][];
        for (int i = 0; i < sample.size(); i++) {
            words[i] = PrefixPlan.sampleOf(MemorySegment.ofArray(sample.get(i)), 0, sample.get(i).length, shared);
        }
        return PrefixPlan.choose(shared, words, sample.size());
    }
}
