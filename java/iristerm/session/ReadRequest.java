package iristerm.session;

import java.nio.file.Path;

/**
 * One read of a session's output. {@code mark}: with an atomic send-and-read, the log end just
 * before the input was written, so that a prompt already on screen does not count as the answer;
 * {@code sent} says the read follows such input (then a terminal's echo of it is not the answer either).
 * {@code seek}: where the reader's cursor is put before reading (back, to the part an oversized answer
 * left out, or forward), or -1 to read on from where it is.
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
        long mark,
        boolean sent,
        long seek) {

    public static final String DEFAULT_READER = "default";

    /** A read that follows no input of its own, from where its reader is. */
    public ReadRequest(String reader, long waitMs, Until until, int maxBytes, boolean force, boolean stripAnsi,
                       boolean all, Path toFile, long mark) {
        this(reader, waitMs, until, maxBytes, force, stripAnsi, all, toFile, mark, false, -1);
    }

    /**
     * This read, following input written when the log ended at {@code mark}, waiting at most
     * {@code waitLeftMs} (what writing the input left of the call's wait).
     */
    public ReadRequest afterInput(long mark, long waitLeftMs) {
        return new ReadRequest(reader, Math.min(waitMs, waitLeftMs), until, maxBytes, force, stripAnsi, all, toFile,
                mark, true, seek);
    }
}
