package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.security.OriginPolicy;
import iristerm.security.Tokens;

/** Every way a request can be refused, checked on the wire with the status and the error body. */
@Timeout(60)
class McpHttpServerStatusTest extends WithTestServer {

    private static void assertError(HttpResponse<String> response, int status, int code) {
        assertEquals(status, response.statusCode(), response.body());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(null));
        assertTrue(response.body().contains("\"jsonrpc\":\"2.0\"") && response.body().contains("\"code\":" + code),
                response.body());
    }

    @Test
    void missingTokenIs401WithChallenge() throws Exception {
        HttpResponse<String> response = test.send(HttpRequest.newBuilder(test.uri())
                .header("Accept", "application/json, text/event-stream").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(TestServer.INITIALIZE)));
        assertError(response, 401, McpSchema.ErrorCodes.INVALID_REQUEST);
        assertEquals("Bearer realm=\"iris-terminal-mcp\"",
                response.headers().firstValue("WWW-Authenticate").orElse(null));
    }

    @Test
    void wrongTokenIs401WithChallenge() throws Exception {
        HttpResponse<String> response = test.send(test.request(TestServer.INITIALIZE)
                .setHeader("Authorization", "Bearer not-the-right-token-at-all"));
        assertError(response, 401, McpSchema.ErrorCodes.INVALID_REQUEST);
        assertTrue(response.headers().firstValue("WWW-Authenticate").orElse("")
                .startsWith("Bearer realm=\"iris-terminal-mcp\""));
    }

    @Test
    void sdkClientWithWrongTokenFailsToInitialize() {
        try (McpSyncClient client = test.client("wrong-token-0123456789", log -> { })) {
            assertThrows(RuntimeException.class, client::initialize);
        }
    }

    @Test
    void foreignOriginIs403AndAllowedOriginsGetCors() throws Exception {
        assertError(test.send(test.request(TestServer.INITIALIZE).header("Origin", "http://evil.example")), 403,
                McpSchema.ErrorCodes.INVALID_REQUEST);
        assertError(test.send(test.request(TestServer.INITIALIZE).header("Origin", "http://localhost:1")), 403,
                McpSchema.ErrorCodes.INVALID_REQUEST);

        String local = "http://localhost:" + test.server.port();
        HttpResponse<String> fromLocal = test.send(test.request(TestServer.INITIALIZE).header("Origin", local));
        assertEquals(200, fromLocal.statusCode());
        assertEquals(local, fromLocal.headers().firstValue("Access-Control-Allow-Origin").orElse(null));

        HttpResponse<String> preflight = test.send(HttpRequest.newBuilder(test.uri())
                .header("Origin", TestServer.ALLOWED_ORIGIN)
                .header("Access-Control-Request-Method", "POST")
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
        assertEquals(204, preflight.statusCode());
        assertTrue(preflight.headers().firstValue("Access-Control-Allow-Headers").orElse("")
                .contains("Mcp-Session-Id"));
    }

    @Test
    void rebindingHostIs403() throws Exception {
        try (TestServer.RawConnection raw = new TestServer.RawConnection(test.server.port())) {
            raw.send("POST", TestServer.INITIALIZE, "Host: evil.example:" + test.server.port(),
                    "Authorization: Bearer " + TestServer.ALICE_TOKEN, "Accept: application/json, text/event-stream");
            String head = raw.readHead();
            assertTrue(head.startsWith("HTTP/1.1 403"), head);
        }
        try (TestServer.RawConnection raw = new TestServer.RawConnection(test.server.port())) {
            raw.send("POST", TestServer.INITIALIZE, "Host: localhost:" + test.server.port(),
                    "Authorization: Bearer " + TestServer.ALICE_TOKEN, "Accept: application/json, text/event-stream");
            String head = raw.readHead();
            assertTrue(head.startsWith("HTTP/1.1 200"), head);
        }
    }

    @Test
    void unknownSessionIs404() throws Exception {
        assertError(test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", "no-such-session")), 404,
                StreamableCore.SESSION_NOT_FOUND);
        assertError(test.send(test.request(null).header("Mcp-Session-Id", "no-such-session").GET()), 404,
                StreamableCore.SESSION_NOT_FOUND);
    }

    @Test
    void missingSessionIdIs400() throws Exception {
        assertError(test.send(test.request(TestServer.TOOLS_LIST)), 400, McpSchema.ErrorCodes.INVALID_REQUEST);
        assertError(test.send(test.request(null).DELETE()), 400, McpSchema.ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void badAcceptIs400() throws Exception {
        assertError(test.send(test.request(TestServer.INITIALIZE).setHeader("Accept", "application/json")), 400,
                McpSchema.ErrorCodes.INVALID_REQUEST);
        String session = test.initializeSession();
        assertError(test.send(test.request(null).header("Mcp-Session-Id", session).setHeader("Accept", "text/html")
                .GET()), 400, McpSchema.ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void malformedJsonIs400ParseError() throws Exception {
        String session = test.initializeSession();
        assertError(test.send(test.request("{\"jsonrpc\": \"2.0\", ").header("Mcp-Session-Id", session)), 400,
                McpSchema.ErrorCodes.PARSE_ERROR);
        assertError(test.send(test.request("{\"hello\":1}").header("Mcp-Session-Id", session)), 400,
                McpSchema.ErrorCodes.INVALID_REQUEST);
        assertError(test.send(test.request("[" + TestServer.TOOLS_LIST + "]").header("Mcp-Session-Id", session)),
                400, McpSchema.ErrorCodes.INVALID_REQUEST);
        assertError(test.send(test.request("null").header("Mcp-Session-Id", session)), 400,
                McpSchema.ErrorCodes.INVALID_REQUEST);
        assertError(test.send(test.request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}")), 400,
                McpSchema.ErrorCodes.INVALID_PARAMS);
        HttpResponse<String> badUtf8 = test.send(test.request(null).header("Mcp-Session-Id", session)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'{', (byte) 0xC3, '}'})));
        assertError(badUtf8, 400, McpSchema.ErrorCodes.PARSE_ERROR);
        // the session survived all of that
        assertEquals(200, test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", session))
                .statusCode());
    }

    @Test
    void unreadableParamsGetAJsonRpcErrorOnTheRequestStream() throws Exception {
        String session = test.initializeSession();
        HttpResponse<String> response = test.send(test.request("""
                {"jsonrpc":"2.0","id":41,"method":"tools/call","params":"not an object"}""")
                .header("Mcp-Session-Id", session));
        assertEquals(200, response.statusCode());
        assertTrue(response.body().contains("\"id\":41") && response.body().contains("\"code\":-32602"),
                response.body());
    }

    @Test
    void acceptIsMatchedByMediaTypeNotBySubstring() throws Exception {
        for (String accepted : List.of("application/json, text/event-stream", "*/*", "application/*, text/*",
                "Text/Event-Stream;q=0.5, APPLICATION/JSON", "application/json;q=0.001, */*;q=1",
                "text/html, application/json; charset=utf-8 , text/event-stream")) {
            HttpResponse<String> opened = test.send(test.request(TestServer.INITIALIZE).setHeader("Accept", accepted));
            assertEquals(200, opened.statusCode(), accepted);
            // each accepted initialize opened a session: free its slot under the cap for the next one
            assertEquals(200, test.send(test.request(null).DELETE()
                    .header("Mcp-Session-Id", opened.headers().firstValue("Mcp-Session-Id").orElseThrow()))
                    .statusCode());
        }
        for (String refused : List.of("application/json-seq, text/event-streams",
                "application/json, text/event-stream;q=0", "*/*;q=0", "*/*, application/json;q=0",
                "text/html; x=\"application/json\", text/event-stream", "application/json, text/event-stream;q=2",
                "application, json/, /event-stream", "")) {
            assertError(test.send(test.request(TestServer.INITIALIZE).setHeader("Accept", refused)), 400,
                    McpSchema.ErrorCodes.INVALID_REQUEST);
        }
    }

    @Test
    void initializeBeyondTheSessionCapIs429UntilOneIsDeleted() throws Exception {
        List<String> sessions = new ArrayList<>();
        for (int i = 0; i < TestServer.MAX_SESSIONS; i++) {
            sessions.add(test.initializeSession());
        }
        HttpResponse<String> refused = test.send(test.request(TestServer.INITIALIZE));
        assertError(refused, 429, McpSchema.ErrorCodes.INVALID_REQUEST);
        assertTrue(refused.body().contains("DELETE") && refused.body().contains("Too many MCP sessions"),
                refused.body());
        // the cap is per identity
        test.initializeSession(TestServer.BOB_TOKEN);
        assertEquals(200, test.send(test.request(null).header("Mcp-Session-Id", sessions.get(0)).DELETE())
                .statusCode());
        test.initializeSession();
        assertError(test.send(test.request(TestServer.INITIALIZE)), 429, McpSchema.ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void unsupportedProtocolVersionIs400() throws Exception {
        String session = test.initializeSession();
        assertError(test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", "1999-01-01")), 400, McpSchema.ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void otherMethodsAre405() throws Exception {
        HttpResponse<String> put = test.send(test.request(null).PUT(HttpRequest.BodyPublishers.ofString("{}")));
        assertError(put, 405, McpSchema.ErrorCodes.INVALID_REQUEST);
        assertEquals("GET, POST, DELETE", put.headers().firstValue("Allow").orElse(null));
    }

    @Test
    void oversizedBodyIs413WithOrWithoutContentLength() throws Exception {
        String session = test.initializeSession();
        String big = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"pad\":\""
                + "x".repeat(TestServer.MAX_BODY) + "\"}}";
        assertError(test.send(test.request(big).header("Mcp-Session-Id", session)), 413,
                McpSchema.ErrorCodes.INVALID_REQUEST);
        HttpResponse<String> chunked = test.send(test.request(null).header("Mcp-Session-Id", session)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes()))));
        assertError(chunked, 413, McpSchema.ErrorCodes.INVALID_REQUEST);
        assertEquals(200, test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", session))
                .statusCode());
    }

    @Test
    void wrongContentTypeIs415() throws Exception {
        assertError(test.send(test.request(null).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(TestServer.INITIALIZE))), 415,
                McpSchema.ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void otherPathsAre404() throws Exception {
        URI other = test.uri().resolve("/elsewhere");
        assertError(test.send(test.request(TestServer.INITIALIZE).uri(other)), 404,
                McpSchema.ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void noAuthIsRefusedOffLoopbackAndUsesTheDefaultIdentityOnIt() {
        OriginPolicy anywhere = OriginPolicy.forListenHost("0.0.0.0", List.of());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new McpHttpServer.Config("0.0.0.0", 0, null, anywhere, true, 1024, TestServer.MAX_SESSIONS,
                        TestServer.IDLE, TestServer.KEEP_ALIVE, TestServer.HEADER_TIMEOUT, TestServer.CONNECTION_IDLE,
                        HeldBytes.defaultMax()));
        assertTrue(refused.getMessage().contains("without authentication"), refused.getMessage());

        McpHttpServer.Config loopback = new McpHttpServer.Config("127.0.0.1", 0, null,
                OriginPolicy.forListenHost("127.0.0.1", List.of()), true, TestServer.MAX_BODY, TestServer.MAX_SESSIONS,
                TestServer.IDLE, TestServer.KEEP_ALIVE, TestServer.HEADER_TIMEOUT, TestServer.CONNECTION_IDLE,
                        HeldBytes.defaultMax());
        McpHttpServer open = McpHttpServer.start(loopback, transport -> McpServer
                .sync(transport).jsonMapper(TestServer.JSON).jsonSchemaValidator(TestServer.VALIDATOR)
                .toolCall(McpSchema.Tool.builder("whoami", TestServer.JSON, "{\"type\":\"object\"}").build(),
                        (exchange, request) -> McpSchema.CallToolResult.builder()
                                .addTextContent(String.valueOf(exchange.transportContext().get("identity"))).build())
                .build());
        try (McpSyncClient client = McpClient
                .sync(HttpClientStreamableHttpTransport
                        .builder("http://127.0.0.1:" + open.port()).jsonMapper(TestServer.JSON).build())
                .jsonSchemaValidator(TestServer.VALIDATOR).requestTimeout(TestServer.WAIT).build()) {
            client.initialize();
            assertEquals(Tokens.DEFAULT_IDENTITY,
                    TestServer.textOf(client.callTool(TestServer.call("whoami", ""))));
        } finally {
            open.stop();
        }
    }
}
