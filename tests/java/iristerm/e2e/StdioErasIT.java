package iristerm.e2e;

import static iristerm.jsonrpc.PlainWords.assertPlain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

/**
 * One stdio process serving both eras: requests of MCP 2026-07-28 (the version in
 * {@code params._meta}, no initialize) at any time, statelessly, beside a 2025 session opened with
 * initialize; and every request answered at any time, whatever the handshake's state.
 */
class StdioErasIT {
    /** stdin closed with nothing running: the server ends about as fast as it starts, never after a wait */
    static final long PROMPT_EXIT_SECONDS = 15;

    @TempDir
    Path dataDir;

    @Test
    void everyRequestIsAnsweredWhateverTheHandshakeHasReached() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir)) {
            server.send(RawStdioServer.message(1, "tools/list", Map.of()));
            JsonNode early = server.answer(1);
            assertEquals(ErrorCodes.INVALID_REQUEST, early.path("error").path("code").asInt(), early::toString);
            says(early.path("error").path("message").asString(), "initialize", "2026-07-28");
            server.send(RawStdioServer.message(2, "ping", Map.of()));
            assertTrue(server.answer(2).has("result"));

            server.send(RawStdioServer.message(3, "initialize", Map.of("protocolVersion", "2025-11-25",
                    "capabilities", Map.of(), "clientInfo", Map.of("name", "raw", "version", "1"))));
            assertTrue(server.answer(3).has("result"));
            // between initialize and notifications/initialized: a ping is answered, anything else refused
            server.send(RawStdioServer.message(4, "ping", Map.of()));
            assertTrue(server.answer(4).has("result"));
            server.send(RawStdioServer.message(5, "tools/list", Map.of()));
            JsonNode between = server.answer(5);
            says(between.path("error").path("message").asString(), "notifications/initialized");

            server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            server.send(RawStdioServer.message(6, "tools/list", Map.of()));
            assertTrue(server.answer(6).path("result").path("tools").size() > 0);
            server.closeStdin();
            assertTrue(server.exitsWithin(PROMPT_EXIT_SECONDS), "the server lingered after stdin closed");
        }
    }

    @Test
    void modernRequestsAreServedStatelesslyBesideALegacySession() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir)) {
            Messages m = new Messages(server);
            JsonNode discover = m.call(modern(1, "server/discover", Map.of())).path("result");
            assertEquals("2026-07-28", discover.path("supportedVersions").get(0).asString(), discover::toString);
            assertEquals("complete", discover.path("resultType").asString());
            assertEquals("iris-terminal-mcp", discover.path("_meta").path("io.modelcontextprotocol/serverInfo")
                    .path("name").asString(), discover::toString);
            assertTrue(discover.has("ttlMs") && discover.has("cacheScope") && discover.has("instructions"));
            // no IRIS configured: the instructions teach no iris tool, and none is listed
            assertFalse(discover.path("instructions").asString().contains("iris_execute"), discover::toString);

            JsonNode tools = m.call(modern(2, "tools/list", Map.of())).path("result");
            assertEquals("complete", tools.path("resultType").asString());
            assertTrue(tools.path("tools").size() > 0 && tools.has("ttlMs"), tools::toString);
            for (JsonNode tool : tools.path("tools")) {
                assertFalse(tool.path("name").asString().startsWith("iris_"), tools::toString);
            }

            JsonNode unsupported = m.call(message(3, "tools/list", Map.of("_meta", Map.of(
                    "io.modelcontextprotocol/protocolVersion", "2099-01-01",
                    "io.modelcontextprotocol/clientCapabilities", Map.of()))));
            assertEquals(-32022, unsupported.path("error").path("code").asInt(), unsupported::toString);
            assertEquals("2026-07-28", unsupported.path("error").path("data").path("supported").get(0).asString());
            JsonNode noCapabilities = m.call(message(4, "tools/list", Map.of("_meta", Map.of(
                    "io.modelcontextprotocol/protocolVersion", "2026-07-28"))));
            assertEquals(ErrorCodes.INVALID_PARAMS, noCapabilities.path("error").path("code").asInt());
            says(noCapabilities.path("error").path("message").asString(), "clientCapabilities");
            for (String removed : List.of("ping", "logging/setLevel", "resources/subscribe", "no/such")) {
                JsonNode gone = m.call(modern(5, removed, Map.of()));
                assertEquals(ErrorCodes.METHOD_NOT_FOUND, gone.path("error").path("code").asInt(), gone::toString);
            }
            JsonNode missing = m.call(modern(6, "resources/read",
                    Map.of("uri", "iris-terminal://sessions/nosuch/transcript")));
            assertEquals(ErrorCodes.INVALID_PARAMS, missing.path("error").path("code").asInt(), missing::toString);

            JsonNode notify = m.call(modern(7, "tools/call", Map.of("name", "session_open",
                    "arguments", Map.of("command", "bash", "notify", true)))).path("result");
            assertTrue(notify.path("isError").asBoolean(), notify::toString);
            says(notify.path("content").get(0).path("text").asString(), "subscriptions/listen");

            // the 2025 handshake in the same process, unchanged, and modern requests go on beside it
            m.call(message(8, "initialize", Map.of("protocolVersion", "2025-11-25", "capabilities", Map.of(),
                    "clientInfo", Map.of("name", "raw", "version", "1"))));
            server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            JsonNode legacy = m.call(message(9, "tools/list", Map.of())).path("result");
            assertFalse(legacy.has("resultType"), "a 2025 answer stays as it was: " + legacy);
            assertEquals("complete", m.call(modern(10, "tools/list", Map.of())).path("result").path("resultType")
                    .asString());

            // an unknown tool is named, with the tools there are, in the same words in both eras
            JsonNode unknownLegacy = m.call(message(11, "tools/call", Map.of("name", "no_such_tool", "arguments", Map.of())));
            JsonNode unknownModern = m.call(modern(12, "tools/call", Map.of("name", "no_such_tool", "arguments", Map.of())));
            for (JsonNode unknown : List.of(unknownLegacy, unknownModern)) {
                assertEquals(ErrorCodes.INVALID_PARAMS, unknown.path("error").path("code").asInt(), unknown::toString);
                says(unknown.path("error").path("message").asString(), "\"no_such_tool\"", "session_open", "session_close");
            }
            assertEquals(unknownLegacy.path("error").path("message"), unknownModern.path("error").path("message"));
        }
    }

    @Test
    void aSubscriptionTellsOfOutputAndExitAndACancelledWaitEndsButNotItsSession() throws Exception {
        try (RawStdioServer server = new RawStdioServer(dataDir)) {
            Messages m = new Messages(server);
            JsonNode opened = m.call(modern(1, "tools/call", Map.of("name", "session_open",
                    "arguments", Map.of("command", "bash", "mode", "pipe")))).path("result").path("structuredContent");
            String session = opened.path("session").asString();
            String uri = "iris-terminal://sessions/" + session + "/transcript";

            server.send(modern("listen-1", "subscriptions/listen", Map.of("notifications", Map.of(
                    "resourceSubscriptions", List.of(uri, "iris-terminal://sessions/someone-else/transcript"),
                    "toolsListChanged", true))));
            JsonNode ack = m.next(n -> "notifications/subscriptions/acknowledged".equals(n.path("method").asString()));
            assertEquals("listen-1", ack.path("params").path("_meta").path("io.modelcontextprotocol/subscriptionId")
                    .asString(), ack::toString);
            assertEquals(List.of(uri), strings(ack.path("params").path("notifications").path("resourceSubscriptions")),
                    "only the caller's own transcript is honoured, and no list notifications: " + ack);

            // with a progressToken, the wait reports on the call's own messages (about once a second, when
            // output came since the last report: three seconds of it give at least one)
            JsonNode sent = m.call(modernWithProgress(2, "tools/call", Map.of("name", "session_send", "arguments",
                    Map.of("session", session, "text", "for i in 1 2 3; do sleep 1; echo tick-$i; done; echo hi-$((6*7))", "wait_ms", 20000,
                            "until", Map.of("pattern", "hi-42"))))).path("result");
            JsonNode progress = m.next(n -> "notifications/progress".equals(n.path("method").asString()));
            assertEquals("call-2", progress.path("params").path("progressToken").asString(), progress::toString);
            assertEquals("pattern", sent.path("structuredContent").path("reason").asString(), sent::toString);
            JsonNode updated = m.next(n -> "notifications/resources/updated".equals(n.path("method").asString()));
            assertEquals(uri, updated.path("params").path("uri").asString());
            assertEquals("listen-1", updated.path("params").path("_meta")
                    .path("io.modelcontextprotocol/subscriptionId").asString());

            JsonNode transcript = m.call(modern(3, "resources/read", Map.of("uri", uri))).path("result");
            assertTrue(transcript.path("contents").get(0).path("text").asString().contains("hi-42"), transcript::toString);
            assertEquals("private", transcript.path("cacheScope").asString());
            assertEquals(0, transcript.path("ttlMs").asInt(-1));

            // a read that would wait 50 s, cancelled: no answer comes, the session goes on
            server.send(modern(4, "tools/call", Map.of("name", "session_read", "arguments",
                    Map.of("session", session, "wait_ms", 50000, "until", Map.of("pattern", "never-printed")))));
            server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":4,"
                    + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
            JsonNode again = m.call(modern(5, "tools/call", Map.of("name", "session_send", "arguments",
                    Map.of("session", session, "text", "echo still-$((6*7))", "wait_ms", 10000,
                            "until", Map.of("pattern", "still-42"))))).path("result");
            assertEquals("pattern", again.path("structuredContent").path("reason").asString(), again::toString);

            // subscriptions are bounded per identity; the 33rd is refused in plain words
            for (int i = 0; i < 31; i++) {
                server.send(modern("more-" + i, "subscriptions/listen", Map.of("notifications", Map.of())));
                m.next(n -> "notifications/subscriptions/acknowledged".equals(n.path("method").asString()));
            }
            JsonNode tooMany = m.call(modern(7, "subscriptions/listen", Map.of("notifications", Map.of())));
            says(tooMany.path("error").path("message").asString(), "too many subscriptions");

            m.call(modern(6, "tools/call", Map.of("name", "session_close", "arguments", Map.of("session", session))));
            m.next(n -> "notifications/resources/updated".equals(n.path("method").asString()));
            server.closeStdin();
            // the cancelled read no longer holds the end of input back for its 50 s
            assertTrue(server.exitsWithin(PROMPT_EXIT_SECONDS), "the cancelled wait went on");
            assertTrue(m.seen.stream().noneMatch(n -> n.path("id").asInt(-1) == 4), () -> "cancelled, yet answered: "
                    + m.seen);
        }
    }

    /** Asserts a message in plain words that names each of {@code words}. */
    static void says(String message, String... words) {
        // the protocol's own _meta keys look like Java packages to the check, and are no Java internals
        assertPlain(message.replace("io.modelcontextprotocol/", ""));
        for (String w : words) {
            assertTrue(message.contains(w), () -> "'" + message + "' does not mention " + w);
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }

    static String modern(Object id, String method, Map<String, Object> params) {
        Map<String, Object> p = new LinkedHashMap<>(params);
        p.put("_meta", Map.of("io.modelcontextprotocol/protocolVersion", "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities", Map.of(),
                "io.modelcontextprotocol/clientInfo", Map.of("name", "raw", "version", "1")));
        return message(id, method, p);
    }

    /** A modern request whose {@code _meta} asks for progress with the token {@code call-<id>}. */
    private static String modernWithProgress(int id, String method, Map<String, Object> params) {
        Map<String, Object> p = new LinkedHashMap<>(params);
        p.put("_meta", Map.of("io.modelcontextprotocol/protocolVersion", "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities", Map.of(), "progressToken", "call-" + id));
        return message(id, method, p);
    }

    private static String message(Object id, String method, Map<String, Object> params) {
        return RawStdioServer.message(id, method, params);
    }

    /** The server's lines in order, picked out by what a test waits for; everything read is kept. */
    static final class Messages {
        private final RawStdioServer server;
        final List<JsonNode> seen = new ArrayList<>();
        private final java.util.Set<Integer> taken = new java.util.HashSet<>();

        Messages(RawStdioServer server) {
            this.server = server;
        }

        JsonNode call(String request) throws Exception {
            int id = Json.MAPPER.readTree(request).path("id").asInt();
            server.send(request);
            return next(n -> n.has("id") && !n.has("method") && n.path("id").asInt(-1) == id);
        }

        /** The first message not yet taken that matches; waits (bounded by the server's own answer wait) for more. */
        JsonNode next(java.util.function.Predicate<JsonNode> wanted) throws Exception {
            for (int i = 0; ; i++) {
                while (i >= seen.size()) {
                    seen.add(server.next());
                }
                if (!taken.contains(i) && wanted.test(seen.get(i))) {
                    taken.add(i);
                    return seen.get(i);
                }
            }
        }
    }
}
