package iristerm.process;

import iristerm.session.BoundedRegex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * A session's prompt regex, tried on the last line of output whenever a read or a listing asks for
 * the session's state, often with the output log locked (so the output pump waits for it). Each try
 * gets {@value #BUDGET_MILLIS} ms; a regex that overruns it {@value #STRIKES} times in a row (not
 * once: a pause of the whole JVM must not switch a good regex off) is not tried again, and the
 * session says so in every read instead of hanging.
 */
final class PromptRegex {
    private static final Logger LOG = LoggerFactory.getLogger(PromptRegex.class);
    static final long BUDGET_MILLIS = 100;
    static final int STRIKES = 3;

    private final Pattern pattern;
    private final AtomicInteger overruns = new AtomicInteger();
    private volatile boolean off;
    /** whether the prompt has matched a last line at least once: the program has a recognisable prompt */
    private volatile boolean seen;

    PromptRegex(Pattern pattern) {
        this.pattern = pattern;
    }

    /** Whether the prompt is at the end of {@code lastLine}; false once the regex has been switched off. */
    boolean matches(String lastLine) {
        if (off) {
            return false;
        }
        try {
            boolean found = BoundedRegex.find(pattern, lastLine,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BUDGET_MILLIS));
            overruns.set(0);
            if (found) {
                seen = true;
            }
            return found;
        } catch (BoundedRegex.Overrun e) {
            if (overruns.incrementAndGet() >= STRIKES && !off) {
                off = true;
                LOG.warn("prompt regex {} switched off: it overran {} ms on {} characters {} times in a row",
                        abbreviated(), BUDGET_MILLIS, lastLine.length(), STRIKES);
            }
            return false;
        }
    }

    /** Whether the program has shown its prompt: it has before, or {@code line} is one. */
    boolean seen(String line) {
        return seen || matches(line);
    }

    /** Why prompt detection stopped, for the agent; null while the regex is in use. */
    String note() {
        return off ? "the session's prompt regex " + abbreviated() + " took longer than " + BUDGET_MILLIS
                + " ms on the last line of output " + STRIKES + " times in a row and is no longer used: until "
                + "prompt will not fire and state shows running. Use until.pattern or until.quiet_ms, or open a new "
                + "session with a simpler prompt (e.g. \"\\\\$ $\")." : null;
    }

    private String abbreviated() {
        String p = BoundedRegex.source(pattern);
        return p.length() <= 80 ? "'" + p + "'" : "'" + p.substring(0, 77) + "...'";
    }
}
