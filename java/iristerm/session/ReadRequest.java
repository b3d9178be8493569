package iristerm.session;

import java.nio.file.Path;

/**
 * One read of a session's output. {@code mark}: with an atomic send-and-read, the log end just
 * before the input was written, so that a prompt already on screen does not count as the answer.
 */
public record ReadRequest(
        String reader,
        long waitMs,
        Until until,
        int maxBytes,
        boolean force,
        boolean stripAnsi,
        boolean all,
        Path toFile,
        long mark) {

    public static final String DEFAULT_READER = "default";
}
