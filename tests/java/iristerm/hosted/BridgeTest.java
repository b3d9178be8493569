package iristerm.hosted;

import iristerm.session.SessionStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import iristerm.http.SseReader;
import iristerm.http.StreamableCore;
import iristerm.iris.FakeIrisCalls;
import iristerm.iris.IrisMethod;
import iristerm.ui.UiApi;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The bridge driven as Terminal.REST drives it: method, the header JSON it builds, the body and
 * $USERNAME, each call on a new gateway thread, against the contract fake of Terminal.Session.
 * Statuses are the MCP specification's (Streamable HTTP, 2025-06-18 and later).
 */
@Timeout(60)
class BridgeTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String PROTOCOL = "2025-06-18";
    private static final String INITIALIZE = """
            {"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"2025-06-18",\
            "capabilities":{},"clientInfo":{"name":"bridge-test","version":"1"}}}""";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    private static final String TOOLS_LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    /** session_view too: the MCP Apps view works hosted through the same tools and resource */
    private static final List<String> TOOLS = List.of("iris_execute", "iris_sql", "session_close", "session_list",
            "session_open", "session_read", "session_resize", "session_send", "session_signal", "session_view");

    @TempDir
    Path dataDir;

    private FakeIrisCalls iris;
    private FakeGateway gateway;

    /** One answer of the bridge, as Terminal.REST reads it. */
    record Answer(int status, Map<String, String> headers, String body) {

        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue).findFirst().orElse(null);
        }

        /** The JSON-RPC messages of the body: the body itself, or each event of an SSE body. */
        List<JsonNode> messages() {
            List<JsonNode> messages = new ArrayList<>();
            if (header("Content-Type").startsWith("text/event-stream")) {
                for (SseReader.Event event : SseReader.parse(body)) {
                    if (!event.data().isEmpty()) {
                        messages.add(JSON.readTree(event.data()));
                    }
                }
            } else {
                messages.add(JSON.readTree(body));
            }
            return messages;
        }

        /** The response to the request with this id. */
        JsonNode response(Object id) {
            return messages().stream().filter(m -> m.path("id").asString("").equals(String.valueOf(id)))
                    .findFirst().orElseThrow(() -> new AssertionError("no response " + id + " in " + body));
        }
    }

    @BeforeEach
    void start() throws Exception {
        iris = new FakeIrisCalls("_SYSTEM");
        gateway = new FakeGateway(iris);
        serve(false);
    }

    @AfterEach
    void stop() {
        Bridge.serveWith(null);
        iris.shutdown();
    }

    /** (Re)starts the hosted server as the first request would: on a gateway thread. */
    private void serve(boolean processEnabled) throws Exception {
        serve(processEnabled, null);
    }

    private void serve(boolean processEnabled, String sessionNamespace) throws Exception {
        gateway.call("_SYSTEM", thread -> {
            Bridge.serveWith(HostedServer.start(new HostedConfig(dataDir, processEnabled, Set.of(), sessionNamespace),
                    gateway, gateway));
            return null;
        });
        gateway.callbacks.clear();
    }

    private Answer request(String user, String method, Map<String, String> headers, String body) throws Exception {
        String headersJson = JSON.writeValueAsString(headers);
        String raw = gateway.call(user, thread -> Bridge.handle(method, headersJson, body));
        return parse(raw);
    }

    private static Answer parse(String raw) {
        JsonNode answer = JSON.readTree(raw);
        Map<String, String> headers = new LinkedHashMap<>();
        answer.path("headers").properties().forEach(e -> headers.put(e.getKey(), e.getValue().asString()));
        return new Answer(answer.path("status").asInt(), headers, answer.path("body").asString());
    }

    /** The headers Terminal.REST passes for a client's POST (only those the client sent). */
    private static Map<String, String> postHeaders(String session) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (session != null) {
            headers.put("Mcp-Session-Id", session);
            headers.put("MCP-Protocol-Version", PROTOCOL);
        }
        headers.put("Accept", "application/json, text/event-stream");
        headers.put("Content-Type", "application/json");
        return headers;
    }

    private Answer post(String user, String session, String body) throws Exception {
        return request(user, "POST", postHeaders(session), body);
    }

    private String open(String user) throws Exception {
        Answer init = post(user, null, INITIALIZE);
        assertEquals(200, init.status(), init.body());
        String session = init.header("Mcp-Session-Id");
        assertEquals(202, post(user, session, INITIALIZED).status());
        return session;
    }

    private static String callTool(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}";
    }

    /** The result of tool call {@code id}, from its SSE answer. */
    private JsonNode tool(String user, String session, int id, String tool, String arguments) throws Exception {
        Answer answer = post(user, session, callTool(id, tool, arguments));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.header("Content-Type").startsWith("text/event-stream"), answer.headers()::toString);
        JsonNode response = answer.response(id);
        assertTrue(response.path("error").isMissingNode(), response::toString);
        return response.path("result");
    }

    /** An error answer echoing {@code id}: the request's, or null where no request id could be read. */
    private static void assertError(Answer answer, int status, int code, Integer id) {
        assertEquals(status, answer.status(), answer.body());
        assertEquals("application/json", answer.header("Content-Type"));
        JsonNode body = JSON.readTree(answer.body());
        assertEquals("2.0", body.path("jsonrpc").asString());
        if (id == null) {
            assertTrue(body.path("id").isNull(), answer.body());
        } else {
            assertEquals(id, body.path("id").asInt(), answer.body());
        }
        assertEquals(code, body.path("error").path("code").asInt(), answer.body());
    }

    @Test
    void aWholeConversation() throws Exception {
        Answer init = post("alice", null, INITIALIZE);
        assertEquals(200, init.status(), init.body());
        assertEquals("application/json", init.header("Content-Type"));
        String session = init.header("Mcp-Session-Id");
        assertNotNull(session);
        JsonNode initialized = init.response("init-1");
        assertEquals("init-1", initialized.path("id").asString());
        assertEquals(PROTOCOL, initialized.path("result").path("protocolVersion").asString());
        assertEquals("iris-terminal-mcp", initialized.path("result").path("serverInfo").path("name").asString());

        Answer accepted = post("alice", session, INITIALIZED);
        assertEquals(202, accepted.status());
        assertEquals("", accepted.body());

        Answer list = post("alice", session, TOOLS_LIST);
        assertEquals(200, list.status(), list.body());
        List<String> names = new ArrayList<>();
        list.response(2).path("result").path("tools").forEach(t -> names.add(t.path("name").asString()));
        assertEquals(TOOLS, names.stream().sorted().toList());

        JsonNode executed = tool("alice", session, 3, "iris_execute", "{\"code\":\"write \\\"hello\\\"\"}");
        assertFalse(executed.path("isError").asBoolean(), executed::toString);
        assertEquals("ok", executed.path("structuredContent").path("status").asString(), executed::toString);
        assertEquals("hello", executed.path("structuredContent").path("output").asString(), executed::toString);

        JsonNode sessions = tool("alice", session, 4, "session_list", "{}");
        assertTrue(sessions.toString().contains("iris"), sessions::toString);

        Answer deleted = request("alice", "DELETE", Map.of("Mcp-Session-Id", session), null);
        assertEquals(200, deleted.status(), deleted.body());
        assertError(post("alice", session, TOOLS_LIST), 404, StreamableCore.SESSION_NOT_FOUND, 2);
    }

    /**
     * Where the endpoint lives in a namespace of its own (which agents may read but not write), the administrator's
     * session namespace is where an agent's iris session starts when the agent names none; a namespace it names wins.
     */
    @Test
    void sessionsStartInTheConfiguredNamespaceUnlessTheAgentNamesOne() throws Exception {
        String before = open("alice");
        assertEquals("USER", output(tool("alice", before, 3, "iris_execute", "{\"code\":\"write $namespace\"}")),
                "without a setting: Terminal.Session.Open's own default");
        Bridge.serveWith(null);
        serve(false, "SAMPLES");
        String session = open("alice");
        assertEquals("SAMPLES", output(tool("alice", session, 4, "iris_execute", "{\"code\":\"write $namespace\"}")));
        JsonNode opened = tool("alice", session, 5, "session_open", "{\"kind\":\"iris\",\"namespace\":\"%SYS\"}");
        assertEquals("%SYS", opened.path("structuredContent").path("namespace").asString(), opened::toString);
    }

    private static String output(JsonNode executed) {
        assertEquals("ok", executed.path("structuredContent").path("status").asString(), executed::toString);
        return executed.path("structuredContent").path("output").asString();
    }

    @Test
    void toolsRunOnTheThreadThatCalledHandle() throws Exception {
        String session = open("alice");
        gateway.callbacks.clear();
        List<Thread> callers = new ArrayList<>();
        String body = callTool(5, "iris_execute", "{\"code\":\"write 1\"}");
        String raw = gateway.call("alice", thread -> {
            callers.add(thread);
            return Bridge.handle("POST", JSON.writeValueAsString(postHeaders(session)), body);
        });
        assertEquals("ok", parse(raw).response(5).path("result").path("structuredContent").path("status").asString(),
                raw);
        assertFalse(gateway.callbacks.isEmpty(), "iris_execute did not call IRIS");
        for (Thread t : gateway.callbacks) {
            assertEquals(callers.get(0), t, "a tool called IRIS off the thread that called Bridge.handle");
        }
    }

    @Test
    void processSessionsAreOffUnlessAnAdministratorEnablesThem() throws Exception {
        gateway.osUsers.add("alice");
        String session = open("alice");
        JsonNode refused = tool("alice", session, 6, "session_open", "{\"kind\":\"process\",\"command\":\"echo\"}");
        assertTrue(refused.path("isError").asBoolean(), refused::toString);
        String text = refused.path("content").get(0).path("text").asString();
        assertTrue(text.contains("-Diristerm.hosted.process=on") && text.contains("IRIS_TERMINAL_HOSTED_PROCESS=on")
                && text.contains("%IRISTerminal_OS:USE"), text);
    }

    @Test
    void onceEnabledProcessSessionsNeedTheOsPrivilege() throws Exception {
        serve(true);
        gateway.osUsers.add("alice");
        String bobs = open("bob");
        JsonNode refused = tool("bob", bobs, 7, "session_open", "{\"kind\":\"process\",\"command\":\"echo\"}");
        assertTrue(refused.path("isError").asBoolean(), refused::toString);
        assertTrue(refused.toString().contains("IRIS user bob may not run OS processes"), refused::toString);

        String alices = open("alice");
        gateway.privilegeChecks.set(0);
        // not an instant exit: SessionStore's save at open and at exit race on one temp file
        JsonNode opened = tool("alice", alices, 8, "session_open", "{\"kind\":\"process\",\"command\":\"sh\","
                + "\"args\":[\"-c\",\"sleep 0.5; echo hi\"],\"mode\":\"pipe\",\"wait_ms\":0}");
        assertFalse(opened.path("isError").asBoolean(), opened::toString);
        assertEquals(1, gateway.privilegeChecks.get(), "the privilege is checked in IRIS, once per session_open");
        String id = opened.path("structuredContent").path("session").asString();
        JsonNode read = tool("alice", alices, 9, "session_read",
                "{\"session\":\"" + id + "\",\"wait_ms\":5000,\"until\":{\"exit\":true}}");
        assertTrue(read.path("structuredContent").path("data").asString().contains("hi"), read::toString);
    }

    /** A POST of MCP 2026-07-28 as a client sends it to the hosted endpoint: no session, headers mirroring the body. */
    private Answer modern(String user, int id, String method, String name, String params) throws Exception {
        Map<String, String> headers = postHeaders(null);
        headers.put("MCP-Protocol-Version", "2026-07-28");
        headers.put("Mcp-Method", method);
        if (name != null) {
            headers.put("Mcp-Name", name);
        }
        String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
        return request(user, "POST", headers, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method
                + "\",\"params\":{" + meta + (params.isEmpty() ? "" : "," + params) + "}}");
    }

    @Test
    void modernRequestsAreServedWithoutAnMcpSessionAndAcrossARestart() throws Exception {
        gateway.osUsers.add("alice");
        serve(true);
        Answer discover = modern("alice", 1, "server/discover", null, "");
        assertEquals(200, discover.status(), discover.body());
        assertNull(discover.header("Mcp-Session-Id"), "no MCP session for a modern request");
        assertEquals("2026-07-28", discover.response(1).path("result").path("supportedVersions").get(0).asString());

        Answer opened = modern("alice", 2, "tools/call", "session_open", "\"name\":\"session_open\",\"arguments\":"
                + "{\"kind\":\"process\",\"command\":\"sh\",\"mode\":\"pipe\",\"wait_ms\":0}");
        assertEquals(200, opened.status(), opened.body());
        JsonNode result = opened.response(2).path("result");
        assertEquals("complete", result.path("resultType").asString(), result::toString);
        String id = result.path("structuredContent").path("session").asString();

        Answer sent = modern("alice", 3, "tools/call", "session_send", "\"name\":\"session_send\",\"arguments\":"
                + "{\"session\":\"" + id + "\",\"text\":\"echo hi-$((6*7))\",\"wait_ms\":10000,"
                + "\"until\":{\"pattern\":\"hi-42\"}}");
        JsonNode echoed = sent.response(3).path("result");
        assertEquals("pattern", echoed.path("structuredContent").path("reason").asString(), echoed::toString);
        Answer foreign = modern("bob", 4, "resources/read", "iris-terminal://sessions/" + id + "/transcript",
                "\"uri\":\"iris-terminal://sessions/" + id + "/transcript\"");
        assertEquals(-32602, foreign.response(4).path("error").path("code").asInt(), foreign.body());

        Answer listen = modern("alice", 5, "subscriptions/listen", null, "\"notifications\":{}");
        assertEquals(404, listen.status(), listen.body());
        assertTrue(listen.response(5).path("error").path("message").asString().contains("session_read"), listen.body());
        modern("alice", 6, "tools/call", "session_close", "\"name\":\"session_close\",\"arguments\":{\"session\":\""
                + id + "\"}");

        // a restart of the hosted server loses no MCP session, as there is none: the next call just works
        serve(true);
        Answer listed = modern("alice", 7, "tools/list", null, "");
        assertTrue(listed.response(7).path("result").path("tools").size() > 0, listed.body());

        // only the headers Terminal.REST passes on (no Mcp-Method, Mcp-Name): served; a wrong one still refused
        Map<String, String> passed = postHeaders(null);
        passed.put("MCP-Protocol-Version", "2026-07-28");
        String body = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
        Answer plain = request("alice", "POST", passed, body);
        assertTrue(plain.response(8).path("result").path("tools").size() > 0, plain.body());
        passed.put("Mcp-Method", "tools/call");
        assertEquals(400, request("alice", "POST", passed, body).status());
    }

    @Test
    void requestsWithoutASessionIdAre400() throws Exception {
        assertError(post("alice", null, TOOLS_LIST), 400, -32600, 2);
        assertError(request("alice", "DELETE", Map.of(), null), 400, -32600, null);
    }

    @Test
    void unknownSessionsAre404() throws Exception {
        assertError(post("alice", "no-such-session", TOOLS_LIST), 404, StreamableCore.SESSION_NOT_FOUND, 2);
    }

    @Test
    void aSessionIdServesOnlyTheIrisUserWhoOpenedIt() throws Exception {
        String session = open("alice");
        assertError(post("bob", session, TOOLS_LIST), 404, StreamableCore.SESSION_NOT_FOUND, 2);
        assertError(request("bob", "DELETE", Map.of("Mcp-Session-Id", session), null), 404,
                StreamableCore.SESSION_NOT_FOUND, null);
        assertEquals(200, post("alice", session, TOOLS_LIST).status());
    }

    @Test
    void badBodiesAre400WithAJsonRpcError() throws Exception {
        String session = open("alice");
        assertError(post("alice", session, "{\"jsonrpc\": \"2.0\", "), 400, -32700, null);
        assertError(post("alice", session, "{\"hello\":1}"), 400, -32600, null);
        assertError(post("alice", session, "[" + TOOLS_LIST + "]"), 400, -32600, null);
        assertError(post("alice", session, ""), 400, -32600, null);
        assertError(post("alice", session, null), 400, -32600, null);
        assertEquals(200, post("alice", session, TOOLS_LIST).status(), "the session survived");
    }

    @Test
    void oversizedBodiesAre413() throws Exception {
        String session = open("alice");
        String big = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"pad\":\""
                + "x".repeat(HostedServer.MAX_BODY_BYTES) + "\"}}";
        assertError(post("alice", session, big), 413, -32600, null);
    }

    @Test
    void getIs405BecauseNothingCanStream() throws Exception {
        String session = open("alice");
        Answer get = request("alice", "GET", Map.of("Mcp-Session-Id", session, "Accept", "text/event-stream"), null);
        assertError(get, 405, -32600, null);
        assertEquals("POST, DELETE", get.header("Allow"));
    }

    @Test
    void otherContentTypesAre415AndForeignOriginsAre403() throws Exception {
        Map<String, String> text = new LinkedHashMap<>(postHeaders(null));
        text.put("Content-Type", "text/plain");
        assertError(request("alice", "POST", text, INITIALIZE), 415, -32600, null);
        Map<String, String> browser = new LinkedHashMap<>(postHeaders(null));
        browser.put("Origin", "https://evil.example");
        assertError(request("alice", "POST", browser, INITIALIZE), 403, -32600, null);
    }

    @Test
    void headersThatAreNotAJsonObjectAre400() throws Exception {
        String raw = gateway.call("alice", thread -> Bridge.handle("POST", "[1]", INITIALIZE));
        assertError(parse(raw), 400, -32600, null);
    }

    @Test
    void concurrentUsersEachGetTheirOwnConversation() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> outputs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String user = "user" + i;
                outputs.add(pool.submit(() -> {
                    String session = open(user);
                    JsonNode r = tool(user, session, 10, "iris_execute", "{\"code\":\"write $username\"}");
                    return r.path("structuredContent").path("output").asString();
                }));
            }
            for (int i = 0; i < 8; i++) {
                assertEquals("user" + i, outputs.get(i).get(50, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Terminal.REST names no user: the bridge asks IRIS whose process calls, for every request. bob's process
     * holding alice's MCP session id is bob, so her session is not his; a process with no user is refused.
     */
    @Test
    void theUserIsAlwaysTheCallingProcesssOwn() throws Exception {
        String alices = open("alice");
        String headers = JSON.writeValueAsString(postHeaders(alices));
        Answer borrowed = parse(gateway.call("bob", thread -> Bridge.handle("POST", headers, TOOLS_LIST)));
        assertNotEquals(200, borrowed.status(), borrowed::body);
        assertFalse(borrowed.body().contains("session_open"), "bob was served alice's session: " + borrowed.body());
        Answer nobody = parse(gateway.call("", thread -> Bridge.handle("POST", JSON.writeValueAsString(postHeaders(null)),
                INITIALIZE)));
        assertError(nobody, 403, -32600, null);
        assertTrue(nobody.body().contains("has no user"), nobody::body);
        // asked anew each request: alice's own next request is served
        assertEquals(200, post("alice", alices, TOOLS_LIST).status());
    }

    @Test
    void afterARestartTheIrisSessionsOfTheEarlierRunAreEndedOnesAndTheirJobsAreGone() throws Exception {
        String alices = open("alice");
        JsonNode set = tool("alice", alices, 20, "iris_execute", "{\"code\":\"set x=1\"}").path("structuredContent");
        assertEquals("ok", set.path("status").asString(), set::toString);
        String before = set.path("session").asString();

        serve(false); // the JVM restarted: the links closed, so the jobs ended

        alices = open("alice");
        JsonNode listed = tool("alice", alices, 23, "session_list", "{}").path("structuredContent").path("sessions");
        assertEquals(1, listed.size(), listed::toString);
        assertEquals(before, listed.get(0).path("session").asString());
        assertEquals("exited", listed.get(0).path("state").asString(), listed::toString);
        JsonNode again = tool("alice", alices, 24, "iris_execute", "{\"code\":\"write x\"}").path("structuredContent");
        assertEquals("error", again.path("status").asString(), "a new session knows no x: " + again);
        assertNotEquals(before, again.path("session").asString());
    }

    /**
     * Hosted review H-10: every agent's IRIS process runs as the OS user the bridge writes files as, so nothing of
     * a session's output goes to disk (no transcript, no to_file); the output is still read from memory.
     */
    @Test
    void noSessionOutputReachesTheDataDirectory() throws Exception {
        String alices = open("alice");
        String secret = "only-alice-" + System.nanoTime();
        JsonNode executed = tool("alice", alices, 40, "iris_execute", "{\"code\":\"write \\\"" + secret + "\\\"\"}")
                .path("structuredContent");
        assertEquals(secret, executed.path("output").asString(), executed::toString);
        String session = executed.path("session").asString();
        JsonNode read = tool("alice", alices, 41, "session_read", "{\"session\":\"" + session + "\",\"all\":true}");
        assertTrue(read.toString().contains(secret), "the output is read from memory: " + read);
        JsonNode toFile = tool("alice", alices, 42, "session_read", "{\"session\":\"" + session
                + "\",\"all\":true,\"to_file\":\"mine.txt\"}");
        assertTrue(toFile.path("isError").asBoolean(), toFile::toString);
        assertTrue(toFile.toString().contains("'to_file' is not available on this server"), toFile::toString);
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertFalse(Files.readString(f, StandardCharsets.ISO_8859_1).contains(secret), f + " holds alice's output");
            }
        }
    }

    @Test
    void notifyIsRefusedBecauseNothingReachesTheClientBetweenCalls() throws Exception {
        String session = open("alice");
        int opened = iris.calls(IrisMethod.OPEN);
        JsonNode refused = tool("alice", session, 27, "session_open", "{\"kind\":\"iris\",\"notify\":true}");
        assertTrue(refused.path("isError").asBoolean(), refused::toString);
        assertTrue(refused.toString().contains("'notify' is not available"), refused::toString);
        assertEquals(opened, iris.calls(IrisMethod.OPEN), "a session was opened before the refusal");
    }

    @Test
    void theAuditNamesTheMcpClientAndTheAgent() throws Exception {
        String session = open("alice");
        tool("alice", session, 28, "iris_execute", "{\"code\":\"write 1\"}");
        JsonNode request = JSON.readTree(gateway.audits.get(gateway.audits.size() - 1));
        assertEquals("write 1", request.path("text").asString(), request::toString);
        assertEquals("bridge-test", request.path("client").asString(), request::toString);
        assertEquals("alice", request.path("agent").asString(), request::toString);
    }

    @Test
    void versionIsTheJarsVersion() {
        assertFalse(Bridge.version().isBlank());
    }

    @Test
    void aServerThatCannotStartAnswers503AndIsTriedAgain() throws Exception {
        Bridge.serveWith(null);
        String previous = System.getProperty(HostedConfig.DATA_DIR_PROPERTY);
        // the JVM IRIS starts for a request runs as the instance's user, never root (which the bridge refuses)
        String user = System.getProperty("user.name");
        System.setProperty("user.name", "irisusr-of-this-test");
        Path shared = Files.createDirectory(dataDir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        System.setProperty(HostedConfig.DATA_DIR_PROPERTY, shared.toString());
        String headers = JSON.writeValueAsString(postHeaders(null));
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                Answer refused = parse(gateway.call("alice", thread -> Bridge.handle("POST", headers, INITIALIZE)));
                assertError(refused, 503, -32603, null);
                assertTrue(refused.body().contains("is writable by everyone"), refused.body());
            }
            // fixed (the group's, as the installer leaves it): the next request builds the real server (which then
            // cannot reach IRIS from this test)
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwx---"));
            Answer next = parse(gateway.call("alice", thread -> Bridge.handle("POST", headers, INITIALIZE)));
            assertFalse(next.body().contains("did not start"), next.body());
        } finally {
            System.setProperty("user.name", user);
            if (previous == null) {
                System.clearProperty(HostedConfig.DATA_DIR_PROPERTY);
            } else {
                System.setProperty(HostedConfig.DATA_DIR_PROPERTY, previous);
            }
        }
    }

    @Test
    void aDataDirectoryThisJvmCannotWriteIsRefusedAndOneOthersCanReadIsClosedToThem() throws Exception {
        Path dir = Files.createDirectory(dataDir.resolve("theirs"));
        long group = DataDirectory.groupId(dir);
        // another user's directory, shared with a group this JVM is not in
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwx---"));
        IllegalStateException other = assertThrows(IllegalStateException.class,
                () -> DataDirectory.prepare(dir, "someone-else", Set.of(group + 1)));
        assertTrue(other.getMessage().contains("someone-else, the user this External Java Server runs as, may not write it")
                && other.getMessage().contains("chmod 2770"), other.getMessage());
        // the same directory for a JVM in its group: accepted as it is (the instance's JVMs share the group)
        DataDirectory.prepare(dir, "someone-else", Set.of(group));
        assertEquals("rwxrwx---", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        // not group-writable: refused to the group member that does not own it
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
        assertThrows(IllegalStateException.class, () -> DataDirectory.prepare(dir, "someone-else", Set.of(group)));
        // its owner takes others' access away
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        DataDirectory.prepare(dir, Files.getOwner(dir).getName(), Set.of());
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    }

    @Test
    void aNewDataDirectoryIsTheParentsGroupsWithASharedLogFileAndTheReportSaysSo() throws Exception {
        Path parent = Files.createDirectory(dataDir.resolve("mgr"));
        Path created = parent.resolve("iris-terminal-mcp");
        DataDirectory.prepare(created, Files.getOwner(parent).getName());
        assertEquals("rwxrwx---", PosixFilePermissions.toString(Files.getPosixFilePermissions(created)));
        Path log = created.resolve(DataDirectory.LOG_FILE);
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(log)));
        assertEquals(DataDirectory.groupId(parent), DataDirectory.groupId(created));
        // hosted review round 9, H9-2: the session store's directory too, whatever this JVM's umask
        Path sessions = created.resolve(SessionStore.DIRECTORY);
        assertEquals("rwxrwx---", PosixFilePermissions.toString(Files.getPosixFilePermissions(sessions)));
        assertEquals(DataDirectory.groupId(parent), DataDirectory.groupId(sessions));
        Files.delete(sessions);
        Files.createSymbolicLink(sessions, parent);
        IllegalStateException link = assertThrows(IllegalStateException.class,
                () -> DataDirectory.prepare(created, Files.getOwner(parent).getName()));
        assertTrue(link.getMessage().contains("is a symbolic link"), link.getMessage());
        Files.delete(sessions);
        DataDirectory.prepare(created, Files.getOwner(parent).getName());
        assertTrue(Files.isDirectory(sessions, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        String ok = DataDirectory.report(created.toString());
        assertTrue(ok.startsWith("{\"ok\":true,"), ok);
        assertTrue(ok.contains("mode rwxrwx---") && ok.contains("mode rw-rw----"), ok);
        // a log file only its owner may write is what a JVM of another OS user could not open
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-------"));
        String bad = DataDirectory.report(created.toString());
        assertTrue(bad.startsWith("{\"ok\":false,") && bad.contains("chmod 660"), bad);
        // hosted review round 4, R4-1: before the first request no JVM has made it; fine where that JVM's group may
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwx---"));
        String notYet = DataDirectory.report(parent.resolve("missing").toString());
        assertTrue(notYet.startsWith("{\"ok\":true,") && notYet.contains("does not exist yet"), notYet);
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-x---"));
        String closed = DataDirectory.report(parent.resolve("missing").toString());
        assertTrue(closed.startsWith("{\"ok\":false,") && closed.contains("chmod g+wx " + parent), closed);
        assertTrue(DataDirectory.report(parent.resolve("no/such").toString()).startsWith("{\"ok\":false,"));
        Files.writeString(parent.resolve("a-file"), "");
        assertTrue(DataDirectory.report(parent.resolve("a-file").toString()).startsWith("{\"ok\":false,"));
    }

    /** Hosted review round 4, R4-3: the bridge builds no server in a JVM that runs as root (the source holds where). */
    @Test
    void aJvmRunningAsRootServesNoRequest() throws Exception {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Bridge.refuseRoot("root"));
        assertTrue(refused.getMessage().contains("Terminal.Gateway).Stop()"), refused.getMessage());
        Bridge.refuseRoot("irisusr");
        String source = Files.readString(Path.of("java/iristerm/hosted/Bridge.java"));
        int refuse = source.indexOf("refuseRoot(System.getProperty(\"user.name\"));");
        assertTrue(refuse > 0 && refuse < source.indexOf("server = HostedServer.start("), "checked before the server is built");
    }

    @Test
    void configurationComesFromPropertiesThenEnvironment() {
        Map<String, String> props = Map.of(HostedConfig.DATA_DIR_PROPERTY, "/srv/iris/mgr/iris-terminal-mcp/",
                HostedConfig.PROCESS_PROPERTY, "on", HostedConfig.SESSION_NAMESPACE_PROPERTY, " USER ");
        Map<String, String> env = Map.of(HostedConfig.ORIGINS_ENV, "https://ok.example/, http://b.example:8080",
                HostedConfig.DATA_DIR_ENV, "/elsewhere", HostedConfig.SESSION_NAMESPACE_ENV, "SAMPLES");
        HostedConfig config = HostedConfig.from(props::get, env::get);
        assertEquals("USER", config.sessionNamespace());
        assertEquals("SAMPLES", HostedConfig.from(Map.of(HostedConfig.DATA_DIR_PROPERTY, "/d")::get, env::get)
                .sessionNamespace());
        assertNull(HostedConfig.from(Map.of(HostedConfig.DATA_DIR_PROPERTY, "/d")::get, Map.<String, String>of()::get)
                .sessionNamespace());
        assertEquals(Path.of("/srv/iris/mgr/iris-terminal-mcp"), config.dataDir());
        assertTrue(config.processEnabled());
        assertTrue(config.allowsOrigin("https://OK.example") && config.allowsOrigin("http://b.example:8080"));
        assertTrue(config.allowsOrigin(null));
        assertFalse(config.allowsOrigin("https://other.example"));
        assertFalse(HostedConfig.from(Map.of(HostedConfig.DATA_DIR_PROPERTY, "/d")::get, Map.<String, String>of()::get)
                .processEnabled());
        assertNull(new HostedProcessPolicy(true, (r, p) -> true).refusal(null));
    }

    @Test
    void withoutADataDirectoryTheServerDoesNotGuessOne() {
        Map<String, String> props = Map.of("java.io.tmpdir", "/tmp");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> HostedConfig.from(props::get, Map.<String, String>of()::get));
        assertTrue(e.getMessage().contains("Terminal.Gateway).Define()"), e.getMessage());
    }

    // ---- the browser view (Terminal.REST's ui/ routes) --------------------------------------------

    private static final Map<String, String> PAGE = Map.of("Origin", "https://iris.example.com", "Host", "iris.example.com");

    private Answer ui(String user, String method, String path, String query, Map<String, String> headers) throws Exception {
        String headersJson = JSON.writeValueAsString(headers);
        return parse(gateway.call(user, thread -> Bridge.ui(method, path, query, headersJson)));
    }

    /** The session ids a user's browser view lists. */
    private List<String> listed(String user) throws Exception {
        Answer list = ui(user, "GET", "/ui/api/sessions", "", Map.of());
        assertEquals(200, list.status(), list.body());
        assertNotNull(list.header("X-Sessions-Version"), list.headers()::toString);
        List<String> ids = new ArrayList<>();
        JSON.readTree(list.body()).path("sessions").forEach(r -> ids.add(r.path("session").asString()));
        return ids;
    }

    /** Opens the user's default iris session with one command; returns its id. */
    private String irisSession(String user, String code) throws Exception {
        String mcp = open(user);
        JsonNode executed = tool(user, mcp, 3, "iris_execute", "{\"code\":\"" + code + "\"}");
        assertFalse(executed.path("isError").asBoolean(), executed::toString);
        return executed.path("structuredContent").path("session").asString();
    }

    @Test
    void theHostedViewIsTheSamePageFollowingWithRequests() throws Exception {
        Answer page = ui("alice", "GET", "/ui/", "", Map.of());
        assertEquals(200, page.status(), page.body());
        assertTrue(page.header("Content-Type").startsWith("text/html"), page.headers()::toString);
        assertTrue(page.body().contains("<body data-follow=\"poll\">"), page.body());
        assertTrue(page.header("Content-Security-Policy").contains("default-src 'self'"), page.headers()::toString);
        Answer bare = ui("alice", "GET", "/ui", "", Map.of());
        assertEquals(303, bare.status());
        assertEquals("ui/", bare.header("Location"), "the page's addresses are relative to ui/");
        Answer script = ui("alice", "GET", "/ui/vendor/xterm.js", "", Map.of());
        assertEquals(200, script.status());
        assertTrue(script.body().length() > 100_000, "xterm.js crosses whole");
        assertEquals(404, ui("alice", "GET", "/ui/login", "", Map.of()).status(), "IRIS signs browsers in, not a form");
        // no typing here: Terminal.REST hands the bridge no body, and the answer says so
        for (String action : List.of("takeover", "type")) {
            Answer typing = ui("alice", "POST", "/ui/api/sessions/x/" + action, "", PAGE);
            assertEquals(501, typing.status(), typing.body());
            assertTrue(typing.body().contains("no request body"), typing.body());
        }
    }

    @Test
    void eachUserSeesTheirOwnSessionsAndAnAdministratorEveryones() throws Exception {
        String alices = irisSession("alice", "write \\\"from-alice\\\"");
        String bobs = irisSession("bob", "write 2");
        gateway.admins.add("carol");
        assertEquals(List.of(alices), listed("alice"));
        assertEquals(List.of(bobs), listed("bob"));
        assertTrue(listed("carol").containsAll(List.of(alices, bobs)), "an administrator sees every session");

        Answer output = ui("alice", "GET", "/ui/api/sessions/" + alices + "/output", "from=0", Map.of());
        assertEquals(200, output.status(), output.body());
        JsonNode chunk = JSON.readTree(output.body());
        String text = new String(java.util.Base64.getDecoder().decode(chunk.path("b64").asString()),
                java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(text.contains("from-alice"), text);
        assertEquals(chunk.path("next").asLong(), chunk.path("from").asLong() + text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);

        assertEquals(404, ui("bob", "GET", "/ui/api/sessions/" + alices + "/output", "from=0", Map.of()).status());
        assertEquals(409, ui("bob", "POST", "/ui/api/sessions/" + alices + "/close", "", PAGE).status());
        assertEquals(403, ui("alice", "POST", "/ui/api/sessions/" + alices + "/interrupt", "",
                Map.of("Origin", "https://elsewhere.example.com", "Host", "iris.example.com")).status(),
                "a POST from another page is refused");
        assertEquals(200, ui("carol", "GET", "/ui/api/sessions/" + alices + "/output", "from=0", Map.of()).status());
        // engine review round 6 (E6-3): IRIS lets a user signal only its own jobs, so an administrator's view does not
        // pretend to interrupt or end another user's iris session
        Answer refused = ui("carol", "POST", "/ui/api/sessions/" + alices + "/close", "", PAGE);
        assertEquals(409, refused.status(), refused.body());
        assertTrue(refused.body().contains("only alice can close"), refused.body());
        assertEquals(409, ui("carol", "POST", "/ui/api/sessions/" + alices + "/interrupt", "", PAGE).status());
        Answer closed = ui("alice", "POST", "/ui/api/sessions/" + alices + "/close", "", PAGE);
        assertEquals(200, closed.status(), closed.body());
        assertTrue(listed("alice").contains(alices), "a closed session stays listed, as ended");
        Answer ownClose = ui("bob", "POST", "/ui/api/sessions/" + bobs + "/close", "", PAGE);
        assertEquals(200, ownClose.status(), ownClose.body());
    }

    @Test
    @Timeout(60)
    void aListRequestWaitsUntilSomethingChanges() throws Exception {
        String alices = irisSession("alice", "write 1");
        Answer first = ui("alice", "GET", "/ui/api/sessions", "", Map.of());
        String version = first.header("X-Sessions-Version");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Answer> waiting = pool.submit(() -> ui("alice", "GET", "/ui/api/sessions", "since=" + version, Map.of()));
            // the request is still waiting: nothing changed yet (its bound is 20 s)
            assertThrows(java.util.concurrent.TimeoutException.class, () -> waiting.get(1, TimeUnit.SECONDS));
            irisSession("alice", "write 2");
            Answer changed = waiting.get(15, TimeUnit.SECONDS);
            assertEquals(200, changed.status(), changed.body());
            assertNotEquals(version, changed.header("X-Sessions-Version"));
            assertTrue(changed.body().contains(alices), changed.body());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(90)
    void whileOutputPoursOutAPageGetsAtMostOneListPerCoalescingPause() throws Exception {
        serve(true);
        gateway.osUsers.add("alice");
        String mcp = open("alice");
        // output every few milliseconds, each write a change of the list's count, for longer than the test looks
        JsonNode opened = tool("alice", mcp, 30, "session_open", "{\"kind\":\"process\",\"command\":\"sh\","
                + "\"args\":[\"-c\",\"while :; do echo tick; sleep 0.01; done\"],\"mode\":\"pipe\",\"wait_ms\":0}");
        assertFalse(opened.path("isError").asBoolean(), opened::toString);
        String id = opened.path("structuredContent").path("session").asString();
        try {
            String version = ui("alice", "GET", "/ui/api/sessions", "", Map.of()).header("X-Sessions-Version");
            // the page's loop: each answer's version is the next request's since, asked again at once
            int lists = 0;
            long start = System.nanoTime();
            long elapsed;
            do {
                Answer list = ui("alice", "GET", "/ui/api/sessions", "since=" + version, Map.of());
                assertEquals(200, list.status(), list.body());
                assertNotEquals(version, list.header("X-Sessions-Version"), "answered without a change");
                version = list.header("X-Sessions-Version");
                lists++;
                elapsed = (System.nanoTime() - start) / 1_000_000;
            } while (elapsed < 2_000 || lists < 3);
            // each answer built the list once (session_list as alice); without the pause it is one per write
            long allowed = elapsed / UiApi.LIST_COALESCE_MILLIS + 1;
            assertTrue(lists <= allowed, lists + " lists in " + elapsed + " ms; at most " + allowed);
        } finally {
            tool("alice", mcp, 31, "session_close", "{\"session\":\"" + id + "\"}");
        }
    }
}
