package iristerm.session;

/**
 * Whether a terminal shows its alternate screen (where full-screen programs such as vi, less and top
 * draw): follows the private modes 47, 1047 and 1049 set (CSI ? n h) and reset (CSI ? n l) in the output,
 * across chunk boundaries. The emulator keeps this to itself, so it is tracked beside it.
 */
final class AlternateScreen {
    private static final int MAX_PARAMS = 64;
    private static final int NORMAL = 0;
    private static final int ESC = 1;
    private static final int CSI = 2;
    private static final int PRIVATE = 3;

    private int state = NORMAL;
    private final StringBuilder params = new StringBuilder();
    private boolean on;

    boolean on() {
        return on;
    }

    void reset() {
        state = NORMAL;
        params.setLength(0);
        on = false;
    }

    void scan(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (state) {
                case ESC -> state = c == '[' ? CSI : c == 27 ? ESC : NORMAL;
                case CSI -> {
                    state = c == '?' ? PRIVATE : c == 27 ? ESC : NORMAL;
                    params.setLength(0);
                }
                case PRIVATE -> {
                    if ((c >= '0' && c <= '9') || c == ';') {
                        if (params.length() < MAX_PARAMS) {
                            params.append(c);
                        }
                    } else {
                        if (c == 'h' || c == 'l') {
                            apply(c == 'h');
                        }
                        state = c == 27 ? ESC : NORMAL;
                    }
                }
                default -> state = c == 27 ? ESC : NORMAL;
            }
        }
    }

    private void apply(boolean set) {
        for (String p : params.toString().split(";")) {
            if (p.equals("47") || p.equals("1047") || p.equals("1049")) {
                on = set;
            }
        }
    }
}
