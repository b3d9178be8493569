package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

/** MCP over the Streamable HTTP transport, driven by the SDK's own client and by raw HTTP. */
@Timeout(120)
class McpHttpServerProtocolTest extends WithTestServer {

    @Test
    void sdkClientInitializesListsAndCallsTools() {
        try (McpSyncClient client = test.client(TestServer.ALICE_TOKEN, log -> { })) {
            McpSchema.InitializeResult init = client.initialize();
            assertEquals("test-server", init.serverInfo().name());
            List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).sorted().toList();
            assertEquals(List.of("block", "echo", "exhaust", "notify", "poll", "whoami"), names);
            McpSchema.CallToolResult result = client.callTool(TestServer.call("echo", "héllo ✓"));
            assertEquals("héllo ✓", TestServer.textOf(result));
        }
    }

    @Test
    void toolNotificationTravelsOnThePostStreamBeforeTheResult() throws Exception {
        CountDownLatch logged = new CountDownLatch(1);
        List<String> messages = new CopyOnWriteArrayList<>();
        try (McpSyncClient client = test.client(TestServer.ALICE_TOKEN, log -> {
            messages.add(log.data());
            logged.countDown();
        })) {
            client.initialize();
            McpSchema.CallToolResult result = client.callTool(TestServer.call("notify", "job-7"));
            assertEquals("done job-7", TestServer.textOf(result));
            assertTrue(logged.await(10, TimeUnit.SECONDS), "logging notification not received");
            assertEquals(List.of("working on job-7"), messages);
        }
    }

    @Test
    void toolNotificationIsAnSseEventOfThePostResponse() throws Exception {
        String session = test.initializeSession();
        HttpResponse<String> response = test.send(test.request("""
                {"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"notify","arguments":{"text":"x"}}}""")
                .header("Mcp-Session-Id", session));
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        String body = response.body();
        int notification = body.indexOf("notifications/message");
        int result = body.indexOf("\"id\":9");
        assertTrue(notification >= 0 && result > notification, body);
    }

    @Test
    void serverInitiatedMessagesTravelOnTheGetStream() throws Exception {
        String session = test.initializeSession();
        HttpRequest get = test.request(null).header("Mcp-Session-Id", session).GET()
                .setHeader("Accept", "text/event-stream").build();
        HttpResponse<InputStream> stream = test.http.send(get, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, stream.statusCode());
        try (SseReader events = new SseReader(stream.body())) {
            test.mcp.get().notifyToolsListChanged();
            SseReader.Event event = events.next(TestServer.WAIT);
            while (event != null && event.priming()) {
                event = events.next(TestServer.WAIT);
            }
            assertNotNull(event, "the stream ended without the notification");
            assertTrue(event.data().contains("notifications/tools/list_changed"), event.data());
        }
    }

    @Test
    void aCallThatRunsOutOfMemoryIsAnsweredWithAnError() {
        try (McpSyncClient client = test.client(TestServer.ALICE_TOKEN, log -> { })) {
            client.initialize();
            McpError error = assertThrows(McpError.class, () -> client.callTool(TestServer.call("exhaust", "")));
            assertTrue(error.getMessage().contains("ran out of memory"), error.getMessage());
            assertEquals("x", TestServer.textOf(client.callTool(TestServer.call("echo", "x"))));
        }
    }

    @Test
    void toolHandlersSeeTheTokensIdentity() {
        try (McpSyncClient alice = test.client(TestServer.ALICE_TOKEN, log -> { });
                McpSyncClient bob = test.client(TestServer.BOB_TOKEN, log -> { })) {
            alice.initialize();
            bob.initialize();
            McpSchema.CallToolRequest whoami = TestServer.call("whoami", "");
            assertEquals("alice", TestServer.textOf(alice.callTool(whoami)));
            assertEquals("bob", TestServer.textOf(bob.callTool(whoami)));
        }
    }

    @Test
    void aSessionServesOnlyTheIdentityThatOpenedIt() throws Exception {
        String aliceSession = test.initializeSession();
        HttpResponse<String> asBob = test.send(test.request(TestServer.TOOLS_LIST)
                .setHeader("Authorization", "Bearer " + TestServer.BOB_TOKEN).header("Mcp-Session-Id", aliceSession));
        assertEquals(404, asBob.statusCode());
        HttpResponse<String> asAlice = test.send(test.request(TestServer.TOOLS_LIST)
                .header("Mcp-Session-Id", aliceSession));
        assertEquals(200, asAlice.statusCode());
    }

    @Test
    void deleteEndsTheSession() throws Exception {
        String session = test.initializeSession();
        HttpResponse<String> deleted = test.send(test.request(null).header("Mcp-Session-Id", session).DELETE());
        assertEquals(200, deleted.statusCode());
        HttpResponse<String> after = test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", session));
        assertEquals(404, after.statusCode());
        assertTrue(after.body().contains("-32001"), after.body());
    }

    @Test
    void twentyConcurrentClientsMakeFiftyCallsEachWithoutError() throws Exception {
        int clients = 20;
        int calls = 50;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                String name = "client-" + c;
                String token = c % 2 == 0 ? TestServer.ALICE_TOKEN : TestServer.BOB_TOKEN;
                results.add(pool.submit(() -> {
                    int ok = 0;
                    try (McpSyncClient client = test.client(token, log -> { })) {
                        client.initialize();
                        for (int i = 0; i < calls; i++) {
                            String text = name + "/" + i;
                            McpSchema.CallToolResult result = client.callTool(
                                    TestServer.call("echo", text));
                            if (text.equals(TestServer.textOf(result)) && !Boolean.TRUE.equals(result.isError())) {
                                ok++;
                            }
                        }
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (Future<Integer> result : results) {
                total += result.get(100, TimeUnit.SECONDS);
            }
            assertEquals(clients * calls, total);
        } finally {
            pool.shutdownNow();
        }
        test.server.transport().streamsClosed().get(10, TimeUnit.SECONDS);
    }
}
