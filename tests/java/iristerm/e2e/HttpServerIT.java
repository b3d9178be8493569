package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static iristerm.e2e.Mcp.error;
import static iristerm.e2e.Mcp.num;
import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What only the HTTP server has: tokens, identities, origin checks, many clients, shutdown. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HttpServerIT {
    private static final String INIT = """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
             "capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}""";

    private static HttpResponse<String> post(URI endpoint, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(INIT));
        headers.forEach(b::setHeader);
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** java.net.http will not send a foreign Host header (a DNS-rebinding request does): a plain socket does. */
    private static int rawStatus(URI endpoint, String host, String auth) throws Exception {
        try (Socket socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            socket.setSoTimeout(10_000);
            byte[] body = INIT.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + endpoint.getPath() + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: " + auth
                    + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                    + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            String status = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    @Test
    void tokensAndOriginsAreChecked() throws Exception {
        try (HttpServer server = new HttpServer(Files.createTempDirectory("itm-auth"), List.of())) {
            URI mcp = server.endpoint();
            HttpResponse<String> none = post(mcp, Map.of());
            assertEquals(401, none.statusCode());
            assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
            assertEquals(401, post(mcp, Map.of("Authorization", "Bearer wrong-token-0123456789")).statusCode());
            String auth = "Bearer " + HttpServer.TOKEN;
            assertEquals(403, post(mcp, Map.of("Authorization", auth, "Origin", "http://evil.example")).statusCode());
            assertEquals(403, rawStatus(mcp, "evil.example:" + mcp.getPort(), auth));
            assertEquals(200, post(mcp, Map.of("Authorization", auth,
                    "Origin", "http://localhost:" + mcp.getPort())).statusCode());
        }
    }

    @Test
    void identitiesCannotTouchEachOthersSessions() throws Exception {
        Path dir = Files.createTempDirectory("itm-ids");
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "alice alice-token-0123456789\nbob bob-token-0123456789abc\n");
        try (HttpServer server = new HttpServer(dir.resolve("data"), List.of("--tokens-file", tokens.toString()))) {
            McpSyncClient alice = server.connect("alice-token-0123456789", n -> { });
            McpSyncClient bob = server.connect("bob-token-0123456789abc", n -> { });
            String s = (String) ok(alice, "session_open", "command", "cat", "mode", "pipe").get("session");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> bobs = (List<Map<String, Object>>) ok(bob, "session_list").get("sessions");
            assertTrue(bobs.stream().noneMatch(m -> s.equals(m.get("session"))));
            assertTrue(SessionScenarios.completeSession(alice, "").contains(s));
            assertFalse(SessionScenarios.completeSession(bob, "").contains(s), "completion shows another's session");
            assertEquals(List.of(), SessionScenarios.completeSession(bob, s));
            for (String tool : List.of("session_read", "session_close", "session_list")) {
                assertTrue(error(bob, tool, "session", s).contains("no session"), tool);
            }
            assertTrue(error(bob, "session_send", "session", s, "text", "x").contains("no session"));
            assertTrue(error(bob, "session_signal", "session", s, "signal", "KILL").contains("no session"));
            Map<String, Object> still = ok(alice, "session_send", "session", s, "text", "mine", "wait_ms", 5000,
                    "until", Map.of("pattern", "mine\\n"));
            assertEquals("pattern", still.get("reason"));
            @SuppressWarnings("unchecked")
            Map<String, Object> row = ((List<Map<String, Object>>) ok(alice, "session_list", "session", s)
                    .get("sessions")).get(0);
            assertEquals("alice", row.get("owner"));
        }
    }

    @Test
    void twentyClientsDoFiftyCallsEachWithoutError() throws Exception {
        try (HttpServer server = new HttpServer(Files.createTempDirectory("itm-load"), List.of("--max-sessions", "64"))) {
            ExecutorService pool = Executors.newFixedThreadPool(20);
            List<Future<Integer>> results = new ArrayList<>();
            for (int c = 0; c < 20; c++) {
                int client = c;
                results.add(pool.submit(() -> {
                    McpSyncClient mcp = server.connect(n -> { });
                    String s = (String) ok(mcp, "session_open", "command", "cat", "mode", "pipe").get("session");
                    int done = 0;
                    for (int i = 0; i < 49; i++) {
                        String tok = "c" + client + "-" + i;
                        Map<String, Object> r = ok(mcp, "session_send", "session", s, "text", tok, "wait_ms", 10000,
                                "until", Map.of("pattern", tok + "\\n"));
                        assertEquals("pattern", r.get("reason"));
                        done++;
                    }
                    ok(mcp, "session_close", "session", s);
                    return done + 1;
                }));
            }
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(150, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertEquals(1000, total);
        }
    }

    @Test
    void aClientThatDisconnectsMidCallLeavesTheServerHealthy() throws Exception {
        try (HttpServer server = new HttpServer(Files.createTempDirectory("itm-disc"), List.of())) {
            McpSyncClient leaving = server.connect(n -> { });
            String s = (String) ok(leaving, "session_open", "command", "cat", "mode", "pipe").get("session");
            Thread waiting = new Thread(() -> {
                try {
                    Mcp.call(leaving, "session_read", "session", s, "wait_ms", 20000, "until", "exit");
                } catch (RuntimeException expected) {
                    // the client goes away under it
                }
            });
            waiting.start();
            // the read is under way once the session shows the reader's activity; close the client under it
            leaving.close();
            waiting.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(waiting.isAlive(), "closing the client must end its pending call");

            McpSyncClient next = server.connect(n -> { });
            String t = (String) ok(next, "session_open", "command", "cat", "mode", "pipe").get("session");
            Map<String, Object> r = ok(next, "session_send", "session", t, "text", "alive", "wait_ms", 5000,
                    "until", Map.of("pattern", "alive\\n"));
            assertEquals("pattern", r.get("reason"));
        }
    }

    @Test
    void gracefulShutdownEndsChildProcesses() throws Exception {
        HttpServer server = new HttpServer(Files.createTempDirectory("itm-stop"), List.of());
        List<ProcessHandle> children = new ArrayList<>();
        try {
            McpSyncClient c = server.connect(n -> { });
            for (String mode : List.of("pty", "pipe")) {
                long pid = num(ok(c, "session_open", "command", "sleep", "args", List.of("1000"), "mode", mode), "pid");
                children.add(ProcessHandle.of(pid).orElseThrow());
            }
            Map<String, Object> bash = ok(c, "session_open", "command", "bash", "args", List.of("--norc"));
            children.add(ProcessHandle.of(num(bash, "pid")).orElseThrow());
        } finally {
            server.process().destroy();
            assertTrue(server.process().waitFor(30, TimeUnit.SECONDS), "server did not exit on SIGTERM");
            server.close();
        }
        for (ProcessHandle child : children) {
            child.onExit().get(10, TimeUnit.SECONDS);
            assertFalse(child.isAlive(), "child " + child.pid() + " outlived the server");
        }
    }
}
