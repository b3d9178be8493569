package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a session left running when its server was killed (SIGKILL: nothing of it ran its shutdown) is
 * ended by the next server started on the same data directory.
 */
@Timeout(120)
class OrphansIT {
    /** a sleep no other process on the machine runs, by which the test finds its own */
    private static final String MARK = "987653";

    @Test
    void aRestartEndsWhatTheKilledServersSessionsLeftRunning() throws Exception {
        Path data = Files.createTempDirectory("itm-orphans");
        try {
            try (HttpServer first = new HttpServer(data, List.of())) {
                McpSyncClient c = first.connect(n -> { }, p -> { });
                String s = (String) ok(c, "session_open", "command", "bash", "mode", "pipe", "wait_ms", 0).get("session");
                Map<String, Object> r = ok(c, "session_send", "session", s, "text",
                        "setsid sleep " + MARK + " & sleep " + MARK + "1 & echo started-$((1+1))", "wait_ms", 10000,
                        "until", Map.of("pattern", "started-2"));
                assertEquals("pattern", r.get("reason"), r::toString);
                assertEquals(2, sleepers().size(), "the session's jobs did not start: " + sleepers());
                first.process().destroyForcibly();
                assertTrue(first.process().waitFor(20, TimeUnit.SECONDS), "the server did not die");
            }
            assertEquals(2, sleepers().size(), "the jobs did not outlive the killed server; nothing to test");
            try (HttpServer second = new HttpServer(data, List.of())) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!sleepers().isEmpty() && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(100);
                }
                assertEquals(List.of(), sleepers(), "the restarted server left the earlier sessions' jobs running");
            }
        } finally {
            for (long pid : sleepers()) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** Live processes of this user running the test's sleeps. */
    private static List<Long> sleepers() throws IOException {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(OrphansIT::isTestSleep)
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .toList();
        }
    }

    private static boolean isTestSleep(Path proc) {
        try {
            String cmd = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
            String stat = Files.readString(proc.resolve("stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return cmd.startsWith("sleep\0" + MARK) && state != 'Z';
        } catch (IOException | RuntimeException gone) {
            return false;
        }
    }
}
