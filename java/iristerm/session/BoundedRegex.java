package iristerm.session;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Regex searches that end by a deadline. java.util.regex backtracks: a pattern such as
 * {@code (.*)(.*)(.*)\3\2\1x} over a few thousand characters would run for years, and a thread
 * stuck in {@link java.util.regex.Matcher#find()} cannot be interrupted. The engine reads its input
 * through {@link CharSequence#charAt(int)} at every step, so the input is wrapped in a sequence
 * that looks at the clock every {@value #CHECK_EVERY} characters and throws once the deadline is
 * past: the search stops within microseconds of it and nothing keeps running. (A linear-time
 * engine would need a new dependency and drops backreferences and lookaround, which agents use.)
 */
public final class BoundedRegex {
    /** clock reads are cheap but not free; the engine makes millions of charAt calls per second */
    private static final int CHECK_EVERY = 1024;

    private BoundedRegex() {
    }

    /** put before an agent's regex; see {@link #compile} */
    private static final String GUARD = "(?:)";

    /** Longest regex compiled as written: the quadratic table for 256 repeated characters takes ~3 ms. */
    private static final int UNGUARDED_MAX = 256;

    /**
     * Compiles an agent's regex in bounded time. Pattern.compile turns a literal at the start of a
     * pattern into a Boyer-Moore table built in quadratic time: 16,000 literal characters take seconds,
     * a megabyte never ends, and compiling cannot be interrupted. An empty group in front of a long
     * regex keeps the start from being a literal and means nothing, so the pattern matches exactly as
     * written. A short regex is compiled as written: the group would cost every search position a
     * step (twice the time of {@code ^marker} over a megabyte) and take away the Boyer-Moore skip that
     * finds a short literal twenty times faster. (A pattern that starts with a quantifier is invalid as
     * written and is compiled as written, so that the error says so instead of quantifying the empty group.)
     */
    public static Pattern compile(String regex, int flags) {
        if (regex.length() <= UNGUARDED_MAX || "*+?{".indexOf(regex.charAt(0)) >= 0) {
            return Pattern.compile(regex, flags);
        }
        try {
            return Pattern.compile(GUARD + regex, flags);
        } catch (PatternSyntaxException e) {
            throw new PatternSyntaxException(e.getDescription(), regex, Math.max(-1, e.getIndex() - GUARD.length()));
        }
    }

    /** The regex as the agent gave it. */
    public static String source(Pattern pattern) {
        String p = pattern.pattern();
        return p.length() > GUARD.length() + UNGUARDED_MAX && p.startsWith(GUARD) ? p.substring(GUARD.length()) : p;
    }

    /** The search did not end by its deadline. Thrown from deep in the engine, so it carries no stack trace. */
    public static final class Overrun extends RuntimeException {
        private final boolean tooDeep;

        Overrun(boolean tooDeep) {
            super(tooDeep ? "the search nests deeper than the stack allows" : "the search ran past its deadline",
                    null, false, false);
            this.tooDeep = tooDeep;
        }

        /** True when the engine ran out of stack (e.g. {@code (a|b)*} recurses once per character), not time. */
        public boolean tooDeep() {
            return tooDeep;
        }
    }

    /**
     * Whether {@code pattern} occurs in {@code text}; throws {@link Overrun} once {@code deadlineNanos}
     * ({@link System#nanoTime()} scale) has passed, or when the engine runs out of stack.
     */
    public static boolean find(Pattern pattern, CharSequence text, long deadlineNanos) {
        try {
            return pattern.matcher(new Timed(text, deadlineNanos)).find();
        } catch (StackOverflowError e) {
            // the engine's recursion unwound completely; this thread's stack is whole again
            throw new Overrun(true);
        }
    }

    /** A view of the text that fails once the deadline has passed. One search, one thread. */
    private static final class Timed implements CharSequence {
        private final CharSequence text;
        private final long deadline;
        private int reads;

        Timed(CharSequence text, long deadline) {
            this.text = text;
            this.deadline = deadline;
        }

        @Override
        public char charAt(int index) {
            if (++reads == CHECK_EVERY) {
                reads = 0;
                if (System.nanoTime() - deadline > 0) {
                    throw new Overrun(false);
                }
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Timed(text.subSequence(start, end), deadline);
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}
