package iristerm.session;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BoundedRegexTest {
    private static final Pattern CATASTROPHIC = Pattern.compile("(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x");

    private static long in(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void findsAndMissesLikeTheEngine() {
        assertTrue(BoundedRegex.find(Pattern.compile("b(c+)\\1d"), "abccccd", in(1000)));
        assertFalse(BoundedRegex.find(Pattern.compile("^x$", Pattern.MULTILINE), "a\nxy\n", in(1000)));
        assertTrue(BoundedRegex.find(Pattern.compile("(?<=a)b"), "ab", in(1000)));
    }

    @Test
    void aCatastrophicPatternStopsAtItsDeadline() {
        long start = System.nanoTime();
        BoundedRegex.Overrun e = assertThrows(BoundedRegex.Overrun.class,
                () -> BoundedRegex.find(CATASTROPHIC, "a".repeat(3000), in(200)));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(e.tooDeep());
        assertTrue(took >= 200 && took < 1500, "stopped after " + took + " ms");
    }

    @Test
    void concurrentCatastrophicSearchesRunOnHalfTheCoresAndAPlainOneStillEndsAtOnce() throws Exception {
        int searches = 3 * BoundedRegex.CORES + 3;
        long waitMillis = 1500;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < searches; i++) {
            Thread t = new Thread(() -> assertThrows(BoundedRegex.Overrun.class,
                    () -> BoundedRegex.find(CATASTROPHIC, "a".repeat(3000), in(waitMillis))));
            threads.add(t);
            t.start();
        }
        long plain = System.nanoTime();
        assertTrue(BoundedRegex.find(Pattern.compile("needle"), "hay ".repeat(10_000) + "needle", in(5000)));
        long plainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - plain);
        // how many searches run (rather than wait for a share) at each look, while all of them are under way
        List<Long> running = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis - 300);
        TimeUnit.MILLISECONDS.sleep(100);
        while (System.nanoTime() < until) {
            running.add(threads.stream().filter(t -> t.getState() == Thread.State.RUNNABLE).count());
            TimeUnit.MILLISECONDS.sleep(50);
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
        Collections.sort(running);
        long median = running.get(running.size() / 2);
        // a hand-over shows both searches runnable for a moment (longer on a loaded machine): twice the share
        assertTrue(median <= 2 * BoundedRegex.CORES, "of " + searches + " searches " + running + " ran at once; "
                + BoundedRegex.CORES + " should, apart from hand-overs");
        assertTrue(plainMillis < 500, "a plain search among them took " + plainMillis + " ms");
    }

    @Test
    void aHugeAlternationStopsAtItsDeadline() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 150_000; i++) {
            b.append(i == 0 ? "" : "|").append("word").append(i).append('x');
        }
        Pattern p = Pattern.compile(b.toString());
        long start = System.nanoTime();
        assertThrows(BoundedRegex.Overrun.class, () -> BoundedRegex.find(p, "y".repeat(20_000), in(200)));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took < 1500, "stopped after " + took + " ms");
    }

    @Test
    void aDeadlineAlreadyPastStillLetsACheapSearchFinish() {
        // the clock is read every 1024 characters: a search over a short text answers whatever the deadline
        assertTrue(BoundedRegex.find(Pattern.compile("ok"), "it is ok", System.nanoTime() - 1));
    }

    @Test
    void aLongLiteralCompilesAtOnceAndStillMatchesAsWritten() {
        // as given to Pattern.compile, 16,000 literal characters take seconds (a megabyte: forever)
        String literal = "x".repeat(16_000);
        long start = System.nanoTime();
        Pattern p = BoundedRegex.compile(literal, 0);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took < 300, "compiled in " + took + " ms");
        assertTrue(BoundedRegex.find(p, "y" + literal, in(1000)));
        assertFalse(BoundedRegex.find(p, literal.substring(1), in(1000)));
        assertEquals(literal, BoundedRegex.source(p));
    }

    @Test
    void aShortRegexIsCompiledAsWrittenSoTheEngineKeepsItsFastPaths() {
        // an empty group in front would cost every search position a step and take away Boyer-Moore
        assertEquals("^seq-42-done\\r?\\n", BoundedRegex.compile("^seq-42-done\\r?\\n", Pattern.MULTILINE).pattern());
        assertEquals("done", BoundedRegex.compile("done", 0).pattern());
        // an agent's own leading empty group is part of what it wrote
        assertEquals("(?:)x", BoundedRegex.source(BoundedRegex.compile("(?:)x", 0)));
        String longOne = "(?:)" + "y".repeat(300);
        assertEquals(longOne, BoundedRegex.source(BoundedRegex.compile(longOne, 0)));
    }

    @Test
    void theGuardChangesNeitherMeaningNorErrors() {
        assertTrue(BoundedRegex.find(BoundedRegex.compile("^b|c$", Pattern.MULTILINE), "a\nb", in(1000)));
        assertFalse(BoundedRegex.find(BoundedRegex.compile("^a(b)\\1", 0), "xabb", in(1000)));
        assertTrue(BoundedRegex.find(BoundedRegex.compile("(?i)AB", 0), "xab", in(1000)));
        java.util.regex.PatternSyntaxException dangling = assertThrows(java.util.regex.PatternSyntaxException.class,
                () -> BoundedRegex.compile("*a", 0));
        assertEquals(0, dangling.getIndex());
        java.util.regex.PatternSyntaxException unclosed = assertThrows(java.util.regex.PatternSyntaxException.class,
                () -> BoundedRegex.compile("ab(c", 0));
        assertEquals("ab(c", unclosed.getPattern());
        assertTrue(unclosed.getIndex() <= 4, "index " + unclosed.getIndex() + " is within the pattern as given");
    }

    @Test
    void runningOutOfStackIsReportedNotThrown() {
        BoundedRegex.Overrun e = assertThrows(BoundedRegex.Overrun.class,
                () -> BoundedRegex.find(Pattern.compile("(a|b)*c"), "ab".repeat(200_000), in(10_000)));
        assertTrue(e.tooDeep());
    }
}
