package iristerm.session;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Keys by name (session_send's keys), as an xterm sends them, so that an agent need not know escape
 * sequences: "ctrl-c", "up", "tab", "shift-tab", "esc", "enter", "f1"… Cursor and keypad keys are sent in
 * the terminal's normal mode (CSI A, not SS3 A); the programs that switch to application mode (vi, less,
 * top) read both.
 */
public final class NamedKeys {
    private static final Map<String, String> KEYS = new LinkedHashMap<>();

    static {
        String esc = "\u001b";
        KEYS.put("enter", "\r");
        KEYS.put("tab", "\t");
        KEYS.put("shift-tab", esc + "[Z");
        KEYS.put("esc", esc);
        KEYS.put("backspace", "\u007f");
        KEYS.put("space", " ");
        KEYS.put("up", esc + "[A");
        KEYS.put("down", esc + "[B");
        KEYS.put("right", esc + "[C");
        KEYS.put("left", esc + "[D");
        KEYS.put("home", esc + "[H");
        KEYS.put("end", esc + "[F");
        KEYS.put("insert", esc + "[2~");
        KEYS.put("delete", esc + "[3~");
        KEYS.put("pageup", esc + "[5~");
        KEYS.put("pagedown", esc + "[6~");
        String[] f = {"OP", "OQ", "OR", "OS", "[15~", "[17~", "[18~", "[19~", "[20~", "[21~", "[23~", "[24~"};
        for (int i = 0; i < f.length; i++) {
            KEYS.put("f" + (i + 1), esc + f[i]);
        }
        for (char c = 'a'; c <= 'z'; c++) {
            KEYS.put("ctrl-" + c, String.valueOf((char) (c - 'a' + 1)));
        }
        KEYS.put("ctrl-@", "\u0000");
        KEYS.put("ctrl-[", esc);
        KEYS.put("ctrl-\\", "\u001c");
        KEYS.put("ctrl-]", "\u001d");
    }

    private NamedKeys() {
    }

    /**
     * What pressing {@code names} in order sends; "enter" is a line feed where the session runs on pipes
     * ({@code pty} false), as a program there expects.
     *
     * @throws SessionException naming a key this does not know, and the ones it does
     */
    public static String sequence(List<String> names, boolean pty) {
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            String key = name == null ? null : KEYS.get(name.strip().toLowerCase(Locale.ROOT));
            if (key == null) {
                throw new SessionException("unknown key '" + name + "' in keys; known: " + String.join(", ",
                        KEYS.keySet().stream().filter(k -> !k.startsWith("ctrl-") || k.equals("ctrl-a")).toList())
                        + " … ctrl-z, ctrl-@, ctrl-[, ctrl-\\, ctrl-]; send plain text with text");
            }
            out.append(!pty && key.equals("\r") ? "\n" : key);
        }
        return out.toString();
    }
}
