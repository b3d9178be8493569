package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile input over real HTTP against the packaged jar's {@code serve}: bodies around the limit,
 * slow and incomplete headers, the MCP session cap, Accept variants, a sweep of malformed requests
 * after which the server must be healthy with flat thread and fd counts and a bounded log, and a
 * request in flight at SIGTERM.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpHostileIT {
    private static final String AUTH = "Bearer " + HttpServer.TOKEN;
    private static final String ACCEPT = "application/json, text/event-stream";
    private static final int MIB = 1 << 20;
    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration CONNECTION_IDLE = Duration.ofSeconds(5);
    /** The line cap of the server's stderr, plus its marker. */
    private static final int MAX_LOG_LINE = 1024 + " [... line cut]".length();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(20)).build();
    private final Queue<String> log = new ConcurrentLinkedQueue<>();
    /** Default limits, except short connection timeouts so that tests need not wait long. */
    private HttpServer server;

    @BeforeAll
    void start() throws Exception {
        server = new HttpServer(Files.createTempDirectory("itm-hostile"), List.of(
                "--header-timeout", String.valueOf(HEADER_TIMEOUT.toSeconds()),
                "--connection-idle", String.valueOf(CONNECTION_IDLE.toSeconds())), log::add);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static String initialize(String pad) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"hostile\",\"version\":\"1\"},\"pad\":\"" + pad + "\"}}";
    }

    /** An initialize whose body is {@code size} bytes long. */
    private static byte[] initializeOfSize(int size) {
        int overhead = initialize("").length();
        return initialize("x".repeat(size - overhead)).getBytes(StandardCharsets.UTF_8);
    }

    private HttpRequest.Builder post(URI endpoint, HttpRequest.BodyPublisher body) {
        return HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(60))
                .header("Authorization", AUTH).header("Content-Type", "application/json").header("Accept", ACCEPT)
                .POST(body);
    }

    /** With a Content-Length, or chunked (a stream of unknown length). */
    private HttpResponse<String> postBody(URI endpoint, byte[] body, boolean chunked) throws Exception {
        HttpRequest.BodyPublisher publisher = chunked
                ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                : HttpRequest.BodyPublishers.ofByteArray(body);
        return http.send(post(endpoint, publisher).build(), HttpResponse.BodyHandlers.ofString());
    }

    private void deleteSession(URI endpoint, HttpResponse<String> initialized) throws Exception {
        String id = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
        HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(endpoint).header("Authorization", AUTH)
                .header("Mcp-Session-Id", id).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, deleted.statusCode(), deleted.body());
    }

    private static void assertJsonRpcError(HttpResponse<String> response, int status, int code) {
        assertEquals(status, response.statusCode(), response.body());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(null));
        assertTrue(response.body().startsWith("{\"jsonrpc\":\"2.0\"") && response.body().contains("\"code\":" + code),
                response.body());
    }

    @Test
    void bodiesUpToTheDefaultLimitAreAcceptedAndLargerOnesGet413() throws Exception {
        URI mcp = server.endpoint();
        for (boolean chunked : new boolean[] {false, true}) {
            // over Undertow's own 2 MiB default, under the 4 MiB limit: parsed and answered
            HttpResponse<String> accepted = postBody(mcp, initializeOfSize(3 * MIB), chunked);
            assertEquals(200, accepted.statusCode(), "chunked=" + chunked + ": " + accepted.body());
            assertTrue(accepted.body().contains("\"protocolVersion\""), accepted.body());
            deleteSession(mcp, accepted);

            HttpResponse<String> refused = postBody(mcp, initializeOfSize(5 * MIB), chunked);
            assertJsonRpcError(refused, 413, -32600);
            assertTrue(refused.body().contains("limit of 4194304 bytes"), refused.body());
        }
    }

    @Test
    void aLargerConfiguredLimitAcceptsALargerChunkedBody() throws Exception {
        try (HttpServer big = new HttpServer(Files.createTempDirectory("itm-bigbody"),
                List.of("--max-body-bytes", String.valueOf(8 * MIB)))) {
            HttpResponse<String> accepted = postBody(big.endpoint(), initializeOfSize(6 * MIB), true);
            assertEquals(200, accepted.statusCode(), accepted.body());
            assertTrue(accepted.body().contains("\"protocolVersion\""), accepted.body());
            assertJsonRpcError(postBody(big.endpoint(), initializeOfSize(9 * MIB), true), 413, -32600);
        }
    }

    @Test
    void incompleteHeadersAreCutOffAtTheHeaderTimeout() throws Exception {
        URI mcp = server.endpoint();
        try (Socket socket = new Socket(mcp.getHost(), mcp.getPort())) {
            socket.setSoTimeout(60_000);
            long start = System.nanoTime();
            OutputStream out = socket.getOutputStream();
            out.write(("POST /mcp HTTP/1.1\r\nHost: " + mcp.getAuthority() + "\r\nAuthorization: " + AUTH
                    + "\r\nContent-Ty").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertEquals(-1, socket.getInputStream().read(), "the server answered incomplete headers");
            Duration open = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(open.compareTo(HEADER_TIMEOUT) >= 0 && open.compareTo(HEADER_TIMEOUT.plusSeconds(20)) < 0,
                    "closed after " + open + "; the header timeout is " + HEADER_TIMEOUT);
        }
        // and one that sends nothing at all is closed once idle
        try (Socket socket = new Socket(mcp.getHost(), mcp.getPort())) {
            socket.setSoTimeout(60_000);
            long start = System.nanoTime();
            assertEquals(-1, socket.getInputStream().read());
            Duration open = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(open.compareTo(CONNECTION_IDLE) >= 0 && open.compareTo(CONNECTION_IDLE.plusSeconds(20)) < 0,
                    "closed after " + open + "; the idle timeout is " + CONNECTION_IDLE);
        }
    }

    @Test
    void initializeBeyondTheSessionCapIsRefusedUntilOneIsDeleted() throws Exception {
        try (HttpServer capped = new HttpServer(Files.createTempDirectory("itm-cap"),
                List.of("--max-mcp-sessions", "3"))) {
            URI mcp = capped.endpoint();
            byte[] init = initialize("").getBytes(StandardCharsets.UTF_8);
            List<HttpResponse<String>> open = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                open.add(postBody(mcp, init, false));
                assertEquals(200, open.get(i).statusCode(), open.get(i).body());
            }
            HttpResponse<String> refused = postBody(mcp, init, false);
            assertJsonRpcError(refused, 429, -32600);
            assertTrue(refused.body().contains("Too many MCP sessions") && refused.body().contains("DELETE"),
                    refused.body());
            deleteSession(mcp, open.get(0));
            assertEquals(200, postBody(mcp, init, false).statusCode());
            assertEquals(429, postBody(mcp, init, false).statusCode());
        }
    }

    @Test
    void acceptIsMatchedByMediaType() throws Exception {
        URI mcp = server.endpoint();
        byte[] init = initialize("").getBytes(StandardCharsets.UTF_8);
        for (String accepted : List.of(ACCEPT, "*/*", "text/*, application/*;q=0.2",
                "text/event-stream;q=0.9, application/json")) {
            HttpResponse<String> response = http.send(post(mcp, HttpRequest.BodyPublishers.ofByteArray(init))
                    .setHeader("Accept", accepted).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), accepted + ": " + response.body());
            deleteSession(mcp, response);
        }
        for (String refused : List.of("application/json-patch+json, text/event-streamx", "application/json",
                "application/json, text/event-stream;q=0", "*/*;q=0", "text/plain; a=\"application/json\"")) {
            HttpResponse<String> response = http.send(post(mcp, HttpRequest.BodyPublishers.ofByteArray(init))
                    .setHeader("Accept", refused).build(), HttpResponse.BodyHandlers.ofString());
            assertJsonRpcError(response, 400, -32600);
        }
    }

    // ---- the malformed-request sweep ----

    /** One raw request: what it tries, and its bytes. */
    private record Raw(String kind, byte[] bytes) {
    }

    private static Raw raw(String kind, String head, byte[] body) {
        byte[] headBytes = head.getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return new Raw(kind, all);
    }

    /** A request to /mcp with the given method, extra header lines and body (Content-Length set). */
    private Raw request(String kind, String method, String headers, String body) {
        byte[] payload = body.getBytes(StandardCharsets.UTF_8);
        return raw(kind, method + " /mcp HTTP/1.1\r\nHost: " + server.endpoint().getAuthority() + "\r\n" + headers
                + "Content-Length: " + payload.length + "\r\nConnection: close\r\n\r\n", payload);
    }

    private Raw mcpPost(String kind, String extraHeaders, String body) {
        return request(kind, "POST", "Authorization: " + AUTH + "\r\nContent-Type: application/json\r\nAccept: "
                + ACCEPT + "\r\n" + extraHeaders, body);
    }

    /** Malformed requests of many kinds; {@code session} is a live MCP session for the ones that need one. */
    private List<Raw> malformed(String session, int variant) {
        String host = "Host: " + server.endpoint().getAuthority() + "\r\n";
        String auth = "Authorization: " + AUTH + "\r\n";
        String onSession = "Mcp-Session-Id: " + session + "\r\n";
        String big = "x".repeat(100_000 + variant);
        List<Raw> all = new ArrayList<>();
        for (String method : List.of("BREW", "PUT", "PATCH", "TRACE", "OPTIONS", "HEAD", "CONNECT")) {
            all.add(request("method " + method, method, auth + "Content-Type: application/json\r\n", "{}"));
        }
        all.add(raw("garbage request line", "\u0001\u0002 garbage\r\n\r\n", new byte[0]));
        all.add(raw("no version", "POST /mcp\r\n\r\n", new byte[0]));
        all.add(raw("HTTP/0.9", "GET /mcp\r\n", new byte[0]));
        all.add(raw("wrong path", "POST /" + big + " HTTP/1.1\r\n" + host + "\r\n", new byte[0]));
        all.add(mcpPost("not JSON", onSession, "{\"jsonrpc\": \"2.0\", " + variant));
        all.add(mcpPost("JSON null", onSession, "null"));
        all.add(mcpPost("batch", onSession, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"));
        all.add(mcpPost("empty object", onSession, "{}"));
        all.add(mcpPost("deep nesting", onSession, "[".repeat(5000) + "]".repeat(5000)));
        all.add(mcpPost("huge method", onSession, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + big + "\"}"));
        all.add(mcpPost("huge notification", onSession, "{\"jsonrpc\":\"2.0\",\"method\":\"" + big + "\"}"));
        all.add(mcpPost("huge protocol version", "", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                + "\"params\":{\"protocolVersion\":\"" + big + "\"}}"));
        all.add(mcpPost("params null", onSession, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":null}"));
        all.add(mcpPost("unknown tool", onSession, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"" + big + "\"}}"));
        all.add(mcpPost("unknown terminal session", onSession, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                + "\"params\":{\"name\":\"session_read\",\"arguments\":{\"session\":\"nope-" + variant + "\"}}}"));
        all.add(mcpPost("response to nothing", onSession, "{\"jsonrpc\":\"2.0\",\"id\":\"" + big + "\",\"result\":{}}"));
        all.add(raw("invalid UTF-8", "POST /mcp HTTP/1.1\r\n" + host + auth + onSession + "Content-Type: application/json\r\n"
                + "Accept: " + ACCEPT + "\r\nContent-Length: 9\r\n\r\n", new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'}));
        all.add(mcpPost("unknown session", "Mcp-Session-Id: unknown-" + variant + "\r\n", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"));
        all.add(mcpPost("huge session id", "Mcp-Session-Id: " + big + "\r\n", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"));
        all.add(mcpPost("bad protocol version", onSession + "MCP-Protocol-Version: " + big + "\r\n",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"));
        all.add(mcpPost("huge header", "X-Big: " + big + "\r\n", "{}"));
        all.add(mcpPost("header over Undertow's cap", "X-Bigger: " + "y".repeat(1_100_000) + "\r\n", "{}"));
        all.add(mcpPost("too many headers", "X-Many: 1\r\n".repeat(300), "{}"));
        all.add(request("text/plain", "POST", auth + "Content-Type: text/plain\r\nAccept: " + ACCEPT + "\r\n", "{}"));
        all.add(request("no content type", "POST", auth + "Accept: " + ACCEPT + "\r\n", "{}"));
        all.add(request("multipart", "POST", auth + "Content-Type: multipart/form-data; boundary=x\r\n", "--x--"));
        all.add(request("no token", "POST", "Content-Type: application/json\r\n", "{}"));
        all.add(request("wrong token", "POST", "Authorization: Bearer " + big + "\r\n", "{}"));
        all.add(request("foreign origin", "POST", auth + "Origin: http://evil.example\r\n", "{}"));
        all.add(raw("foreign host", "POST /mcp HTTP/1.1\r\nHost: evil.example\r\n" + auth + "Content-Length: 0\r\n\r\n",
                new byte[0]));
        all.add(raw("truncated body", "POST /mcp HTTP/1.1\r\n" + host + auth + "Content-Type: application/json\r\n"
                + "Accept: " + ACCEPT + "\r\nContent-Length: 1000\r\n\r\n", "{\"jsonrpc\"".getBytes(StandardCharsets.UTF_8)));
        all.add(raw("truncated headers", "POST /mcp HTTP/1.1\r\n" + host + "Accept: appl", new byte[0]));
        all.add(raw("bad chunk size", "POST /mcp HTTP/1.1\r\n" + host + auth + "Content-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", new byte[0]));
        all.add(raw("truncated chunks", "POST /mcp HTTP/1.1\r\n" + host + auth + "Content-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n100\r\n{\"jsonrpc\"", new byte[0]));
        all.add(raw("negative length", "POST /mcp HTTP/1.1\r\n" + host + auth + "Content-Length: -5\r\n\r\n", new byte[0]));
        all.add(raw("length and chunked", "POST /mcp HTTP/1.1\r\n" + host + auth + "Content-Length: 4\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", new byte[0]));
        all.add(raw("GET without session", "GET /mcp HTTP/1.1\r\n" + host + auth + "Accept: text/event-stream\r\n"
                + "Connection: close\r\n\r\n", new byte[0]));
        all.add(raw("DELETE unknown", "DELETE /mcp HTTP/1.1\r\n" + host + auth + "Mcp-Session-Id: gone-" + variant
                + "\r\nConnection: close\r\n\r\n", new byte[0]));
        return all;
    }

    /**
     * Sends one request on its own connection, half-closes, and reads whatever comes back until the
     * server closes (bounded by the socket timeout). Refusals may reset the connection: that counts.
     */
    private static String send(URI endpoint, Raw request) {
        try (Socket socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            socket.setSoTimeout(30_000);
            try {
                socket.getOutputStream().write(request.bytes());
                socket.shutdownOutput();
            } catch (IOException refusedMidway) {
                // the server answered and closed before taking the whole request
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int n;
            while (answer.size() < 64 * 1024 && (n = in.read(buffer)) > 0) {
                answer.write(buffer, 0, n);
            }
            String text = answer.toString(StandardCharsets.ISO_8859_1);
            return text.isEmpty() ? "(closed)" : text.substring(0, Math.min(text.indexOf('\r') < 0 ? text.length()
                    : text.indexOf('\r'), 80));
        } catch (IOException e) {
            return "(reset: " + e.getMessage() + ")";
        }
    }

    private static long count(Path dir) throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.count();
        }
    }

    private record Counts(long threads, long fds) {
    }

    private Counts counts() throws IOException {
        Path proc = Path.of("/proc", String.valueOf(server.process().pid()));
        return new Counts(count(proc.resolve("task")), count(proc.resolve("fd")));
    }

    /**
     * The counts once {@code settled} holds for them, polled every 200 ms for at most 60 s (closed
     * connections take a moment to leave the fd table); the last counts if it never does.
     */
    private Counts settle(BiPredicate<Counts, Counts> settled) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Counts previous = counts();
        while (System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(200);
            Counts now = counts();
            if (settled.test(previous, now)) {
                return now;
            }
            previous = now;
        }
        return previous;
    }

    private int sweep(String session, int rounds, ExecutorService pool) throws Exception {
        URI mcp = server.endpoint();
        List<Future<String>> answers = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            for (Raw request : malformed(session, round)) {
                answers.add(pool.submit(() -> send(mcp, request)));
            }
        }
        for (Future<String> answer : answers) {
            String status = answer.get(120, TimeUnit.SECONDS);
            assertTrue(!status.startsWith("HTTP/1.1 5") && !status.startsWith("HTTP/1.0 5"), status);
        }
        return answers.size();
    }

    /** A terminal session opened, used and closed through the SDK client's MCP session. */
    private static void answersANormalCall(McpSyncClient client) {
        String s = (String) ok(client, "session_open", "command", "cat", "mode", "pipe").get("session");
        Map<String, Object> echoed = ok(client, "session_send", "session", s, "text", "still-alive",
                "wait_ms", 10000, "until", Map.of("pattern", "still-alive\\n"));
        assertEquals("pattern", echoed.get("reason"));
        ok(client, "session_close", "session", s);
    }

    @Test
    void aSweepOfMalformedRequestsLeavesTheServerHealthyWithFlatThreadsFdsAndABoundedLog() throws Exception {
        McpSyncClient client = server.connect(n -> { });
        URI mcp = server.endpoint();
        HttpResponse<String> init = postBody(mcp, initialize("").getBytes(StandardCharsets.UTF_8), false);
        String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
        assertEquals(202, http.send(post(mcp, HttpRequest.BodyPublishers.ofString(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")).header("Mcp-Session-Id", session)
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            // a first round lets pools and caches grow to their working size
            sweep(session, 1, pool);
            answersANormalCall(client);
            Counts before = settle(Counts::equals);
            int logLinesBefore = log.size();
            long logBytesBefore = log.stream().mapToLong(String::length).sum();

            int sent = sweep(session, 8, pool);
            assertTrue(sent >= 300, "sweep sent " + sent);

            answersANormalCall(client);

            Counts after = settle((previous, now) -> now.threads() <= before.threads() + 4
                    && now.fds() <= before.fds() + 4);
            assertTrue(after.threads() <= before.threads() + 4, "threads " + before + " -> " + after);
            assertTrue(after.fds() <= before.fds() + 4, "fds " + before + " -> " + after);

            List<String> sweepLog = new ArrayList<>(log).subList(logLinesBefore, log.size());
            long logBytes = log.stream().mapToLong(String::length).sum() - logBytesBefore;
            for (String line : sweepLog) {
                assertTrue(line.length() <= MAX_LOG_LINE, "log line of " + line.length() + " chars: " + line);
                assertTrue(!line.startsWith("\tat ") && !line.startsWith("Caused by:"),
                        "client mistakes logged with a stack trace: " + String.join("\n", sweepLog));
            }
            assertTrue(logBytes < 200L * sent, logBytes + " bytes of log for " + sent + " requests");
        } finally {
            pool.shutdownNow();
            client.closeGracefully();
        }
    }

    // ---- shutdown ----

    @Test
    void aRequestInFlightAtSigtermIsAnsweredWithAnError() throws Exception {
        HttpServer stopping = new HttpServer(Files.createTempDirectory("itm-sigterm"), List.of());
        try {
            URI mcp = stopping.endpoint();
            HttpResponse<String> init = postBody(mcp, initialize("").getBytes(StandardCharsets.UTF_8), false);
            String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            HttpRequest.Builder onSession = post(mcp, HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"))
                    .header("Mcp-Session-Id", session);
            assertEquals(202, http.send(onSession.build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            String open = http.send(post(mcp, HttpRequest.BodyPublishers.ofString("""
                    {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"session_open",
                     "arguments":{"command":"cat","mode":"pipe"}}}""")).header("Mcp-Session-Id", session).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher opened = Pattern.compile("\"session\":\"([^\"]+)\"").matcher(open);
            assertTrue(opened.find(), "no session in " + open);
            String terminal = opened.group(1);

            HttpResponse<InputStream> waiting = http.send(post(mcp, HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"session_read\","
                            + "\"arguments\":{\"session\":\"" + terminal + "\",\"wait_ms\":50000,\"until\":\"exit\"}}}"))
                    .header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofInputStream());
            // the stream's headers came: the call is under way
            assertEquals(200, waiting.statusCode());
            stopping.process().destroy();
            CompletableFuture<String> body = CompletableFuture.supplyAsync(() -> {
                try (InputStream in = waiting.body()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "(failed: " + e + ")";
                }
            });
            String events = body.get(30, TimeUnit.SECONDS);
            assertTrue(events.contains("\"id\":8") && events.contains("\"code\":-32603")
                    && events.contains("Server shutting down"), events);
            assertTrue(stopping.process().waitFor(30, TimeUnit.SECONDS), "server did not exit on SIGTERM");
        } finally {
            stopping.close();
        }
    }
}
