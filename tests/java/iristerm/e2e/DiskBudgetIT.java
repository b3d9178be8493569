package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static iristerm.e2e.Mcp.num;
import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What transcripts take on disk, over real HTTP with real output: a session's transcript is capped by
 * default, and all transcripts together stay within the data directory's budget, the oldest ended
 * sessions going first; output past a bound is still read from memory.
 */
@Timeout(180)
class DiskBudgetIT {
    private static final int MIB = 1 << 20;
    /** the default per-session cap, as README states it */
    private static final long DEFAULT_TRANSCRIPT_CAP = 64L * MIB;
    private static final long BUDGET = 300_000;
    private static final int PRINTED = 120_000;
    /** the closing note a transcript gets at a bound */
    private static final long NOTE = 200;

    @Test
    void aSessionsTranscriptIsCappedByDefault() throws Exception {
        Path data = Files.createTempDirectory("itm-disk-default");
        try (HttpServer server = new HttpServer(data, List.of())) {
            McpSyncClient c = server.connect(n -> { }, p -> { });
            long printed = 70L * MIB;
            String s = printer(c, printed, 'c');
            awaitBytes(c, s, printed);
            long size = Files.size(transcript(data, s));
            assertTrue(size >= DEFAULT_TRANSCRIPT_CAP && size < DEFAULT_TRANSCRIPT_CAP + NOTE,
                    "a " + printed + "-byte output left a " + size + "-byte transcript");
        }
    }

    @Test
    void theOldestEndedSessionsGoFirstAndLiveOutputPastTheBudgetStaysInMemory() throws Exception {
        Path data = Files.createTempDirectory("itm-disk-budget");
        try (HttpServer server = new HttpServer(data, List.of("--max-data-bytes", Long.toString(BUDGET)))) {
            McpSyncClient c = server.connect(n -> { }, p -> { });
            String a = ended(c, printer(c, PRINTED, 'a'));
            String b = ended(c, printer(c, PRINTED, 'b'));
            assertTrue(Files.exists(transcript(data, a)) && Files.exists(transcript(data, b)));
            // a third one does not fit beside them: the session that ended first goes
            String third = ended(c, printer(c, PRINTED, 'd'));
            assertFalse(Files.exists(transcript(data, a).getParent()), "the oldest ended session is still on disk");
            assertTrue(Files.exists(transcript(data, b)) && Files.exists(transcript(data, third)));
            assertFalse(sessions(c).contains(a), "a removed session is still listed");
            assertTrue(onDisk(data) <= BUDGET, "transcripts take " + onDisk(data) + " bytes");

            // more than the whole budget from one live session: the ended ones go, then its transcript stops
            long big = 2 * BUDGET;
            String live = ended(c, printer(c, big, 'e'));
            assertTrue(onDisk(data) <= BUDGET + NOTE, "transcripts take " + onDisk(data) + " bytes");
            assertTrue(Files.readString(transcript(data, live)).contains("data directory's limit"));
            Map<String, Object> all = ok(c, "session_read", "session", live, "all", true, "max_bytes", 2 * MIB);
            assertEquals(big, ((String) all.get("data")).length(), "output past the budget is read from memory");
        }
    }

    /** A session that prints {@code bytes} of {@code fill} and exits. */
    private static String printer(McpSyncClient c, long bytes, char fill) {
        return (String) ok(c, "session_open", "command", "bash", "mode", "pipe", "wait_ms", 0, "args",
                List.of("-c", "head -c " + bytes + " /dev/zero | tr '\\0' " + fill)).get("session");
    }

    /** Waits (bounded) until the session has exited, and returns it. */
    private static String ended(McpSyncClient c, String s) {
        Map<String, Object> r = ok(c, "session_read", "session", s, "wait_ms", 30000, "until", "exit",
                "to_file", "out-" + s + ".txt");
        assertEquals("exited", r.get("state"), r::toString);
        return s;
    }

    /** Waits (bounded) until the session has written {@code bytes}. */
    @SuppressWarnings("unchecked")
    private static void awaitBytes(McpSyncClient c, String s, long bytes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long seen = 0;
        while (System.nanoTime() < deadline) {
            Map<String, Object> row = ((List<Map<String, Object>>) ok(c, "session_list", "session", s)
                    .get("sessions")).get(0);
            seen = num(row, "bytes");
            if (seen >= bytes && "exited".equals(row.get("state"))) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("the session wrote " + seen + " of " + bytes + " bytes in 60 s");
    }

    @SuppressWarnings("unchecked")
    private static List<String> sessions(McpSyncClient c) {
        return ((List<Map<String, Object>>) ok(c, "session_list").get("sessions")).stream()
                .map(m -> (String) m.get("session")).toList();
    }

    private static Path transcript(Path data, String s) {
        return data.resolve("sessions").resolve(s).resolve("transcript.log");
    }

    private static long onDisk(Path data) throws Exception {
        try (Stream<Path> files = Files.walk(data.resolve("sessions"))) {
            return files.filter(p -> p.getFileName().toString().equals("transcript.log"))
                    .mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
