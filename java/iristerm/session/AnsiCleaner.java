package iristerm.session;

/**
 * Turns terminal output into the text a person would read on the screen: escape sequences are
 * removed and carriage-return / backspace overwrites (progress bars, spinners) are collapsed, so
 * an agent pays tokens only for what is visible.
 */
public final class AnsiCleaner {
    private static final char ESC = 0x1b;

    private AnsiCleaner() {
    }

    public static String clean(String s) {
        if (isPlain(s)) {
            // most output (a listing, seq, a log) has nothing to clean: one scan, no copy
            return s;
        }
        StringBuilder out = new StringBuilder(s.length());
        StringBuilder line = new StringBuilder();
        int col = 0;
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == ESC) {
                int end = escapeEnd(s, i);
                if (isEraseLine(s, i, end)) {
                    line.setLength(eraseLineFrom(s, i, end, col, line.length()));
                }
                i = end;
                continue;
            }
            switch (c) {
                case '\n' -> {
                    out.append(line).append('\n');
                    line.setLength(0);
                    col = 0;
                }
                case '\r' -> col = 0;
                case '\b' -> col = Math.max(0, col - 1);
                case '\t' -> col = put(line, col, c);
                default -> {
                    if (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c < 0xa0)) {
                        col = put(line, col, c);
                    }
                }
            }
            i++;
        }
        return out.append(line).toString();
    }

    /**
     * Whether the UTF-8 text in {@code utf8[offset, offset + len)}, decoded with every invalid sequence
     * replaced by U+FFFD, is one {@link #clean} returns as it is; the same answer as for the decoded
     * String, found in a scan of the bytes without decoding them first. The C1 controls U+0080-U+009F are
     * the two-byte sequences C2 80 to C2 9F; every other byte from 0x80 up belongs to a character kept or
     * to an invalid sequence (U+FFFD, kept).
     */
    public static boolean isPlain(byte[] utf8, int offset, int len) {
        for (int i = offset, end = offset + len; i < end; i++) {
            int b = utf8[i];
            if (b >= 0x20) {
                if (b == 0x7f) {
                    return false;
                }
            } else if (b >= 0 ? b != '\n' && b != '\t'
                    : b == (byte) 0xc2 && i + 1 < end && utf8[i + 1] >= (byte) 0x80 && utf8[i + 1] < (byte) 0xa0) {
                return false;
            }
        }
        return true;
    }

    /** Whether every character is one {@link #clean} keeps as it is: printable, a tab or a newline. */
    private static boolean isPlain(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 ? c != '\n' && c != '\t' : c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                return false;
            }
        }
        return true;
    }

    private static int put(StringBuilder line, int col, char c) {
        if (col < line.length()) {
            line.setCharAt(col, c);
        } else {
            line.append(c);
        }
        return col + 1;
    }

    /** Index just past the escape sequence starting at {@code i}; an unterminated one runs to the end. */
    private static int escapeEnd(String s, int i) {
        int n = s.length();
        if (i + 1 >= n) {
            return n;
        }
        char kind = s.charAt(i + 1);
        if (kind == '[') {
            int j = i + 2;
            while (j < n && (s.charAt(j) < 0x40 || s.charAt(j) > 0x7e)) {
                j++;
            }
            return Math.min(n, j + 1);
        }
        if (kind == ']' || kind == 'P' || kind == '_' || kind == '^') {
            // OSC/DCS/APC/PM strings end at BEL or ST (ESC \)
            int j = i + 2;
            while (j < n) {
                char c = s.charAt(j);
                if (c == 0x07) {
                    return j + 1;
                }
                if (c == ESC && j + 1 < n && s.charAt(j + 1) == '\\') {
                    return j + 2;
                }
                j++;
            }
            return n;
        }
        if (kind == '(' || kind == ')' || kind == '*' || kind == '+' || kind == '#') {
            return Math.min(n, i + 3);
        }
        return i + 2;
    }

    private static boolean isEraseLine(String s, int start, int end) {
        return end - start >= 3 && s.charAt(start + 1) == '[' && s.charAt(end - 1) == 'K';
    }

    /** New line length after CSI n K: 0 (default) erases from the cursor, 2 the whole line. */
    private static int eraseLineFrom(String s, int start, int end, int col, int length) {
        String arg = s.substring(start + 2, end - 1);
        if (arg.equals("2")) {
            return col == 0 ? 0 : length;
        }
        if (arg.isEmpty() || arg.equals("0")) {
            return Math.min(col, length);
        }
        return length;
    }
}
