package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.json.Json;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The packaged jar running `serve` on a free loopback port, as a child process; clients are the
 * SDK's Streamable HTTP client with a bearer token.
 */
final class HttpServer implements ServerUnderTest {
    static final String TOKEN = "test-token-0123456789abcdef";

    private final ServeProcess serve;
    private final Clients clients = new Clients();

    HttpServer(Path dataDir, List<String> options) throws Exception {
        this(dataDir, options, line -> { });
    }

    /** As above, handing each line of the server's stderr (its log) to {@code stderr}. */
    HttpServer(Path dataDir, List<String> options, Consumer<String> stderr) throws Exception {
        List<String> all = new ArrayList<>(options);
        if (!options.contains("--tokens-file")) {
            all.addAll(List.of("--token", TOKEN));
        }
        serve = ServeProcess.start(StdioServer.jar(), dataDir, all, 30, stderr);
    }

    /** A server whose tokens file gives each identity its token (identity → token), on {@code dir}. */
    static HttpServer withTokens(Path dir, Map<String, String> tokens, Consumer<String> stderr) throws Exception {
        Path file = dir.resolve("tokens");
        StringBuilder lines = new StringBuilder();
        tokens.forEach((identity, token) -> lines.append(identity).append(' ').append(token).append('\n'));
        Files.writeString(file, lines);
        return new HttpServer(dir.resolve("data"), List.of("--tokens-file", file.toString()), stderr);
    }

    URI endpoint() {
        return serve.endpoint();
    }

    Process process() {
        return serve.process();
    }

    @Override
    public McpSyncClient connect(Consumer<McpSchema.LoggingMessageNotification> logs,
                                 Consumer<McpSchema.ProgressNotification> progress) {
        return connect(TOKEN, logs, progress);
    }

    McpSyncClient connect(String token, Consumer<McpSchema.LoggingMessageNotification> logs) {
        return connect(token, logs, n -> { });
    }

    McpSyncClient connect(String token, Consumer<McpSchema.LoggingMessageNotification> logs,
                          Consumer<McpSchema.ProgressNotification> progress) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                .builder("http://" + serve.endpoint().getAuthority())
                .endpoint(serve.endpoint().getPath())
                .jsonMapper(Json.MCP)
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + token))
                .build();
        return clients.connect(transport, logs, progress);
    }

    /** The clients, then the server: SIGTERM (it closes its sessions, ending their processes), bounded. */
    @Override
    public void close() {
        clients.closeAll();
        serve.close();
    }
}
