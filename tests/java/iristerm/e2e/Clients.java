package iristerm.e2e;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The SDK clients a test server handed out: made the same way for every transport, closed together. */
final class Clients {
    private final List<McpSyncClient> open = new ArrayList<>();

    McpSyncClient connect(McpClientTransport transport, Consumer<McpSchema.LoggingMessageNotification> logs,
                          Consumer<McpSchema.ProgressNotification> progress) {
        McpSyncClient client = McpClient.sync(transport)
                .requestTimeout(Duration.ofSeconds(90))
                .initializationTimeout(Duration.ofSeconds(30))
                .loggingConsumer(logs)
                .progressConsumer(progress)
                // every structured result is validated against its tool's output schema (the server does not)
                .enableCallToolSchemaCaching(true)
                .build();
        client.initialize();
        synchronized (open) {
            open.add(client);
        }
        return client;
    }

    void closeAll() {
        synchronized (open) {
            for (McpSyncClient c : open) {
                c.closeGracefully();
            }
            open.clear();
        }
    }
}
