package iristerm.e2e;

import static iristerm.jsonrpc.PlainWords.assertPlain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import tools.jackson.databind.JsonNode;

/**
 * The stdio server against what a broken or hostile client writes: each kind of garbage is
 * answered (or skipped) and the next request is still answered; the end of stdin ends the server
 * only after the requests in flight are answered, and takes the sessions' processes with it.
 */
class StdioHostileIT {
    @TempDir
    Path dataDir;

    /** A line to send and the JSON-RPC error code it must be answered with (null: no answer, skipped). */
    private record Garbage(String name, byte[] line, Integer code) {
        static Garbage of(String name, String line, Integer code) {
            return new Garbage(name, (line + "\n").getBytes(StandardCharsets.UTF_8), code);
        }
    }

    private static final String PING_7 = RawStdioServer.message(7, "ping", Map.of());

    private static List<Garbage> garbage() {
        byte[] nuls = {0, 0, 0, '\n'};
        // a valid ping made longer than the 16 MiB line limit: refused whole, never answered as ping 99
        String overlong = "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\",\"params\":{\"pad\":\""
                + "x".repeat(17 * 1024 * 1024) + "\"}}";
        return List.of(
                Garbage.of("empty line", "", null),
                Garbage.of("whitespace", " \t  \r", null),
                Garbage.of("{}", "{}", ErrorCodes.INVALID_REQUEST),
                Garbage.of("[]", "[]", ErrorCodes.INVALID_REQUEST),
                Garbage.of("batch", "[" + PING_7 + "," + PING_7 + "]", ErrorCodes.INVALID_REQUEST),
                Garbage.of("invalid JSON", "{\"jsonrpc\": \"2.0\", \"id\": ", ErrorCodes.PARSE_ERROR),
                new Garbage("NUL bytes", nuls, ErrorCodes.PARSE_ERROR),
                Garbage.of("two messages on one line", PING_7 + PING_7, ErrorCodes.PARSE_ERROR),
                Garbage.of("600-deep nesting", "[".repeat(600) + "]".repeat(600), ErrorCodes.PARSE_ERROR),
                Garbage.of("a 17 Mi-character line", overlong, ErrorCodes.INVALID_REQUEST));
    }

    @Test
    void everyKindOfGarbageIsAnsweredOrSkippedAndTheNextRequestIsAnswered() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir).initialized()) {
            int id = 100;
            for (Garbage g : garbage()) {
                server.sendBytes(g.line());
                server.send(RawStdioServer.message(++id, "ping", Map.of()));
                if (g.code() != null) {
                    JsonNode error = server.next();
                    assertTrue(error.has("id") && error.get("id").isNull(), g.name() + ": " + error);
                    assertEquals(g.code().intValue(), error.path("error").path("code").asInt(), g.name() + ": " + error);
                    assertPlain(error.path("error").path("message").asString());
                }
                JsonNode pong = server.answer(id);
                assertTrue(pong.has("result"), g.name() + ": " + pong);
            }
            server.closeStdin();
            assertEquals(0, server.exitCode());
            assertEquals(List.of(), server.untilEnd(), "nothing more after the last ping");
        }
    }

    @Test
    void protocolMistakesGetPreciseErrorsInPlainWords() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir).initialized()) {
            server.send("{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}");
            expectError(server.answer(2), ErrorCodes.INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");

            server.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":null}");
            expectError(server.answer(3), ErrorCodes.INVALID_PARAMS, "\"name\"");

            server.send("{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"ping\"}");
            JsonNode lone = server.next();
            assertTrue(lone.get("id").isNull(), lone::toString);
            expectError(lone, ErrorCodes.INVALID_REQUEST, "\"id\"");

            server.send(RawStdioServer.message(4, "logging/setLevel", Map.of("level", "loud")));
            expectError(server.answer(4), ErrorCodes.INVALID_PARAMS, "unknown logging level");

            server.send(RawStdioServer.message(5, "resources/read",
                    Map.of("uri", "iris-terminal://sessions/nope/transcript")));
            expectError(server.answer(5), ErrorCodes.RESOURCE_NOT_FOUND, "no session 'nope'");

            server.send(RawStdioServer.message(6, "tools/call",
                    Map.of("name", "session_open", "arguments", Map.of("command", "a\0b"))));
            JsonNode nul = server.answer(6).get("result");
            assertTrue(nul.path("isError").asBoolean(), nul::toString);
            String text = nul.path("content").get(0).path("text").asString();
            assertTrue(text.contains("invalid argument"), text);
            assertPlain(text);

            server.send(RawStdioServer.message(7, "ping", Map.of()));
            assertTrue(server.answer(7).has("result"));
            server.closeStdin();
            assertEquals(0, server.exitCode());
            // client mistakes leave no stack trace in the log
            assertFalse(server.stderr().contains("\tat "), server.stderr());
        }
    }

    private static void expectError(JsonNode answer, int code, String says) {
        assertEquals(code, answer.path("error").path("code").asInt(), answer::toString);
        String message = answer.path("error").path("message").asString();
        assertTrue(message.contains(says), message);
        assertPlain(message);
    }

    /** What {@code printf 'init\ninitialized\nping\n' | java -jar … stdio} does: everything is answered. */
    @Test
    void inputThatEndsRightAfterItsRequestsIsAllAnswered() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir)) {
            String all = RawStdioServer.message(1, "initialize", Map.of("protocolVersion", "2025-06-18",
                    "capabilities", Map.of(), "clientInfo", Map.of("name", "printf", "version", "1")))
                    + "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                    + RawStdioServer.message(2, "ping", Map.of()) + "\n"
                    + RawStdioServer.message(3, "tools/list", Map.of()) + "\n";
            server.sendBytes(all.getBytes(StandardCharsets.UTF_8));
            server.closeStdin();
            List<JsonNode> answers = server.untilEnd();
            assertEquals(List.of(1, 2, 3), answers.stream().map(a -> a.path("id").asInt()).sorted().toList(),
                    answers::toString);
            assertTrue(answers.stream().allMatch(a -> a.has("result")), answers::toString);
            assertEquals(0, server.exitCode());
        }
    }

    @Test
    void endOfInputDuringAWaitingSendAnswersItThenEndsTheSessionsProcess() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir).initialized()) {
            server.send(RawStdioServer.message(2, "tools/call", Map.of("name", "session_open",
                    "arguments", Map.of("command", "bash", "mode", "pipe"))));
            JsonNode opened = server.answer(2).path("result").path("structuredContent");
            String session = opened.path("session").asString();
            long pid = opened.path("pid").asLong();
            assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), opened::toString);

            server.send(RawStdioServer.message(3, "tools/call", Map.of("name", "session_send", "arguments",
                    Map.of("session", session, "text", "sleep 2; echo finished-$((6*7))", "wait_ms", 30000,
                            "until", Map.of("pattern", "finished-42")))));
            server.closeStdin();

            JsonNode sent = server.answer(3).path("result");
            assertFalse(sent.path("isError").asBoolean(), sent::toString);
            assertEquals("pattern", sent.path("structuredContent").path("reason").asString(), sent::toString);
            assertTrue(sent.path("structuredContent").path("data").asString().contains("finished-42"), sent::toString);
            assertEquals(0, server.exitCode());
            ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                    "the session's bash outlived the server");
        }
    }

    /**
     * Requests run side by side: calls sent while one waits are answered before it, and forty
     * answers written at once by their own threads arrive as forty whole lines.
     */
    @Test
    void aWaitingCallHoldsUpNoOtherAndAnswersWrittenAtOnceStayWholeLines() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir).initialized()) {
            server.send(RawStdioServer.message(2, "tools/call", Map.of("name", "session_open",
                    "arguments", Map.of("command", "cat", "mode", "pipe", "wait_ms", 0))));
            String session = server.answer(2).path("result").path("structuredContent").path("session").asString();
            server.send(RawStdioServer.message(3, "tools/call", Map.of("name", "session_read", "arguments",
                    Map.of("session", session, "wait_ms", 50000, "until", Map.of("pattern", "release-\\d+")))));
            StringBuilder burst = new StringBuilder();
            for (int id = 10; id < 50; id++) {
                burst.append(RawStdioServer.message(id, "tools/call", Map.of("name", "session_list",
                        "arguments", Map.of()))).append('\n');
            }
            server.sendBytes(burst.toString().getBytes(StandardCharsets.UTF_8));
            java.util.Set<Integer> answered = new java.util.TreeSet<>();
            for (int i = 0; i < 40; i++) {
                JsonNode n = server.next();
                assertTrue(n.path("result").path("structuredContent").has("sessions"), n::toString);
                answered.add(n.path("id").asInt());
            }
            assertEquals(40, answered.size(), answered::toString);
            server.send(RawStdioServer.message(4, "tools/call", Map.of("name", "session_send",
                    "arguments", Map.of("session", session, "text", "release-7", "wait_ms", 0))));
            JsonNode first = server.next();
            JsonNode second = server.next();
            JsonNode read = first.path("id").asInt() == 3 ? first : second;
            assertEquals(3, read.path("id").asInt(), () -> first + " / " + second);
            assertEquals("pattern", read.path("result").path("structuredContent").path("reason").asString(),
                    read::toString);
        }
    }

    /** The SDK's own client still works over the new transport, and closing it ends the server. */
    @Test
    void theSdkClientWorksAsBefore() throws Exception {
        StdioServer server = new StdioServer(dataDir, List.of());
        try {
            McpSyncClient client = server.connect(log -> { });
            Map<String, Object> opened = Mcp.ok(client, "session_open", "command", "bash", "mode", "pipe");
            Map<String, Object> read = Mcp.ok(client, "session_send", "session", opened.get("session"),
                    "text", "echo $((20+22))", "wait_ms", 20000, "until", Map.of("pattern", "42"));
            assertTrue(String.valueOf(read.get("data")).contains("42"), read::toString);
            McpSchema.ListToolsResult tools = client.listTools();
            assertTrue(tools.tools().stream().anyMatch(t -> t.name().equals("session_send")));
        } finally {
            server.close();
        }
    }

    /** Issue 22: session_signal and session_close get through while every request thread waits. */
    @Test
    void closeAndSignalGetThroughWhileEveryRequestThreadWaits() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir).initialized()) {
            // a program that ignores INT: the signal changes nothing, so the waits go on
            server.send(RawStdioServer.message(1, "tools/call", Map.of("name", "session_open", "arguments",
                    Map.of("command", "sh", "args", List.of("-c", "trap '' INT; exec sleep 300"), "mode", "pipe",
                            "wait_ms", 0))));
            String s = server.answer(1).path("result").path("structuredContent").path("session").asString();
            // more waits than the request threads (10 per core), each for 25 s
            int waits = 10 * Runtime.getRuntime().availableProcessors() + 5;
            for (int i = 0; i < waits; i++) {
                server.send(RawStdioServer.message(100 + i, "tools/call", Map.of("name", "session_read", "arguments",
                        Map.of("session", s, "wait_ms", 25000, "until", Map.of("pattern", "never-printed")))));
            }
            server.send(RawStdioServer.message(2, "tools/call", Map.of("name", "session_signal", "arguments",
                    Map.of("session", s, "signal", "INT"))));
            JsonNode signalled = server.next();
            assertEquals(2, signalled.path("id").asInt(), () -> "the signal waited behind the reads: " + signalled);
            server.send(RawStdioServer.message(3, "tools/call", Map.of("name", "session_close", "arguments",
                    Map.of("session", s, "force", true))));
            JsonNode closed = server.next();
            while (closed.path("id").asInt() >= 100) {
                // the waits end as the session does; the close's own answer follows
                closed = server.next();
            }
            assertEquals(3, closed.path("id").asInt(), closed.toString());
        }
    }
}
