package iristerm.e2e;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.mcp.Json;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The packaged jar spawned as `java -jar iris-terminal-mcp.jar stdio`, one process per client. */
final class StdioServer implements ServerUnderTest {
    private final Path dataDir;
    private final List<String> options;
    private final List<McpSyncClient> clients = new ArrayList<>();

    StdioServer(Path dataDir, List<String> options) {
        this.dataDir = dataDir;
        this.options = options;
    }

    static Path jar() {
        String jar = System.getProperty("iristerm.jar", "target/iris-terminal-mcp.jar");
        return Path.of(jar).toAbsolutePath();
    }

    @Override
    public McpSyncClient connect(Consumer<McpSchema.LoggingMessageNotification> logs) {
        List<String> args = new ArrayList<>(List.of("-jar", jar().toString(), "stdio", "--data-dir", dataDir.toString()));
        args.addAll(options);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(java).args(args).build(), Json.MCP);
        transport.setStdErrorHandler(line -> { });
        McpSyncClient client = McpClient.sync(transport)
                .requestTimeout(Duration.ofSeconds(90))
                .initializationTimeout(Duration.ofSeconds(30))
                .loggingConsumer(logs)
                .build();
        client.initialize();
        synchronized (clients) {
            clients.add(client);
        }
        return client;
    }

    /** Closing the client closes the server's stdin, which ends the server gracefully. */
    @Override
    public void close() {
        synchronized (clients) {
            for (McpSyncClient c : clients) {
                c.closeGracefully();
            }
            clients.clear();
        }
    }
}
