package iristerm.jsonrpc;

import tools.jackson.core.JacksonException;

/** Client-supplied text made fit for an error message or a log line: bounded and printable. */
public final class Plain {
    /** Longest piece of client input quoted back. */
    public static final int MAX_CHARS = 200;

    private Plain() {
    }

    /** {@code text} cut to {@link #MAX_CHARS}, control characters shown as escapes. */
    public static String of(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(Math.min(text.length(), MAX_CHARS) + 16);
        for (int i = 0; i < text.length() && b.length() < MAX_CHARS; i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) || Character.isSurrogate(c) && !wellFormedAt(text, i)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        if (b.length() >= MAX_CHARS && text.length() > MAX_CHARS) {
            b.setLength(MAX_CHARS);
            b.append("… (").append(text.length()).append(" characters)");
        }
        return b.toString();
    }

    /** Where in a message Jackson stopped, as {@code  at "params"."arguments"}, or empty. */
    static String path(JacksonException e) {
        StringBuilder b = new StringBuilder();
        for (JacksonException.Reference r : e.getPath()) {
            b.append(b.length() == 0 ? " at " : ".");
            b.append(r.getPropertyName() != null ? "\"" + of(r.getPropertyName()) + "\"" : "[" + r.getIndex() + "]");
        }
        return b.toString();
    }

    /** True when every surrogate in {@code s} is half of a pair: such a string survives UTF-8 unchanged. */
    static boolean wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isSurrogate(s.charAt(i)) && !wellFormedAt(s, i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean wellFormedAt(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
