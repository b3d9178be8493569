package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.json.Json;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A server spawned as a child JVM speaking MCP on stdio, one process per client: by default the
 * packaged jar ({@code java -jar iris-terminal-mcp.jar stdio}).
 */
final class StdioServer implements ServerUnderTest {
    private final Path dataDir;
    private final List<String> options;
    private final List<String> launch;
    private final Map<String, String> env;
    private final Consumer<String> stderr;
    private final Clients clients = new Clients();

    StdioServer(Path dataDir, List<String> options) {
        this(dataDir, options, line -> { });
    }

    /** As above, handing each line the server writes to stderr (its log) to {@code stderr}. */
    StdioServer(Path dataDir, List<String> options, Consumer<String> stderr) {
        this(dataDir, options, List.of("-jar", jar().toString(), "stdio"), Map.of(), stderr);
    }

    /** @param launch the JVM arguments that start a stdio server, e.g. -cp … Main stdio */
    StdioServer(Path dataDir, List<String> options, List<String> launch, Map<String, String> env) {
        this(dataDir, options, launch, env, line -> { });
    }

    private StdioServer(Path dataDir, List<String> options, List<String> launch, Map<String, String> env,
                        Consumer<String> stderr) {
        this.dataDir = dataDir;
        this.options = options;
        this.launch = launch;
        this.env = env;
        this.stderr = stderr;
    }

    static Path jar() {
        String jar = System.getProperty("iristerm.jar", "target/iris-terminal-mcp.jar");
        return Path.of(jar).toAbsolutePath();
    }

    @Override
    public McpSyncClient connect(Consumer<McpSchema.LoggingMessageNotification> logs,
                                 Consumer<McpSchema.ProgressNotification> progress) {
        List<String> args = new ArrayList<>(launch);
        args.addAll(List.of("--data-dir", dataDir.toString()));
        args.addAll(options);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        StdioClientTransport transport = new StdioClientTransport(
                ServerParameters.builder(java).args(args).env(env).build(), Json.MCP);
        transport.setStdErrorHandler(stderr::accept);
        return clients.connect(transport, logs, progress);
    }

    /** Closing the client closes the server's stdin, which ends the server gracefully. */
    @Override
    public void close() {
        clients.closeAll();
    }
}
