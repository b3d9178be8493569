package iristerm.http;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A blocking response body (the browser view's streams) whose bytes count against the server's
 * {@link HeldBytes} budget from when they are written until they are flushed to the socket: a client
 * that stops reading holds them for as long as its write is blocked. Each write is flushed at once.
 */
public final class HeldOutput extends FilterOutputStream {
    private final HeldBytes.Connection held;

    /** @param held the connection's account, made with a drop that cuts the connection (ending a blocked write) */
    public HeldOutput(OutputStream out, HeldBytes.Connection held) {
        super(out);
        this.held = held;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (!held.queued(len)) {
            throw new IOException("dropped: this client holds the most unsent data over the server's memory budget");
        }
        try {
            out.write(b, off, len);
            out.flush();
        } finally {
            held.written(len);
        }
    }

    /** Gives back what the connection still held; the stream underneath is its exchange's to end. */
    @Override
    public void close() {
        held.close();
    }
}
