package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static iristerm.e2e.Mcp.ok;
import static iristerm.e2e.Mcp.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile regexes and programs that leave children behind, against the packaged jar's `serve`
 * through the SDK's client: every regex ends by the call's bound and leaves no core spinning, and
 * no process a session started outlives session_close or the server's SIGTERM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RegexAndChildrenIT {
    private static final String CATASTROPHIC = "(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x";
    /** how much later than wait_ms a call may answer on a loaded machine (JSON, compile, scheduling) */
    private static final long MARGIN_MS = 1500;
    private static final int TRANSCRIPT_CAP = 100_000;
    private static final int TAIL = 4096;

    private Path dataDir;
    private HttpServer server;
    private McpSyncClient client;
    private final List<String> tokens = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        dataDir = Files.createTempDirectory("itm-hostile");
        // a small memory tail, so that what the capped transcript did not keep is soon gone
        server = new HttpServer(dataDir, List.of("--max-transcript-bytes", Integer.toString(TRANSCRIPT_CAP),
                "--tail-bytes", Integer.toString(TAIL)));
        client = server.connect(n -> { });
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
        // whatever a failed test left running, by pid, found by the tests' own unique arguments
        for (String token : tokens) {
            for (long pid : alive(token)) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    // ---- regexes -----------------------------------------------------------------------------

    /** A pipe session that prints {@code bytes} letters without a newline, then waits. */
    private String printer(int bytes) {
        String s = (String) ok(client, "session_open", "command", "bash", "mode", "pipe",
                "args", List.of("-c", "head -c " + bytes + " /dev/zero | tr '\\0' a; exec sleep 60")).get("session");
        Map<String, Object> r = ok(client, "session_read", "session", s, "wait_ms", 20000, "max_bytes", bytes,
                "all", true, "until", Map.of("pattern", "a{" + bytes + "}"));
        assertEquals("pattern", r.get("reason"), () -> brief(r));
        return s;
    }

    @Test
    void aCatastrophicPatternAnswersAtWaitMsAndLeavesNoCoreSpinning() throws Exception {
        String s = printer(3000);
        long start = System.nanoTime();
        Map<String, Object> r = ok(client, "session_read", "session", s, "all", true, "wait_ms", 2000,
                "until", Map.of("pattern", CATASTROPHIC));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals("timeout", r.get("reason"), () -> brief(r));
        assertTrue(took >= 2000 && took < 2000 + MARGIN_MS, "answered after " + took + " ms");
        assertTrue(String.valueOf(r.get("hint")).contains("until.pattern did not finish"), () -> brief(r));
        assertEquals(3000, ((String) r.get("data")).length(), "the output is delivered as on any timeout");
        ok(client, "session_close", "session", s, "force", true);
        assertCpuSettles();
    }

    @Test
    void hugePatternsAnswerWithinWaitMs() {
        String s = printer(20_000);
        StringBuilder alternation = new StringBuilder();
        for (int i = 0; i < 150_000; i++) {
            alternation.append(i == 0 ? "" : "|").append("w").append(i).append('x');
        }
        // carrying and compiling a 1.2 MB pattern costs what it costs; the search must add no more than wait_ms
        long carrying = timedTimeout(s, alternation.toString(), 0);
        long took = timedTimeout(s, alternation.toString(), 1000);
        assertTrue(took < carrying + 1000 + MARGIN_MS, "answered after " + took + " ms; with wait_ms 0 after " + carrying);
        // a long literal: Pattern.compile alone would build its search table in quadratic time, for ever
        long literal = timedTimeout(s, "x".repeat(200_000), 1000);
        assertTrue(literal < 1000 + MARGIN_MS, "a 200,000-character literal answered after " + literal + " ms");
        ok(client, "session_close", "session", s, "force", true);
    }

    /** A read of all output until {@code pattern}, which must not be found: how long it took to say timeout. */
    private long timedTimeout(String session, String pattern, long waitMs) {
        long start = System.nanoTime();
        Map<String, Object> r = ok(client, "session_read", "session", session, "all", true, "wait_ms", waitMs,
                "until", Map.of("pattern", pattern));
        assertEquals("timeout", r.get("reason"), () -> brief(r));
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void aSlowPromptRegexIsSwitchedOffAndSaysSo() {
        // the last line (400 letters, no newline) is what the prompt regex is tried on
        String s = (String) ok(client, "session_open", "command", "bash", "mode", "pipe", "prompt", CATASTROPHIC,
                "args", List.of("-c", "head -c 400 /dev/zero | tr '\\0' a; exec sleep 60")).get("session");
        Map<String, Object> r = ok(client, "session_read", "session", s, "wait_ms", 3000, "until", Map.of("prompt", true));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (r.get("hint") == null && System.nanoTime() < deadline) {
            r = ok(client, "session_read", "session", s, "wait_ms", 500, "until", Map.of("prompt", true));
        }
        Map<String, Object> last = r;
        assertTrue(String.valueOf(r.get("hint")).contains("prompt regex"), () -> brief(last));
        assertEquals("running", r.get("state"));
        long start = System.nanoTime();
        ok(client, "session_list", "session", s);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took < MARGIN_MS, "session_list took " + took + " ms with the prompt regex off");
        ok(client, "session_close", "session", s, "force", true);
    }

    /** The server's CPU time stops growing: under a tenth of a core over some one-second window within 20 s. */
    private void assertCpuSettles() throws Exception {
        long pid = server.process().pid();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long used;
        do {
            long before = cpuTicks(pid);
            // a measuring window, not a wait for an event: CPU use is only seen over an interval
            TimeUnit.SECONDS.sleep(1);
            used = cpuTicks(pid) - before;
        } while (used >= 10 && System.nanoTime() < until);
        assertTrue(used < 10, "the server still used " + used + " CPU ticks (1/100 s) per second");
    }

    /** utime + stime of a process, in clock ticks. */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // fields 14 and 15 of stat(5); f[0] is field 3
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    // ---- children ----------------------------------------------------------------------------

    /** A unique `sleep` argument: processes carrying it were started by this test and nothing else. */
    private String token() {
        String t = "3001." + ThreadLocalRandom.current().nextInt(100_000, 1_000_000);
        tokens.add(t);
        return t;
    }

    /** 50 background sleeps, one that left the group and session (setsid), then the program exits. */
    private static String leaver(String token) {
        return "for i in $(seq 50); do sleep " + token + " & done; setsid sleep " + token + " & exit 0";
    }

    private String openLeaver(McpSyncClient c, String token) {
        String s = (String) ok(c, "session_open", "command", "bash", "mode", "pipe",
                "args", List.of("-c", leaver(token))).get("session");
        awaitTrue(() -> alive(token).size() == 51, "the 51 sleeps to start");
        Map<String, Object> r = ok(c, "session_read", "session", s, "wait_ms", 20000, "until", "exit");
        assertEquals("exited", r.get("state"), () -> brief(r));
        return s;
    }

    @Test
    void childrenEndWithTheirSessionEvenAfterTheProgramExited() {
        String token = token();
        String s = openLeaver(client, token);
        assertEquals(51, alive(token).size(), "the program exited; its children live on until close");
        Map<String, Object> closed = ok(client, "session_close", "session", s);
        assertNotNull(closed);
        assertEquals(List.of(), alive(token), "children alive after session_close");
    }

    @Test
    void backgroundJobsOfAnInteractiveShellEndWithTheSession() {
        String token = token();
        String s = (String) ok(client, "session_open", "command", "bash",
                "args", List.of("--norc", "--noprofile"), "env", Map.of("PS1", "$ ")).get("session");
        ok(client, "session_send", "session", s, "text",
                "sleep " + token + " & disown; setsid sleep " + token + " & disown", "wait_ms", 5000,
                "until", Map.of("prompt", true));
        awaitTrue(() -> alive(token).size() == 2, "the two sleeps to start");
        ok(client, "session_close", "session", s, "force", true);
        assertEquals(List.of(), alive(token), "jobs alive after session_close (force)");
    }

    @Test
    void childrenEndWithTheServer() throws Exception {
        Path dir = Files.createTempDirectory("itm-hostile-term");
        HttpServer own = new HttpServer(dir, List.of());
        String token = token();
        try {
            openLeaver(own.connect(n -> { }), token);
        } finally {
            own.close();
        }
        assertFalse(own.process().isAlive(), "the server did not exit on SIGTERM");
        assertEquals(List.of(), alive(token), "children alive after the server's SIGTERM");
    }

    // ---- minors ------------------------------------------------------------------------------

    @Test
    void closingASilentSessionReportsNoSkippedOutput() {
        String s = (String) ok(client, "session_open", "command", "sleep", "args", List.of("30"),
                "mode", "pipe").get("session");
        var r = Mcp.call(client, "session_close", "session", s);
        assertFalse(Boolean.TRUE.equals(r.isError()), () -> text(r));
        assertFalse(text(r).contains("no longer held"), () -> text(r));
    }

    @Test
    void theTranscriptStopsAtItsCapAndReadsSayTheRestIsGone() throws Exception {
        String s = (String) ok(client, "session_open", "command", "bash", "mode", "pipe",
                "args", List.of("-c", "head -c 300000 /dev/zero | tr '\\0' b")).get("session");
        Map<String, Object> r = ok(client, "session_read", "session", s, "wait_ms", 20000, "until", "exit",
                "max_bytes", 1_000_000);
        assertEquals("exited", r.get("state"), () -> brief(r));
        Path transcript = dataDir.resolve("sessions").resolve(s).resolve("transcript.log");
        String kept = Files.readString(transcript, StandardCharsets.UTF_8);
        assertTrue(kept.startsWith("b".repeat(TRANSCRIPT_CAP)), "the first bytes are kept");
        assertTrue(kept.substring(TRANSCRIPT_CAP).contains("transcript limit"), () -> kept.substring(TRANSCRIPT_CAP));
        assertTrue(kept.length() < TRANSCRIPT_CAP + 1000, "the transcript grew to " + kept.length());
        // a new reader gets what the transcript kept, then the memory tail, and is told what is gone between
        Map<String, Object> first = ok(client, "session_read", "session", s, "reader", "late", "force", true,
                "max_bytes", 1_000_000);
        assertEquals(TRANSCRIPT_CAP, ((String) first.get("data")).length(), () -> brief(first));
        Map<String, Object> rest = ok(client, "session_read", "session", s, "reader", "late", "force", true,
                "max_bytes", 1_000_000);
        assertEquals(TAIL, ((String) rest.get("data")).length(), () -> brief(rest));
        assertEquals(0L, Mcp.num(rest, "available"));
        assertTrue(String.valueOf(rest.get("hint")).contains((300_000 - TRANSCRIPT_CAP - TAIL)
                + " older bytes were no longer held"), () -> brief(rest));
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** A read result without its data, which may be long. */
    private static String brief(Map<String, Object> r) {
        Map<String, Object> b = new java.util.LinkedHashMap<>(r);
        b.computeIfPresent("data", (k, v) -> ((String) v).length() + " characters");
        return b.toString();
    }

    /** Polls (every 20 ms, up to 20 s) for a condition no event reports: processes appearing. */
    private static void awaitTrue(BooleanSupplier condition, String what) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < until, "timed out waiting for " + what);
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    /** Live processes whose command line carries {@code token} (zombies have none). */
    private static List<Long> alive(String token) {
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path dir : dirs) {
                try {
                    String cmdline = Files.readString(dir.resolve("cmdline"), StandardCharsets.ISO_8859_1);
                    if (cmdline.contains(token)) {
                        found.add(Long.parseLong(dir.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException gone) {
                    // ended while we looked
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return found;
    }
}
