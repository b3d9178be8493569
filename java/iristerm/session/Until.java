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
    /** The default of a waiting send or read: the command is done (prompt back, exit, or settled output). */
    public static final Until DONE = new Until(null, null, true, true, true);
    /**
     * session_open waiting up to {@code waitMs}: where the kernel tells when the program waits for
     * input ({@code inputKnown}), until it does (its prompt, a question) or exits, so that a one-shot
     * command answers with all of its output and its exit code. Elsewhere, until the start-up output
     * (banner, first prompt) is complete, or there is none: a program that printed nothing for half the
     * wait (a slow shell rc file gets more with a longer wait) is taken to print nothing at start.
     */
    public static Until started(long waitMs, boolean inputKnown) {
        return inputKnown ? DONE : new Until(null, Math.max(1, waitMs / 2), true, true, true);
    }

    public Until(Pattern pattern, Long quietMs, boolean prompt, boolean exit) {
        this(pattern, quietMs, prompt, exit, false);
    }

    public boolean isEmpty() {
        return pattern == null && quietMs == null && !prompt && !exit && !settle;
    }
}
