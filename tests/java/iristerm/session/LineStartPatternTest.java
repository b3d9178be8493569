package iristerm.session;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** until.pattern's {@code ^} (multiline, as reads compile it) holds only where a line of the output starts. */
class LineStartPatternTest {
    private static final Pattern MARK = BoundedRegex.compile("^MARK\\r?\\n", Pattern.MULTILINE);

    @TempDir
    Path dir;

    private int sessions;

    /** A session of its own (engine-less: the test writes its output) and its log. */
    private record Live(Session session, OutputLog log) {
        void append(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            log.append(b, 0, b.length);
        }
    }

    private Live open() {
        OutputLog log = new OutputLog(1 << 20, new Transcript(dir.resolve(++sessions + ".log")));
        return new Live(new Session(new SessionMeta("l", "process", "l", "o", "x", List.of(), ".", null, "pipe", null,
                0), log, null), log);
    }

    private static ReadResult readUntil(Session s, Pattern p) {
        return s.read(new ReadRequest("r", 0, new Until(p, null, false, false), 1 << 20, false, true, false, null, 0));
    }

    @Test
    void theFirstLineOfTheLogIsALineStart() {
        Live l = open();
        l.append("MARK\n");
        assertEquals(ReadReason.pattern, readUntil(l.session(), MARK).reason());
    }

    @Test
    void aReadsStartCountsAsALineStart() {
        // in a pipe nothing echoes the input: a command's output follows the prompt on its line
        Live l = open();
        l.append("x\n$ ");
        assertEquals(ReadReason.timeout, readUntil(l.session(), MARK).reason());
        l.append("MARK\n");
        assertEquals(ReadReason.pattern, readUntil(l.session(), MARK).reason());
        l.append("x MARK\n");
        assertEquals(ReadReason.timeout, readUntil(l.session(), MARK).reason(), "mid-line within a read");
    }

    @Test
    void aSearchResumedInTheMiddleOfALongLineSeesWhatPrecedes() throws Exception {
        // a waiting read searches what is new plus 4 KiB before it: here that begins at "MARK", mid-line
        Live l = open();
        l.append("b".repeat(100) + "MARKx" + "c".repeat(4091));
        java.util.concurrent.CompletableFuture<ReadResult> read = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> l.session().read(new ReadRequest("r", 1500, new Until(BoundedRegex.compile("^MARK", Pattern.MULTILINE),
                        null, false, false), 1 << 20, false, true, false, null, 0)));
        Thread reader = awaitWaitingReader();
        assertNotNull(reader, "the read did not start waiting");
        l.append("\n");
        assertEquals(ReadReason.timeout, read.get(10, TimeUnit.SECONDS).reason());
    }

    /** The thread of a read that searched what was there and now waits for more (bounded: 10 s). */
    private static Thread awaitWaitingReader() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getState() == Thread.State.TIMED_WAITING && java.util.Arrays.stream(t.getStackTrace())
                        .anyMatch(f -> f.getMethodName().equals("awaitNanos") && f.getClassName().endsWith("OutputLog"))) {
                    return t;
                }
            }
            Thread.sleep(5);
        }
        return null;
    }

    /** The regex engine's own answer, with the same view of what precedes. */
    private static boolean engine(Pattern p, String before, String text) {
        Matcher m = p.matcher(before + text).useTransparentBounds(true).useAnchoringBounds(false);
        m.region(before.length(), before.length() + text.length());
        return m.find();
    }

    @Test
    void searchingFromLineStartsFindsWhatTheEngineFinds() {
        List<String> patterns = List.of("^seq-42-done\\r?\\n", "^a*b", "(?m)^x", "(?i)^MARK", "^\\d+$", "^(?:foo|bar)x",
                "^[|(]y", "^ab{0}c", "^ab?c", "^$");
        List<String> befores = List.of("", "\n", "z", "\r", "\u2028", "\u00e9");
        List<String> texts = List.of("seq-42-done\n", "1\n2\nseq-42-done\r\n", "xx\nb\n", "aab", "q\rx", "q\r\nx",
                "mark", "1\n22\n", "foox\n", "barx", "|y", "(y", "ac", "abc", "\n\n", "z\u0085x", "z\u2029x");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (String regex : patterns) {
            Pattern p = BoundedRegex.compile(regex, Pattern.MULTILINE);
            assertNotNull(BoundedRegex.LineStart.of(p), regex);
            for (String before : befores) {
                for (String text : texts) {
                    assertEquals(engine(p, before, text), BoundedRegex.find(p, before, text, deadline),
                            () -> regex + " after " + before.replace("\n", "\\n") + " in " + text.replace("\n", "\\n"));
                }
            }
        }
    }

    @Test
    void onlyPatternsWhoseEveryMatchStartsALineAreSearchedFromLineStarts() {
        assertEquals("seq-42-done", BoundedRegex.LineStart.of(
                BoundedRegex.compile("^seq-42-done\\r?\\n", Pattern.MULTILINE)).literal());
        assertEquals("a", BoundedRegex.LineStart.of(Pattern.compile("^ab*", Pattern.MULTILINE)).literal());
        assertEquals("", BoundedRegex.LineStart.of(Pattern.compile("(?i)^mark", Pattern.MULTILINE)).literal());
        for (String anywhere : List.of("^a|b", "x^", "(?-m)^x", "(?x)^ a", "(?:^a)", "[(]^|b", "^\\Q|\\E|c")) {
            assertNull(BoundedRegex.LineStart.of(Pattern.compile(anywhere, Pattern.MULTILINE)), anywhere);
        }
        assertNull(BoundedRegex.LineStart.of(Pattern.compile("^a")), "without multiline ^ is the input's start");
        assertTrue(BoundedRegex.find(Pattern.compile("^a|b", Pattern.MULTILINE), "x", "xb", System.nanoTime() + 1_000_000_000L));
    }
}
