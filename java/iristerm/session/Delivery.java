package iristerm.session;

/**
 * How much of one input its program took within the call's bound ({@code written} of {@code total}
 * bytes); the rest waits in the session's input queue and goes in as the program reads.
 */
public record Delivery(long written, long total) {
    public static Delivery complete(long total) {
        return new Delivery(total, total);
    }

    public long queued() {
        return total - written;
    }
}
