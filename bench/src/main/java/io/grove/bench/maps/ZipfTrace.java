package io.grove.bench.maps;

import java.util.SplittableRandom;

/**
 * A trace of ids in {@code [0, n)} drawn from a Zipf distribution with exponent {@code s}: id {@code i} (rank
 * {@code i + 1}) has probability proportional to {@code 1 / (i + 1)^s}. Sampling inverts the cumulative
 * distribution, tabulated once, by binary search; the same seed gives the same trace.
 */
public final class ZipfTrace {
    private ZipfTrace() {}

    public static int[] generate(int n, double s, int length, long seed) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += 1.0 / Math.pow(i + 1, s);
            cdf[i] = sum;
        }
        SplittableRandom random = new SplittableRandom(seed);
        int[] trace = new int[length];
        for (int k = 0; k < length; k++) {
            double u = random.nextDouble() * sum;
            int lo = 0;
            int hi = n - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cdf[mid] < u) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            trace[k] = lo;
        }
        return trace;
    }
}
