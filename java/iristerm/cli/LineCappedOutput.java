package iristerm.cli;

import java.io.OutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * An output stream that passes each line through up to a byte cap and replaces the rest with a
 * marker. The server's log goes to stderr through it: libraries log what clients send (a method
 * name, a protocol version), and no request may turn into a line of megabytes.
 */
final class LineCappedOutput extends OutputStream {

    static final int MAX_LINE_BYTES = 1024;
    private static final byte[] MARKER = " [... line cut]".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;
    private final int maxLineBytes;
    private int lineBytes;
    private boolean cut;

    LineCappedOutput(OutputStream out, int maxLineBytes) {
        this.out = out;
        this.maxLineBytes = maxLineBytes;
    }

    /** {@code stream}, autoflushing, with every line capped at {@link #MAX_LINE_BYTES}. */
    static PrintStream wrap(PrintStream stream) {
        return new PrintStream(new LineCappedOutput(stream, MAX_LINE_BYTES), true, StandardCharsets.UTF_8);
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    /** Passes runs of kept bytes in one write each. */
    @Override
    public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
        int run = offset;
        for (int i = offset; i < offset + length; i++) {
            boolean firstDropped = !cut;
            if (!keep(bytes[i])) {
                out.write(bytes, run, i - run);
                if (firstDropped) {
                    out.write(MARKER);
                }
                run = i + 1;
            }
        }
        out.write(bytes, run, offset + length - run);
    }

    /** Whether {@code b} is written, given the line so far. */
    private boolean keep(byte b) {
        if (b == '\n') {
            lineBytes = 0;
            cut = false;
            return true;
        }
        // bytes that continue a UTF-8 character already begun pass, so no character is split
        boolean continuation = (b & 0xC0) == 0x80;
        if (cut || (lineBytes >= maxLineBytes && !continuation)) {
            cut = true;
            return false;
        }
        lineBytes++;
        return true;
    }

    @Override
    public synchronized void flush() throws IOException {
        out.flush();
    }
}
