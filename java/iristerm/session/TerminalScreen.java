package iristerm.session;

import org.jline.builtins.ScreenTerminal;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a person would see on a session's terminal now: its output replayed through a terminal emulator
 * (JLine's ScreenTerminal, an xterm-like VT emulator), brought up to date from the session's log only
 * when asked, so that a session nobody looks at this way costs nothing.
 */
public final class TerminalScreen {
    /** At most this much output is replayed at once; older output a full-screen program has redrawn since. */
    static final int MAX_REPLAY = 4 << 20;
    private static final int CHUNK = 64 * 1024;

    /** The screen's rows (trailing blanks cut), the cursor (0-based), whether the alternate screen is on. */
    public record Snapshot(List<String> rows, int cursorRow, int cursorCol, boolean alternate) {
    }

    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    /** the start of a character whose other bytes are in the next chunk (at most 3 bytes) */
    private byte[] partial = new byte[0];
    private final AlternateScreen alternate = new AlternateScreen();
    private ScreenTerminal term;
    private int cols;
    private int rows;
    /** the log offset up to which output has been fed */
    private long fed = -1;

    /** The screen of {@code cols} x {@code rows} after everything {@code log} holds now. */
    TerminalScreen() {
    }

    synchronized Snapshot snapshot(OutputLog log, int cols, int rows) {
        long end = log.end();
        if (term == null || fed < 0 || end - fed > MAX_REPLAY) {
            reset(cols, rows, Math.max(0, end - MAX_REPLAY));
        } else if (cols != this.cols || rows != this.rows) {
            term.setSize(cols, rows);
            this.cols = cols;
            this.rows = rows;
        }
        while (fed < end) {
            OutputLog.Slice s = log.read(fed, (int) Math.min(CHUNK, end - fed));
            if (s.bytes().length == 0) {
                break;
            }
            if (s.from() > fed) {
                // what lay between is no longer held: start afresh from what is
                reset(cols, rows, s.from());
            }
            feed(s.bytes());
            fed = s.from() + s.bytes().length;
        }
        long[] cells = new long[cols * rows];
        int[] cursor = new int[2];
        term.dump(cells, 0, 0, rows, cols, cursor);
        List<String> text = new ArrayList<>(rows);
        StringBuilder line = new StringBuilder(cols);
        for (int r = 0; r < rows; r++) {
            line.setLength(0);
            for (int c = 0; c < cols; c++) {
                int ch = (int) (cells[r * cols + c] & 0xffffffffL);
                // a wide character's second cell holds nothing: the first already shows it
                if (ch != 0) {
                    line.appendCodePoint(ch);
                }
            }
            text.add(line.toString().stripTrailing());
        }
        return new Snapshot(text, cursor[1], Math.min(cursor[0], cols - 1), alternate.on());
    }

    private void reset(int cols, int rows, long from) {
        term = new ScreenTerminal(cols, rows);
        this.cols = cols;
        this.rows = rows;
        utf8.reset();
        partial = new byte[0];
        alternate.reset();
        fed = from;
    }

    private void feed(byte[] bytes) {
        ByteBuffer in = ByteBuffer.allocate(partial.length + bytes.length).put(partial).put(bytes).flip();
        CharBuffer chars = CharBuffer.allocate(in.remaining() + 1);
        utf8.decode(in, chars, false);
        partial = new byte[in.remaining()];
        in.get(partial);
        chars.flip();
        alternate.scan(chars);
        term.write(chars);
    }
}
