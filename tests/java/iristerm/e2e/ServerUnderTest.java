package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * A running server and a way to connect clients to it. The stdio and HTTP suites implement this;
 * the session scenarios run unchanged against both.
 */
interface ServerUnderTest extends AutoCloseable {
    /** Starts a server on {@code dataDir} with extra command-line options. */
    interface Launcher {
        ServerUnderTest start(Path dataDir, List<String> options) throws Exception;
    }

    /** A new initialized client; {@code logs} receives the server's logging notifications. */
    default McpSyncClient connect(Consumer<McpSchema.LoggingMessageNotification> logs) {
        return connect(logs, n -> { });
    }

    /** ... and {@code progress} the progress notifications of its calls. */
    McpSyncClient connect(Consumer<McpSchema.LoggingMessageNotification> logs,
                          Consumer<McpSchema.ProgressNotification> progress);

    @Override
    void close();
}
