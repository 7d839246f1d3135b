package io.grove.testing;

/** Searching files' bytes, for tests that damage a file at a known place. */
public final class Bytes {
    private Bytes() {}

    /** The first index at which {@code needle} occurs in {@code haystack}, or -1. */
    public static int indexOf(byte[] haystack, byte[] needle) {
        return indexOf(haystack, needle, 0);
    }

    /** The first index from {@code from} on at which {@code needle} occurs in {@code haystack}, or -1. */
    public static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
