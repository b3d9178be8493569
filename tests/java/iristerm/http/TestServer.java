package iristerm.http;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import iristerm.security.OriginPolicy;
import iristerm.security.Tokens;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real {@link McpHttpServer} on a free loopback port with a tiny tool set, plus the HTTP
 * plumbing the tests drive it with.
 */
final class TestServer implements AutoCloseable {

    static final String ALICE_TOKEN = "alice-token-0123456789";
    static final String BOB_TOKEN = "bob-token-0123456789ab";
    static final String ALLOWED_ORIGIN = "https://allowed.example";
    static final int MAX_BODY = 16 * 1024;
    static final Duration IDLE = Duration.ofMinutes(10);
    static final Duration KEEP_ALIVE = Duration.ofMillis(200);
    // above the twenty concurrent clients of the protocol test
    static final int MAX_SESSIONS = 24;
    static final Duration HEADER_TIMEOUT = Duration.ofSeconds(1);
    static final Duration CONNECTION_IDLE = Duration.ofSeconds(2);
    static final Duration WAIT = Duration.ofSeconds(20);

    static final JsonMapper JACKSON = JsonMapper.builder().build();
    static final McpJsonMapper JSON = new JacksonMcpJsonMapper(JACKSON);
    static final JsonSchemaValidator VALIDATOR = new DefaultJsonSchemaValidator(JACKSON);
    private static final String TEXT_SCHEMA = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}";

    static final String INITIALIZE = """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",\
            "capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}""";
    static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    static final String TOOLS_LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    static final String CALL_BLOCK = """
            {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block","arguments":{}}}""";

    final McpHttpServer server;
    final AtomicReference<McpSyncServer> mcp = new AtomicReference<>();
    final AtomicLong clock = new AtomicLong();
    final CountDownLatch blockEntered = new CountDownLatch(1);
    final CountDownLatch blockRelease = new CountDownLatch(1);
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(WAIT).build();

    private TestServer(Tokens tokens) {
        McpHttpServer.Config config = new McpHttpServer.Config("127.0.0.1", 0, tokens,
                OriginPolicy.forListenHost("127.0.0.1", List.of(ALLOWED_ORIGIN)), false, MAX_BODY, MAX_SESSIONS, IDLE,
                KEEP_ALIVE, HEADER_TIMEOUT, CONNECTION_IDLE, HeldBytes.defaultMax());
        server = McpHttpServer.start(config, this::buildServer, clock::get, null);
    }

    /** Alice and Bob, from a tokens file. */
    static TestServer start(Path dir) throws IOException {
        Path file = dir.resolve("tokens");
        Files.writeString(file, "# test identities\nalice " + ALICE_TOKEN + "\n\nbob " + BOB_TOKEN + "\n");
        return new TestServer(Tokens.fromFile(file));
    }

    private McpSyncServer buildServer(McpStreamableServerTransportProvider transport) {
        // tools run on the thread the transport hands the request in on, as the server's own assembly has them
        McpSyncServer built = McpServer.sync(transport)
                .immediateExecution(true)
                .jsonMapper(JSON)
                .jsonSchemaValidator(VALIDATOR)
                .serverInfo("test-server", "1.0")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).logging().build())
                .tools(tool("echo", "Returns its text", (exchange, args) -> text(args.get("text"))),
                        tool("whoami", "Returns the caller's identity",
                                (exchange, args) -> text(exchange.transportContext().get("identity"))),
                        tool("notify", "Logs a message to the caller, then answers", (exchange, args) -> {
                            exchange.loggingNotification(new McpSchema.LoggingMessageNotification(
                                    McpSchema.LoggingLevel.INFO, "test", "working on " + args.get("text")));
                            return text("done " + args.get("text"));
                        }),
                        tool("poll", "Frees its connection after the priming event, then answers", (exchange, args) -> {
                            Runnable close = (Runnable) exchange.transportContext()
                                    .get(StreamableCore.CONTEXT_CLOSE_SSE_STREAM);
                            close.run();
                            return text("polled " + args.get("text"));
                        }),
                        tool("exhaust", "Runs out of memory building its answer", (exchange, args) -> {
                            throw new OutOfMemoryError("Java heap space");
                        }),
                        tool("block", "Waits until the test releases it", (exchange, args) -> {
                            blockEntered.countDown();
                            try {
                                return text(blockRelease.await(WAIT.toSeconds(), TimeUnit.SECONDS) ? "released"
                                        : "timed out");
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                return text("interrupted");
                            }
                        }))
                .build();
        mcp.set(built);
        return built;
    }

    private interface Handler {
        McpSchema.CallToolResult call(McpSyncServerExchange exchange, Map<String, Object> args);
    }

    private static SyncToolSpecification tool(String name, String description, Handler handler) {
        return SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(name, JSON, TEXT_SCHEMA).description(description).build())
                .callHandler((exchange, request) -> handler.call(exchange, request.arguments()))
                .build();
    }

    private static McpSchema.CallToolResult text(Object value) {
        return McpSchema.CallToolResult.builder().addTextContent(String.valueOf(value)).build();
    }

    /** An SDK client (not yet initialized) authenticating with {@code token}. */
    McpSyncClient client(String token, Consumer<McpSchema.LoggingMessageNotification> logs) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                .builder("http://127.0.0.1:" + server.port())
                .endpoint(McpHttpServer.ENDPOINT_PATH)
                .jsonMapper(JSON)
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + token))
                .build();
        return McpClient.sync(transport)
                .requestTimeout(WAIT)
                .initializationTimeout(WAIT)
                .jsonSchemaValidator(VALIDATOR)
                .loggingConsumer(logs)
                .build();
    }

    static McpSchema.CallToolRequest call(String tool, String text) {
        return McpSchema.CallToolRequest.builder(tool).arguments(Map.of("text", text)).build();
    }

    static String textOf(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    URI uri() {
        return server.endpoint();
    }

    /** A request to /mcp with Alice's token and the Accept and Content-Type an MCP client sends. */
    HttpRequest.Builder request(String body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri()).timeout(WAIT)
                .header("Authorization", "Bearer " + ALICE_TOKEN)
                .header("Accept", "application/json, text/event-stream");
        return body == null ? builder : builder.header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Opens a session over raw HTTP as Alice and returns its id. */
    String initializeSession() throws IOException, InterruptedException {
        return initializeSession(ALICE_TOKEN);
    }

    String initializeSession(String token) throws IOException, InterruptedException {
        HttpResponse<String> response = send(request(INITIALIZE).setHeader("Authorization", "Bearer " + token));
        if (response.statusCode() != 200) {
            throw new AssertionError("initialize answered " + response.statusCode() + ": " + response.body());
        }
        String session = response.headers().firstValue("Mcp-Session-Id").orElseThrow();
        HttpResponse<String> initialized = send(request(INITIALIZED).setHeader("Authorization", "Bearer " + token)
                .header("Mcp-Session-Id", session));
        if (initialized.statusCode() != 202) {
            throw new AssertionError("initialized answered " + initialized.statusCode());
        }
        return session;
    }

    /** Header lines of an MCP request as Alice on {@code session}, for a {@link RawConnection}. */
    String[] headers(String session) {
        return new String[] {"Host: 127.0.0.1:" + server.port(), "Authorization: Bearer " + ALICE_TOKEN,
                "Accept: application/json, text/event-stream", "Mcp-Session-Id: " + session};
    }

    /**
     * A raw HTTP/1.1 connection, for what java.net.http will not do: set Host, or vanish mid-response.
     */
    static final class RawConnection implements AutoCloseable {

        private final Socket socket;

        RawConnection(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout((int) WAIT.toMillis());
        }

        /** Sends a request; {@code headers} are full header lines. */
        void send(String method, String body, String... headers) throws IOException {
            StringBuilder request = new StringBuilder(method).append(" /mcp HTTP/1.1\r\n");
            for (String header : headers) {
                request.append(header).append("\r\n");
            }
            byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            if (body != null) {
                request.append("Content-Type: application/json\r\nContent-Length: ").append(payload.length)
                        .append("\r\n");
            }
            request.append("\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(payload);
            out.flush();
        }

        /** Reads the status line and headers (not the body). */
        String readHead() throws IOException {
            InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("connection closed inside the response head: " + head);
                }
                head.append((char) b);
            }
            return head.toString();
        }

        /** Reads until the server closes the connection; returns what came. */
        String readToEnd() throws IOException {
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Override
    public void close() {
        blockRelease.countDown();
        server.stop();
    }
}
