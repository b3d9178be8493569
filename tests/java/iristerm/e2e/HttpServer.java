package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.mcp.Json;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged jar running `serve` on a free loopback port, as a child process; clients are the
 * SDK's Streamable HTTP client with a bearer token.
 */
final class HttpServer implements ServerUnderTest {
    static final String TOKEN = "test-token-0123456789abcdef";
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+/mcp)");

    private final Process process;
    private final URI endpoint;
    private final Clients clients = new Clients();

    HttpServer(Path dataDir, List<String> options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", StdioServer.jar().toString(), "serve", "--listen", "127.0.0.1:0",
                "--data-dir", dataDir.toString()));
        if (!options.contains("--tokens-file")) {
            cmd.addAll(List.of("--token", TOKEN));
        }
        cmd.addAll(options);
        process = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        CompletableFuture<URI> ready = new CompletableFuture<>();
        Thread drain = new Thread(() -> {
            try (BufferedReader err = new BufferedReader(
                    new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = err.readLine()) != null) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        ready.complete(URI.create(m.group(1)));
                    }
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IllegalStateException("server exited before listening"));
        }, "server-stderr");
        drain.setDaemon(true);
        drain.start();
        endpoint = ready.get(30, TimeUnit.SECONDS);
    }

    URI endpoint() {
        return endpoint;
    }

    Process process() {
        return process;
    }

    @Override
    public McpSyncClient connect(Consumer<McpSchema.LoggingMessageNotification> logs) {
        return connect(TOKEN, logs);
    }

    McpSyncClient connect(String token, Consumer<McpSchema.LoggingMessageNotification> logs) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                .builder("http://" + endpoint.getAuthority())
                .endpoint(endpoint.getPath())
                .jsonMapper(Json.MCP)
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + token))
                .build();
        return clients.connect(transport, logs);
    }

    /** SIGTERM: the server closes its sessions (ending their processes) and exits. */
    @Override
    public void close() {
        clients.closeAll();
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
