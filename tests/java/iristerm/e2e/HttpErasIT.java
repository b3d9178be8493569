package iristerm.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

/**
 * One Streamable HTTP endpoint ({@code serve}) serving both eras: POSTs of MCP 2026-07-28 with no
 * session, their headers checked against their bodies, beside the 2025 sessions; and every error
 * answering a POST whose body could be read echoes the request's id, in both eras.
 */
class HttpErasIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    @TempDir
    static Path dataDir;
    private static ServeProcess serve;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        serve = ServeProcess.start(StdioServer.jar(), dataDir, List.of("--no-auth"), 60);
    }

    @AfterAll
    static void stop() {
        serve.close();
    }

    @Test
    void headerLevelRejectionsOfBothErasEchoTheRequestId() throws Exception {
        JsonNode noSession = body(post(legacy(41, "tools/list"), Map.of("MCP-Protocol-Version", "2025-11-25")), 400);
        assertEquals(41, noSession.path("id").asInt(), noSession::toString);
        JsonNode badVersion = body(post(legacy(42, "tools/list"), Map.of("MCP-Protocol-Version", "1999-01-01")), 400);
        assertEquals(42, badVersion.path("id").asInt(), badVersion::toString);
        JsonNode unknown = body(post(legacy(43, "tools/list"), Map.of("Mcp-Session-Id", "no-such-session")), 404);
        assertEquals(43, unknown.path("id").asInt(), unknown::toString);
        JsonNode modern = body(post(modern(44, "tools/list", Map.of()), Map.of("MCP-Protocol-Version", "2026-07-28")),
                400);
        assertEquals(44, modern.path("id").asInt(), modern::toString);
        assertEquals(-32020, modern.path("error").path("code").asInt(), modern::toString);
    }

    @Test
    void modernRequestsAreCheckedAndServedWithoutASession() throws Exception {
        HttpResponse<String> discovered = post(modern(1, "server/discover", Map.of()), headers("server/discover", null));
        JsonNode discover = body(discovered, 200).path("result");
        assertFalse(discovered.headers().firstValue("Mcp-Session-Id").isPresent(), "no MCP session on this lane");
        assertEquals("2026-07-28", discover.path("supportedVersions").get(0).asString(), discover::toString);
        assertEquals("complete", discover.path("resultType").asString());

        JsonNode badName = body(post(modern(2, "tools/call", Map.of("name", "session_list", "arguments", Map.of())),
                headers("tools/call", "session_read")), 400);
        assertEquals(-32020, badName.path("error").path("code").asInt(), badName::toString);
        assertEquals(2, badName.path("id").asInt());
        JsonNode noName = body(post(modern(3, "tools/call", Map.of("name", "session_list", "arguments", Map.of())),
                headers("tools/call", null)), 400);
        assertEquals(-32020, noName.path("error").path("code").asInt(), noName::toString);
        JsonNode wrongMethod = body(post(modern(4, "tools/list", Map.of()), headers("tools/call", null)), 400);
        assertEquals(-32020, wrongMethod.path("error").path("code").asInt(), wrongMethod::toString);
        JsonNode badBase64 = body(post(modern(5, "tools/call", Map.of("name", "session_list", "arguments", Map.of())),
                headers("tools/call", "=?base64?not base64!?=")), 400);
        assertEquals(-32020, badBase64.path("error").path("code").asInt(), badBase64::toString);

        String encoded = "=?base64?" + Base64.getEncoder().encodeToString("session_list".getBytes(StandardCharsets.UTF_8))
                + "?=";
        HttpResponse<String> listed = post(modern(6, "tools/call", Map.of("name", "session_list", "arguments", Map.of())),
                headers("tools/call", encoded));
        assertEquals(200, listed.statusCode(), listed::body);
        JsonNode list = events(listed.body()).get(0);
        assertEquals("complete", list.path("result").path("resultType").asString(), list::toString);

        String future = Json.MAPPER.writeValueAsString(Map.of("jsonrpc", "2.0", "id", 7, "method", "tools/list",
                "params", Map.of("_meta", Map.of("io.modelcontextprotocol/protocolVersion", "2099-01-01",
                        "io.modelcontextprotocol/clientCapabilities", Map.of()))));
        JsonNode unsupported = body(post(future, Map.of("MCP-Protocol-Version", "2099-01-01", "Mcp-Method",
                "tools/list")), 400);
        assertEquals(-32022, unsupported.path("error").path("code").asInt(), unsupported::toString);
        assertEquals("2026-07-28", unsupported.path("error").path("data").path("supported").get(0).asString());

        JsonNode ping = body(post(modern(8, "ping", Map.of()), headers("ping", null)), 404);
        assertEquals(ErrorCodes.METHOD_NOT_FOUND, ping.path("error").path("code").asInt(), ping::toString);
        JsonNode bare = body(post(legacy(9, "tools/list"), Map.of("MCP-Protocol-Version", "2026-07-28",
                "Mcp-Method", "tools/list")), 400);
        assertEquals(ErrorCodes.INVALID_PARAMS, bare.path("error").path("code").asInt(), bare::toString);
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(serve.endpoint()).timeout(WAIT)
                .header("Accept", "text/event-stream").header("MCP-Protocol-Version", "2026-07-28").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode(), get::body);
    }

    @Test
    void anUnknownToolIsNamedWithTheToolsThereAreInBothEras() throws Exception {
        HttpResponse<String> init = post(RawStdioServer.message(1, "initialize", Map.of("protocolVersion", "2025-11-25",
                "capabilities", Map.of(), "clientInfo", Map.of("name", "raw", "version", "1"))), Map.of());
        assertEquals(200, init.statusCode(), init::body);
        Map<String, String> session = Map.of("Mcp-Session-Id", init.headers().firstValue("Mcp-Session-Id").orElseThrow(),
                "MCP-Protocol-Version", "2025-11-25");
        assertEquals(202, post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session).statusCode());
        Map<String, Object> call = Map.of("name", "no_such_tool", "arguments", Map.of());
        // on the call's event stream, after its priming event, as every tool call's answer
        JsonNode legacy = events(post(RawStdioServer.message(2, "tools/call", call), session).body()).get(0);
        JsonNode modern = events(post(modern(3, "tools/call", call), headers("tools/call", "no_such_tool")).body()).get(0);
        for (JsonNode unknown : List.of(legacy, modern)) {
            assertEquals(ErrorCodes.INVALID_PARAMS, unknown.path("error").path("code").asInt(), unknown::toString);
            StdioErasIT.says(unknown.path("error").path("message").asString(), "\"no_such_tool\"", "session_open",
                    "session_close");
        }
        assertEquals(legacy.path("error").path("message"), modern.path("error").path("message"));
        assertEquals(2, legacy.path("id").asInt(), legacy::toString);
    }

    @Test
    void aSubscriptionStreamTellsOfOutputAndAClosedCallStreamLeavesTheSessionRunning() throws Exception {
        JsonNode opened = events(post(modern(1, "tools/call", Map.of("name", "session_open",
                "arguments", Map.of("command", "bash", "mode", "pipe"))), headers("tools/call", "session_open")).body())
                .get(0).path("result").path("structuredContent");
        String session = opened.path("session").asString();
        String uri = "iris-terminal://sessions/" + session + "/transcript";

        HttpResponse<Stream<String>> listen = http.send(request(modern("l1", "subscriptions/listen",
                Map.of("notifications", Map.of("resourceSubscriptions", List.of(uri)))),
                headers("subscriptions/listen", null)).build(), HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, listen.statusCode());
        BlockingQueue<JsonNode> notes = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> listen.body().filter(l -> l.startsWith("data:"))
                .forEach(l -> notes.add(Json.MAPPER.readTree(l.substring(5).strip()))), "listen-reader");
        reader.setDaemon(true);
        reader.start();
        JsonNode ack = poll(notes);
        assertEquals("notifications/subscriptions/acknowledged", ack.path("method").asString(), ack::toString);

        // a call whose stream the client drops: cancelled, and the session goes on
        HttpResponse<InputStream> waiting = http.send(request(modern(2, "tools/call", Map.of("name", "session_read",
                "arguments", Map.of("session", session, "wait_ms", 50000, "until", Map.of("pattern", "never")))),
                headers("tools/call", "session_read")).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, waiting.statusCode());
        waiting.body().close();

        JsonNode sent = events(post(modern(3, "tools/call", Map.of("name", "session_send", "arguments",
                Map.of("session", session, "text", "echo hi-$((6*7))", "wait_ms", 10000, "until",
                        Map.of("pattern", "hi-42")))), headers("tools/call", "session_send")).body()).get(0);
        assertEquals("pattern", sent.path("result").path("structuredContent").path("reason").asString(), sent::toString);
        JsonNode updated = poll(notes);
        assertEquals("notifications/resources/updated", updated.path("method").asString(), updated::toString);
        assertEquals(uri, updated.path("params").path("uri").asString());
        assertEquals("l1", updated.path("params").path("_meta").path("io.modelcontextprotocol/subscriptionId")
                .asString());
        events(post(modern(4, "tools/call", Map.of("name", "session_close", "arguments", Map.of("session", session))),
                headers("tools/call", "session_close")).body());
    }

    @Test
    void aSubscriptionGetsItsAnswerWhenTheServerShutsDown(@TempDir Path ownDir) throws Exception {
        // the endpoint opens before the start has finished: a SIGTERM in that window must be graceful too,
        // so the server's own log is what a failure shows
        Queue<String> log = new ConcurrentLinkedQueue<>();
        try (ServeProcess own = ServeProcess.start(StdioServer.jar(), ownDir, List.of("--no-auth"), 60, log::add)) {
            HttpRequest.Builder listen = HttpRequest.newBuilder(own.endpoint()).timeout(WAIT)
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(modern("l2", "subscriptions/listen",
                            Map.of("notifications", Map.of()))));
            headers("subscriptions/listen", null).forEach(listen::header);
            HttpResponse<Stream<String>> stream = http.send(listen.build(), HttpResponse.BodyHandlers.ofLines());
            BlockingQueue<JsonNode> notes = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> stream.body().filter(l -> l.startsWith("data:"))
                    .forEach(l -> notes.add(Json.MAPPER.readTree(l.substring(5).strip()))), "listen-reader");
            reader.setDaemon(true);
            reader.start();
            assertEquals("notifications/subscriptions/acknowledged", poll(notes).path("method").asString());
            own.process().destroy();
            // a JVM's shutdown on a machine that runs several suites at once can take a while; the answer is the
            // server's first act in it, so this bound only covers the machine being slow
            JsonNode end = notes.poll(90, TimeUnit.SECONDS);
            assertNotNull(end, () -> "no answer to the subscription within 90 s of SIGTERM; the server's log:\n"
                    + String.join("\n", log));
            assertEquals("l2", end.path("id").asString(), end::toString);
            assertEquals("complete", end.path("result").path("resultType").asString(), end::toString);
            assertEquals("l2", end.path("result").path("_meta").path("io.modelcontextprotocol/subscriptionId")
                    .asString(), end::toString);
        }
    }

    private static JsonNode poll(BlockingQueue<JsonNode> q) throws InterruptedException {
        JsonNode n = q.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(n, "nothing on the subscription stream within " + WAIT);
        return n;
    }

    private static Map<String, String> headers(String method, String name) {
        return name == null ? Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
                : Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name);
    }

    private static String legacy(int id, String method) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\"}";
    }

    private static String modern(Object id, String method, Map<String, Object> params) {
        return StdioErasIT.modern(id, method, params);
    }

    private HttpRequest.Builder request(String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(serve.endpoint()).timeout(WAIT)
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return b;
    }

    private HttpResponse<String> post(String body, Map<String, String> headers) throws Exception {
        return http.send(request(body, headers).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode body(HttpResponse<String> response, int status) {
        assertEquals(status, response.statusCode(), response::body);
        return Json.MAPPER.readTree(response.body());
    }

    /** The JSON-RPC messages of an event-stream body (a priming event carries none). */
    private static List<JsonNode> events(String body) {
        List<JsonNode> out = body.lines().filter(l -> l.startsWith("data:") && !l.substring(5).isBlank())
                .map(l -> Json.MAPPER.readTree(l.substring(5).strip())).toList();
        assertTrue(!out.isEmpty(), () -> "no events in " + body);
        return out;
    }
}
