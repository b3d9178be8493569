package iristerm.http;

/**
 * Values from requests as they may appear in a log line or an error message: short and on one
 * line, so a client cannot flood the log, forge log lines, or have megabytes echoed back.
 */
final class LogText {

    static final int MAX_CHARS = 200;

    private LogText() {
    }

    /** {@code value} with line breaks and other control characters escaped, cut at {@link #MAX_CHARS}. */
    static String brief(Object value) {
        String text = String.valueOf(value);
        int shown = Math.min(text.length(), MAX_CHARS);
        StringBuilder out = new StringBuilder(shown + 32);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (shown < text.length()) {
            out.append("... (").append(text.length()).append(" chars)");
        }
        return out.toString();
    }
}
