package iristerm.session;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
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
 *
 * <p>All searches together get at most half the machine's cores once they run long: a search runs
 * freely for its first {@value #FREE_MILLIS} ms (nearly every search ends long before), then only
 * while it holds one of {@link #SHARE} permits, which it hands on every {@value #FREE_MILLIS} ms to a
 * search waiting for one (first come, first served). So twenty backtracking reads cost a core, not
 * all of them, for their waits, and a plain search started meanwhile still ends at once.
 */
public final class BoundedRegex {
    /** clock reads are cheap but not free; the engine makes millions of charAt calls per second */
    private static final int CHECK_EVERY = 1024;
    /** how long a search runs before it needs a share of the cores, and how long it keeps one when others wait */
    private static final long FREE_MILLIS = 5;
    /** the cores long searches may keep busy together */
    static final int CORES = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    private static final Semaphore SHARE = new Semaphore(CORES, true);

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
    public static boolean find(Pattern pattern, String text, long deadlineNanos) {
        return find(pattern, "", text, deadlineNanos);
    }

    /**
     * Whether {@code pattern} occurs in {@code text}, which follows {@code before} (the output just ahead
     * of it, searched already or not at all): {@code ^}, {@code \b} and lookbehind see {@code before},
     * so a search that resumes mid-output finds {@code ^} only at real line starts. Throws as
     * {@link #find(Pattern, String, long)}.
     */
    public static boolean find(Pattern pattern, String before, String text, long deadlineNanos) {
        Timed input = new Timed(before, text, deadlineNanos);
        Matcher m = pattern.matcher(input).useTransparentBounds(true).useAnchoringBounds(false);
        m.region(before.length(), input.length());
        try {
            LineStart anchor = LineStart.of(pattern);
            return anchor == null ? m.find() : anchor.find(m, before.length(), text);
        } catch (StackOverflowError e) {
            // the engine's recursion unwound completely; this thread's stack is whole again
            throw new Overrun(true);
        } finally {
            input.leaveShare();
        }
    }

    /**
     * A pattern whose every match begins at a line start: {@code ^} first in multiline mode, no
     * alternative at the top level. The engine would try such a pattern at every position of the
     * text (a megabyte of output: a million tries); trying it only where a line starts and where the
     * line begins with the literal that follows {@code ^} finds the same matches.
     *
     * @param literal characters every match has right after {@code ^} (empty when case is ignored)
     */
    record LineStart(String literal) {
        private static final String META = "\\[](){}.*+?^$|";

        /** The line-start form of {@code pattern}, or null when a match may begin anywhere. */
        static LineStart of(Pattern pattern) {
            int flags = pattern.flags();
            if ((flags & (Pattern.COMMENTS | Pattern.LITERAL | Pattern.CANON_EQ)) != 0) {
                return null;
            }
            String p = source(pattern);
            boolean multiline = (flags & Pattern.MULTILINE) != 0;
            boolean caseless = (flags & Pattern.CASE_INSENSITIVE) != 0;
            int at = 0;
            if (p.startsWith("(?")) {
                // leading inline flags such as (?m) or (?ms); a switch-off or comments mode is left to the engine
                int close = p.indexOf(')');
                String set = close < 0 ? "-" : p.substring(2, close);
                if (!set.chars().allMatch(c -> "msdiuU".indexOf(c) >= 0)) {
                    return null;
                }
                multiline |= set.indexOf('m') >= 0;
                caseless |= set.indexOf('i') >= 0;
                at = close + 1;
            }
            if (!multiline || !p.startsWith("^", at) || hasTopLevelAlternative(p)) {
                return null;
            }
            int end = at + 1;
            while (end < p.length() && META.indexOf(p.charAt(end)) < 0) {
                end++;
            }
            if (end < p.length() && "*?{".indexOf(p.charAt(end)) >= 0) {
                end--; // the last character is optional or repeated from zero
            }
            return new LineStart(caseless || end <= at + 1 ? "" : p.substring(at + 1, end));
        }

        /**
         * Whether the pattern matches at a line start of {@code text}, which starts at {@code offset} of
         * the matcher's input (the region's start is tried first; the engine decides whether {@code ^}
         * holds there).
         */
        boolean find(Matcher m, int offset, String text) {
            int n = text.length();
            // the line terminators ^ knows are \n \r U+0085 U+2028 U+2029; without the last two, all are
            // Latin-1, and a Latin-1 copy of the text (of most output: its bytes as they are) scans twice as
            // fast as the text read a character at a time
            byte[] latin1 = text.indexOf('\u2028') < 0 && text.indexOf('\u2029') < 0
                    ? text.getBytes(StandardCharsets.ISO_8859_1) : null;
            int at = 0;
            while (at >= 0) {
                if (text.startsWith(literal, at)) {
                    m.region(offset + at, offset + n);
                    if (m.lookingAt()) {
                        return true;
                    }
                }
                at = latin1 != null ? nextLine(latin1, at) : nextLine(text, at);
            }
            return false;
        }

        /** Index just past the next line terminator at or after {@code from}, or -1. */
        private static int nextLine(byte[] latin1, int from) {
            for (int i = from, n = latin1.length; i < n; i++) {
                byte c = latin1[i];
                if (c <= '\r' && (c == '\n' || c == '\r' || c == (byte) 0x85)) {
                    return i + 1;
                }
            }
            return -1;
        }

        /** As {@link #nextLine(byte[], int)}, for text with a line or paragraph separator. */
        private static int nextLine(String text, int from) {
            for (int i = from, n = text.length(); i < n; i++) {
                char c = text.charAt(i);
                if (c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029) {
                    return i + 1;
                }
            }
            return -1;
        }

        /** Whether a {@code |} outside every group (and class and quote) splits the pattern. */
        private static boolean hasTopLevelAlternative(String p) {
            int depth = 0;
            for (int i = 0, n = p.length(); i < n; i++) {
                char c = p.charAt(i);
                if (c == '\\') {
                    if (i + 1 < n && p.charAt(i + 1) == 'Q') {
                        int quoteEnd = p.indexOf("\\E", i + 2);
                        i = quoteEnd < 0 ? n : quoteEnd + 1;
                    } else {
                        i++;
                    }
                } else if (c == '[') {
                    i = classEnd(p, i);
                    if (i < 0) {
                        return true; // not understood here: let the engine search everywhere
                    }
                } else if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                } else if (c == '|' && depth <= 0) {
                    return true;
                }
            }
            return false;
        }

        /** Index of the {@code ]} closing the class opened at {@code open}, or -1 when unsure. */
        private static int classEnd(String p, int open) {
            int i = open + 1;
            if (i < p.length() && p.charAt(i) == '^') {
                i++;
            }
            if (i < p.length() && p.charAt(i) == ']') {
                i++; // a ] first in a class is literal
            }
            int depth = 1;
            for (int n = p.length(); i < n; i++) {
                char c = p.charAt(i);
                if (c == '\\') {
                    if (i + 1 < n && p.charAt(i + 1) == 'Q') {
                        return -1;
                    }
                    i++;
                } else if (c == '[') {
                    depth++;
                } else if (c == ']' && --depth == 0) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * A view of {@code before} followed by {@code text} that fails once the deadline has passed. One
     * search, one thread.
     */
    private static final class Timed implements CharSequence {
        private final String before;
        private final String text;
        private final int split;
        private final long deadline;
        private int reads;
        private long sliceStart = System.nanoTime();
        private boolean sharing;

        Timed(String before, String text, long deadline) {
            this.before = before;
            this.text = text;
            this.split = before.length();
            this.deadline = deadline;
        }

        @Override
        public char charAt(int index) {
            if (++reads == CHECK_EVERY) {
                reads = 0;
                long now = System.nanoTime();
                if (now - deadline > 0) {
                    throw new Overrun(false);
                }
                if (now - sliceStart > TimeUnit.MILLISECONDS.toNanos(FREE_MILLIS)) {
                    nextSlice(now);
                }
            }
            return index >= split ? text.charAt(index - split) : before.charAt(index);
        }

        /** A long search takes a share of the cores, or hands its share on when another search waits for one. */
        private void nextSlice(long now) {
            if (sharing && SHARE.hasQueuedThreads()) {
                SHARE.release();
                sharing = false;
            }
            if (!sharing) {
                try {
                    if (!SHARE.tryAcquire(deadline - now, TimeUnit.NANOSECONDS)) {
                        throw new Overrun(false);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Overrun(false);
                }
                sharing = true;
            }
            sliceStart = System.nanoTime();
        }

        void leaveShare() {
            if (sharing) {
                SHARE.release();
                sharing = false;
            }
        }

        @Override
        public int length() {
            return split + text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            if (start >= split) {
                return text.substring(start - split, end - split);
            }
            return end <= split ? before.substring(start, end) : before.substring(start) + text.substring(0, end - split);
        }

        @Override
        public String toString() {
            return before + text;
        }
    }
}
