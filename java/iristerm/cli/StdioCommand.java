package iristerm.cli;

import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import iristerm.mcp.Json;
import iristerm.mcp.ServerAssembly;
import iristerm.mcp.ServerContext;
import iristerm.session.SessionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/** MCP over stdin/stdout, for a client that spawns the server. Ends when stdin closes. */
@Command(name = "stdio", mixinStandardHelpOptions = true,
        description = "Serve MCP on stdin/stdout (logs go to stderr).")
final class StdioCommand implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(StdioCommand.class);

    @Mixin
    CommonOptions options;

    @Override
    public void run() {
        PrintStream protocolOut = System.out;
        System.setOut(System.err);
        CountDownLatch stdinClosed = new CountDownLatch(1);
        InputStream in = new FilterInputStream(System.in) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n < 0) {
                    stdinClosed.countDown();
                }
                return n;
            }

            @Override
            public int read() throws IOException {
                int c = super.read();
                if (c < 0) {
                    stdinClosed.countDown();
                }
                return c;
            }
        };
        SessionManager sessions = options.sessionManager();
        String processOff = options.process == CommonOptions.ProcessPolicy.off
                ? "the process engine is off on this server (--process off); ask its administrator" : null;
        ServerContext ctx = new ServerContext(sessions, options.limits(), options.identity, processOff);
        McpSyncServer server = new ServerAssembly(ctx, null).build(
                new StdioServerTransportProvider(Json.MCP, in, protocolOut));
        Thread hook = new Thread(() -> shutdown(server, sessions), "shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        LOG.info("iris-terminal-mcp serving MCP on stdio; data in {}", options.dataDir);
        try {
            stdinClosed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().removeShutdownHook(hook);
        shutdown(server, sessions);
    }

    private static void shutdown(McpSyncServer server, SessionManager sessions) {
        sessions.close();
        server.close();
    }
}
