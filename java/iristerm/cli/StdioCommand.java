package iristerm.cli;

import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import iristerm.iris.IrisCalls;
import iristerm.mcp.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
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
public final class StdioCommand implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(StdioCommand.class);

    @Mixin
    CommonOptions options;

    @Mixin
    IrisOptions irisOptions;

    /** Set instead of connecting with the IRIS options (tests drive a fake IRIS this way). */
    private IrisCalls irisOverride;

    /** Runs the stdio server with the given command-line options and IRIS reached through {@code iris}. */
    public static int run(String[] args, IrisCalls iris) {
        StdioCommand command = new StdioCommand();
        command.irisOverride = iris;
        return new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
    }

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
        // stdio serves the user who started it: the process engine is on unless turned off
        boolean processOn = options.process != CommonOptions.ProcessPolicy.off;
        ServerRuntime runtime = new ServerRuntime(options, irisOverride != null ? irisOverride : irisOptions.connect(),
                processOn, "the process engine is off on this server (--process off)");
        McpSyncServer server = runtime.assembly.build(new StdioServerTransportProvider(Json.MCP, in, protocolOut));
        Thread hook = new Thread(() -> shutdown(server, runtime), "shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        LOG.info("iris-terminal-mcp serving MCP on stdio; data in {}", options.dataDir);
        try {
            stdinClosed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().removeShutdownHook(hook);
        shutdown(server, runtime);
    }

    private static void shutdown(McpSyncServer server, ServerRuntime runtime) {
        runtime.close();
        server.close();
    }
}
