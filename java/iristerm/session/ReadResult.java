package iristerm.session;

/**
 * What a read delivered. {@code bytes} counts raw log bytes consumed (the cursor moved by it);
 * {@code available} is what is still pending after this read; {@code file} is set for {@code to_file}.
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
        String hint) {

    /** This result with {@code first} told before its own hint. */
    public ReadResult withHint(String first) {
        return new ReadResult(data, bytes, cursor, available, reason, state, exitCode, signal, file,
                hint == null ? first : first + "\n" + hint);
    }
}
