package iristerm.cli;

import io.modelcontextprotocol.server.McpSyncServer;
import iristerm.http.UiListener;
import iristerm.iris.IrisCalls;
import iristerm.security.Tokens;
import iristerm.stdio.StdioTransport;
import iristerm.ui.UiApi;
import iristerm.ui.UiHandler;
import iristerm.ui.UiLogins;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;

/**
 * MCP over stdin/stdout, for a client that spawns the server. When stdin closes, the requests in
 * flight are answered, then the sessions are closed and the server ends.
 */
@Command(name = "stdio", mixinStandardHelpOptions = true,
        description = "Serve MCP on stdin/stdout (logs go to stderr).")
public final class StdioCommand implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(StdioCommand.class);
    /** beyond the longest wait a call may ask for: time to produce and write the answer */
    private static final Duration DRAIN_MARGIN = Duration.ofSeconds(10);

    @Mixin
    CommonOptions options;

    @Mixin
    IrisOptions irisOptions;

    @Option(names = "--max-line-bytes", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_LINE_BYTES:-16777216}",
            description = "Largest message (one line on stdin); a longer line is answered with an error and skipped "
                    + "(env IRIS_TERMINAL_MAX_LINE_BYTES; default: ${DEFAULT-VALUE}).")
    int maxLineBytes;

    @Option(names = "--ui", paramLabel = "HOST:PORT", defaultValue = "${env:IRIS_TERMINAL_UI}",
            description = "Also serve the browser view of this server's sessions at http://HOST:PORT/ui/ (port 0 picks "
                    + "a free one); its sign-in link is printed on stderr (env IRIS_TERMINAL_UI; default: no view).")
    String ui;

    private final StartPreparation preparation;
    /** Set instead of connecting with the IRIS options (tests drive a fake IRIS this way). */
    private IrisCalls irisOverride;
    /** the protocol's streams; null: the process's stdin and stdout */
    private InputStream in;
    private OutputStream out;

    /** For picocli's full command tree (help); a start through it is not prepared ahead. */
    StdioCommand() {
        this(StartPreparation.none());
    }

    StdioCommand(StartPreparation preparation) {
        this.preparation = preparation;
    }

    /** Runs the stdio server with the given command-line options and IRIS reached through {@code iris}. */
    public static int run(String[] args, IrisCalls iris) {
        StdioCommand command = new StdioCommand();
        command.irisOverride = iris;
        return Main.configure(new CommandLine(command)).execute(args);
    }

    /**
     * Runs the stdio server as a start does, with {@code preparation} begun ahead, on the given streams
     * instead of stdin and stdout (the archive training).
     */
    static int run(String[] args, StartPreparation preparation, InputStream in, OutputStream out) {
        StdioCommand command = new StdioCommand(preparation);
        command.in = in;
        command.out = out;
        return Main.configure(new CommandLine(command)).execute(args);
    }

    @Override
    public void run() {
        if (maxLineBytes < 1024) {
            throw new IllegalArgumentException("--max-line-bytes must be at least 1024");
        }
        // stdio serves the user who started it: the process engine is on unless turned off
        boolean processOn = options.process != CommonOptions.ProcessPolicy.off;
        StdioTransport transport = new StdioTransport(in != null ? in : System.in,
                out != null ? out : protocolStdout(), maxLineBytes);
        ServerRuntime runtime = new ServerRuntime(options, irisOverride != null ? irisOverride : irisOptions.connect(),
                processOn, "the process engine is off on this server (--process off)");
        McpSyncServer server = runtime.assembly.build(transport);
        View view;
        try {
            view = ui == null || ui.isBlank() ? null : View.start(ListenAddress.parse("--ui", ui), runtime, options.identity);
        } catch (RuntimeException e) {
            shutdown(server, runtime, null);
            throw e;
        }
        // the preparation ran alongside all of the above (whichever thread got to a piece first did it);
        // the first request is read only once it is done, so its failure is this start's error
        try {
            preparation.await();
        } catch (StartupError e) {
            shutdown(server, runtime, view);
            throw e;
        }
        Thread hook = new Thread(() -> shutdown(server, runtime, view), "shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        LOG.info("iris-terminal-mcp serving MCP on stdio; data in {}", options.dataDir);
        try {
            transport.serve(Duration.ofMillis(options.limits().maxWaitMillis()).plus(DRAIN_MARGIN));
        } catch (IOException e) {
            LOG.warn("reading stdin failed ({}); shutting down", e.getMessage());
        }
        Runtime.getRuntime().removeShutdownHook(hook);
        shutdown(server, runtime, view);
    }

    /** The browser view a stdio server serves when asked (--ui): its listener, and its streams' handler. */
    private record View(UiListener listener, UiHandler handler) {
        static View start(ListenAddress at, ServerRuntime runtime, String identity) {
            UiLogins logins = new UiLogins();
            UiHandler handler = new UiHandler(new UiApi(runtime.assembly, runtime.sessions), runtime.sessions.changes(),
                    logins, Tokens.none());
            UiListener listener;
            try {
                listener = UiListener.start(at.host(), at.port(), handler);
            } catch (RuntimeException e) {
                handler.close();
                throw StartupError.listening(at.host() + ":" + at.port(), e);
            }
            // stderr: stdout is the MCP stream
            logins.announce(System.err, listener.page().toString(), List.of(identity), "sign in with the link below");
            return new View(listener, handler);
        }

        void close() {
            handler.close();
            listener.close();
        }
    }

    /**
     * The protocol owns the real stdout (unbuffered by System.out's PrintStream, which would hide
     * write errors); anything else printing to System.out lands on stderr.
     */
    private static OutputStream protocolStdout() {
        System.setOut(System.err);
        return new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
    }

    private static void shutdown(McpSyncServer server, ServerRuntime runtime, View view) {
        if (view != null) {
            view.close();
        }
        runtime.close();
        server.close();
    }
}
