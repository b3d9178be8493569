package iristerm.ui;

import java.util.concurrent.TimeUnit;

/** At most {@code burst} events at once, then one more every {@code intervalMillis} (a token bucket). */
final class RateLimit {
    private final int burst;
    private final long intervalNanos;
    private long tokens;
    private long refilledAt = System.nanoTime();

    RateLimit(int burst, long intervalMillis) {
        this.burst = burst;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.tokens = burst;
    }

    /** Takes one event's token: 0 when allowed, else how many seconds (at least 1) until one is free. */
    synchronized long take() {
        long now = System.nanoTime();
        long earned = (now - refilledAt) / intervalNanos;
        if (earned > 0) {
            tokens = Math.min(burst, tokens + earned);
            refilledAt = tokens == burst ? now : refilledAt + earned * intervalNanos;
        }
        if (tokens > 0) {
            tokens--;
            return 0;
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toSeconds(refilledAt + intervalNanos - now + 999_999_999L));
    }
}
