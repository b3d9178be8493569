package iristerm.session;

/**
 * What a read delivered. {@code bytes} counts raw log bytes consumed (the cursor moved by it);
 * {@code available} is what is still pending after this read; {@code file} is set for {@code to_file};
 * {@code leftOut} for an oversized answer, which holds only the first and last part of what it consumed.
 */
public record ReadResult(
        String data,
        long bytes,
        long cursor,
        long available,
        ReadReason reason,
        SessionState state,
        Integer exitCode,
        String signal,
        String file,
        String hint,
        LeftOut leftOut) {

    /** The output between log offsets {@code from} and {@code to}, consumed but not shown. */
    public record LeftOut(long from, long to) {
        public long bytes() {
            return to - from;
        }
    }

    /** This result with {@code first} told before its own hint. */
    public ReadResult withHint(String first) {
        return new ReadResult(data, bytes, cursor, available, reason, state, exitCode, signal, file,
                hint == null ? first : first + "\n" + hint, leftOut);
    }
}
