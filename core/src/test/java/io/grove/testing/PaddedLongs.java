package io.grove.testing;

import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.util.Objects;
import java.util.function.LongPredicate;

/**
 * {@code Long} values of two serialized sizes, for tests of maps built with
 * {@link io.grove.GroveHashMap.Builder#inlineEntries}: a value that {@code padded} selects takes
 * {@code 8 + padBytes} bytes, so that it does not fit a cell made for 8-byte values, the others 8 bytes. The first 8
 * bytes are always those of {@link Serializers#longs()} (so zero-copy code that reads or writes the value's word 0
 * works on both sizes); the padding is a fixed pattern, which {@link #read} checks, so that a value whose bytes were
 * moved in part (a cell or slice copied short, or the bytes of another entry) is not read as a number.
 */
public final class PaddedLongs implements Serializer<Long> {
    /** The padding's bytes: each of its words. */
    public static final long PAD_WORD = 0x5A5A_A5A5_5A5A_A5A5L;

    private final int padBytes;
    private final LongPredicate padded;

    /** Values that {@code padded} selects take {@code 8 + padBytes} bytes (a positive multiple of 8). */
    public PaddedLongs(int padBytes, LongPredicate padded) {
        if (padBytes <= 0 || padBytes % Long.BYTES != 0) {
            throw new IllegalArgumentException("padBytes must be a positive multiple of 8, was " + padBytes);
        }
        this.padBytes = padBytes;
        this.padded = Objects.requireNonNull(padded, "padded");
    }

    /** Whether {@code value} serializes to more than 8 bytes. */
    public boolean isPadded(long value) {
        return padded.test(value);
    }

    @Override
    public int size(Long value) {
        return padded.test(value) ? Long.BYTES + padBytes : Long.BYTES;
    }

    @Override
    public void write(Long value, WriteView target) {
        target.putLong(0, value ^ Long.MIN_VALUE);
        for (int at = Long.BYTES; at < target.size(); at += Long.BYTES) {
            target.putLong(at, PAD_WORD);
        }
    }

    @Override
    public Long read(ReadView source) {
        int size = source.size();
        if (size != Long.BYTES && size != Long.BYTES + padBytes) {
            throw new IllegalArgumentException("a padded long has 8 or " + (Long.BYTES + padBytes) + " bytes, not "
                    + size);
        }
        for (int at = Long.BYTES; at < size; at += Long.BYTES) {
            if (source.getLong(at) != PAD_WORD) {
                throw new IllegalArgumentException("padding word at " + at + " is " + Long.toHexString(
                        source.getLong(at)));
            }
        }
        return source.getLong(0) ^ Long.MIN_VALUE;
    }

    @Override
    public String toString() {
        return "PaddedLongs(" + padBytes + ")";
    }
}
