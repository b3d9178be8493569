package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static iristerm.e2e.Mcp.call;
import static iristerm.e2e.Mcp.error;
import static iristerm.e2e.Mcp.num;
import static iristerm.e2e.Mcp.ok;
import static iristerm.e2e.Mcp.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Input a program does not read, over real HTTP with two identities: a write that cannot go in is
 * bounded by its call's wait, and while one identity has more calls waiting than a pool has threads,
 * the other identity's calls, and the first one's own session_signal and session_close, are answered
 * at once.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class StuckInputIT {
    private static final String ALICE = "alice-token-0123456789";
    private static final String BOB = "bob-token-0123456789abc";
    /** the threads a shared pool had for every identity's calls (10 per core): more calls than that wait */
    private static final int POOL = 10 * Runtime.getRuntime().availableProcessors();
    /** more than a pipe holds (64 KiB), so a program that does not read blocks its writer */
    private static final String PASTE = "y".repeat(256 * 1024);
    /** how long each of the flood's sends may wait: far longer than the checks made meanwhile */
    private static final int FLOOD_WAIT_MS = 30_000;
    /** what an answer that must not wait for anything may take on a loaded 2-core machine */
    private static final long PROMPT_MS = 3_000;

    @Test
    void stuckWritesHoldNeitherAnotherIdentityNorCloseAndSignal() throws Exception {
        Path dir = Files.createTempDirectory("itm-stuck");
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "alice " + ALICE + "\nbob " + BOB + "\n");
        ExecutorService callers = Executors.newCachedThreadPool();
        try (HttpServer server = new HttpServer(dir.resolve("data"), List.of("--tokens-file", tokens.toString()))) {
            McpSyncClient alice = server.connect(ALICE, n -> { });
            McpSyncClient bob = server.connect(BOB, n -> { });

            // one send is bounded by its wait and says what became of the input
            String first = openSleeper(alice);
            long t0 = System.nanoTime();
            Map<String, Object> sent = ok(alice, "session_send", "session", first, "text", PASTE, "wait_ms", 1000);
            assertTrue(millisSince(t0) < 1000 + PROMPT_MS, "send took " + millisSince(t0) + " ms");
            assertEquals(PASTE.length() + 1, num(sent, "written") + num(sent, "queued"), sent.toString());
            assertTrue(num(sent, "queued") > 0, sent.toString());
            assertTrue(String.valueOf(sent.get("hint")).contains("has not taken all of its input"), sent.toString());
            // and what waits for the program is capped: a further megabyte is refused whole
            String refused = error(alice, "session_send", "session", first, "text", "z".repeat((1 << 20) - 1),
                    "wait_ms", 0);
            assertTrue(refused.contains("nothing of it was written"), refused);

            // more stuck sends than a pool has threads, each waiting long
            List<String> sessions = new ArrayList<>();
            for (int i = 0; i < POOL + 4; i++) {
                sessions.add(openSleeper(alice));
            }
            List<CompletableFuture<McpSchema.CallToolResult>> flood = sessions.stream()
                    .map(s -> CompletableFuture.supplyAsync(() -> call(alice, "session_send", "session", s,
                            "text", PASTE, "wait_ms", FLOOD_WAIT_MS), callers))
                    .toList();
            awaitBlockedWriters(server.process().pid(), POOL);

            // the other identity is answered at once, and its own input goes in
            long t1 = System.nanoTime();
            ok(bob, "session_list");
            assertTrue(millisSince(t1) < PROMPT_MS, "bob's session_list took " + millisSince(t1) + " ms");
            String bobs = (String) ok(bob, "session_open", "command", "cat", "mode", "pipe", "wait_ms", 0)
                    .get("session");
            Map<String, Object> echoed = ok(bob, "session_send", "session", bobs, "text", "hello-bob",
                    "wait_ms", 5000, "until", Map.of("pattern", "hello-bob"));
            assertEquals("pattern", echoed.get("reason"), echoed.toString());
            assertTrue(millisSince(t1) < 2 * PROMPT_MS, "bob's calls took " + millisSince(t1) + " ms");

            // alice's own signal and close get past her waiting sends
            long waiting = flood.stream().filter(f -> !f.isDone()).count();
            assertTrue(waiting > POOL, "only " + waiting + " sends still wait: the checks did not run behind them");
            long t2 = System.nanoTime();
            ok(alice, "session_signal", "session", sessions.get(0), "signal", "TERM");
            long signalled = millisSince(t2);
            assertTrue(signalled < PROMPT_MS, "session_signal took " + signalled + " ms");
            long t3 = System.nanoTime();
            ok(alice, "session_close", "session", sessions.get(1), "grace_ms", 0);
            long closed = millisSince(t3);
            assertTrue(closed < PROMPT_MS, "session_close took " + closed + " ms");
            for (String s : sessions.subList(2, sessions.size())) {
                ok(alice, "session_close", "session", s, "grace_ms", 0);
            }

            // every stuck send is answered, none later than its bound (the last ones waited for a thread)
            CompletableFuture.allOf(flood.toArray(CompletableFuture[]::new)).get(2L * FLOOD_WAIT_MS + 10_000,
                    TimeUnit.MILLISECONDS);
            for (CompletableFuture<McpSchema.CallToolResult> f : flood) {
                String answer = text(f.get());
                assertTrue(Stream.of("did not take the input", "has exited", "has not taken all").anyMatch(answer::contains),
                        answer);
            }
            ok(alice, "session_close", "session", first, "grace_ms", 0);
        } finally {
            callers.shutdownNow();
        }
    }

    private static String openSleeper(McpSyncClient client) {
        return (String) ok(client, "session_open", "command", "sleep", "args", List.of("1000"), "mode", "pipe",
                "wait_ms", 0).get("session");
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** Waits (bounded) until at least {@code count} of the server's threads are blocked writing to a pipe. */
    private static void awaitBlockedWriters(long pid, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int blocked = 0;
        while (System.nanoTime() < deadline) {
            blocked = blockedWriters(pid);
            if (blocked >= count) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new AssertionError("only " + blocked + " of " + count + " writes reached the program's pipe in 60 s");
    }

    private static int blockedWriters(long pid) throws IOException {
        int n = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path t : tasks.toList()) {
                try {
                    if (Files.readString(t.resolve("wchan")).contains("pipe_write")) {
                        n++;
                    }
                } catch (IOException gone) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return n;
    }
}
