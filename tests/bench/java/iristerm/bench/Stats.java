package iristerm.bench;

import java.util.Arrays;
import java.util.Collection;

/** Latency percentiles (nearest rank) of a set of nanosecond samples, reported in milliseconds. */
record Stats(int count, double medianMs, double p90Ms, double p99Ms, double maxMs) {

    static Stats of(long[] nanos) {
        if (nanos.length == 0) {
            return new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        long[] s = nanos.clone();
        Arrays.sort(s);
        return new Stats(s.length, ms(rank(s, 0.50)), ms(rank(s, 0.90)), ms(rank(s, 0.99)), ms(s[s.length - 1]));
    }

    static Stats of(Collection<Long> nanos) {
        return of(nanos.stream().mapToLong(Long::longValue).toArray());
    }

    /** The median (nearest rank) of {@code values}. */
    static long median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return rank(s, 0.50);
    }

    private static long rank(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }
}
