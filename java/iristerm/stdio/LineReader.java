package iristerm.stdio;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Newline-delimited lines from a stream, each at most {@code maxBytes} long: a longer line is
 * skipped up to its newline without being held, and reported by its length only.
 */
final class LineReader {

    /** One line without its newline: its bytes, or null when it was longer than the limit. */
    record Line(byte[] bytes, long length) {
        boolean overlong() {
            return bytes == null;
        }

        /** True for a line of nothing but spaces, tabs and carriage returns, which carries no message. */
        boolean blank() {
            for (byte b : bytes) {
                if (b != ' ' && b != '\t' && b != '\r') {
                    return false;
                }
            }
            return true;
        }
    }

    private final InputStream in;
    private final int maxBytes;
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;

    LineReader(InputStream in, int maxBytes) {
        this.in = in;
        this.maxBytes = maxBytes;
    }

    /** The next line, or null at the end of the stream (a last line without newline still counts). */
    Line next() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long length = 0;
        while (true) {
            if (position == limit) {
                limit = in.read(buffer);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    return length == 0 ? null : finish(line, length);
                }
            }
            int end = position;
            while (end < limit && buffer[end] != '\n') {
                end++;
            }
            int n = end - position;
            if (length + n <= maxBytes) {
                line.write(buffer, position, n);
            }
            length += n;
            position = end;
            if (end < limit) {
                position++; // the newline
                return finish(line, length);
            }
        }
    }

    private Line finish(ByteArrayOutputStream line, long length) {
        return new Line(length <= maxBytes ? line.toByteArray() : null, length);
    }
}
