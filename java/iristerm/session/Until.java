package iristerm.session;

import java.util.regex.Pattern;

/**
 * When a waiting read may stop early. {@code null} as a whole means "any new data" (the first new
 * byte); otherwise the read stops as soon as any listed condition holds. {@code settle}: the
 * output that answers the input has been quiet for {@link #SETTLE_MS}, counted only for a program
 * that has not shown a recognisable prompt (one that has is done when its prompt is back).
 */
public record Until(Pattern pattern, Long quietMs, boolean prompt, boolean exit, boolean settle) {
    /**
     * How long the answer of a program with no recognisable prompt must be quiet to count as
     * complete: longer than the gap between the lines of one burst of output, short enough for an
     * agent not to notice.
     */
    public static final long SETTLE_MS = 300;
    /** session_open: a program that has printed nothing for this long has no start-up output to wait for */
    public static final long START_SILENCE_MS = 1000;

    /** The default of a waiting send or read: the command is done (prompt back, exit, or settled output). */
    public static final Until DONE = new Until(null, null, true, true, true);
    /** session_open: the start-up output (banner, first prompt) is complete, or there is none. */
    public static final Until STARTED = new Until(null, START_SILENCE_MS, true, true, true);

    public Until(Pattern pattern, Long quietMs, boolean prompt, boolean exit) {
        this(pattern, quietMs, prompt, exit, false);
    }

    public boolean isEmpty() {
        return pattern == null && quietMs == null && !prompt && !exit && !settle;
    }
}
