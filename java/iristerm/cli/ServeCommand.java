package iristerm.cli;

import iristerm.http.HeldBytes;
import iristerm.http.McpHttpServer;
import iristerm.security.OriginPolicy;
import iristerm.security.Tokens;
import iristerm.ui.UiApi;
import iristerm.ui.UiHandler;
import iristerm.ui.UiLogins;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** MCP over Streamable HTTP on Undertow: the standalone server. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve MCP over Streamable HTTP at http://HOST:PORT/mcp (bearer token required).",
                "Without --token or --tokens-file a token is generated, stored 0600 in the data directory, "
                        + "and printed to stderr with a ready-to-paste client configuration."})
final class ServeCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
    /** A day: far beyond any sensible connection timeout, and within what Undertow can take. */
    private static final long MAX_TIMEOUT_SECONDS = 86_400;
    /** how long a shutdown that began during the start waits for it to finish before exiting regardless */
    private static final long START_LIMIT_SECONDS = 60;

    private final StartPreparation preparation;

    @Mixin
    CommonOptions options;

    @Mixin
    IrisOptions irisOptions;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "${env:IRIS_TERMINAL_LISTEN:-127.0.0.1:8765}",
            description = "Address to listen on; port 0 picks a free one (env IRIS_TERMINAL_LISTEN; default: ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:IRIS_TERMINAL_TOKEN}",
            description = "The bearer token clients must send (identity \"default\"); env IRIS_TERMINAL_TOKEN.")
    String token;

    @Option(names = "--tokens-file", paramLabel = "FILE", defaultValue = "${env:IRIS_TERMINAL_TOKENS_FILE}",
            description = "File of \"identity token\" lines: several identities, each owning its own sessions "
                    + "(env IRIS_TERMINAL_TOKENS_FILE).")
    Path tokensFile;

    @Option(names = "--allow-origin", paramLabel = "ORIGIN", split = ",", defaultValue = "${env:IRIS_TERMINAL_ALLOW_ORIGIN}",
            description = "Extra allowed Origin (e.g. http://localhost:6274 for the MCP Inspector); repeatable or "
                    + "comma-separated (env IRIS_TERMINAL_ALLOW_ORIGIN).")
    List<String> allowOrigins = List.of();

    @Option(names = "--no-auth", defaultValue = "${env:IRIS_TERMINAL_NO_AUTH:-false}",
            description = "Serve without a token: loopback listeners only, prints a warning (env IRIS_TERMINAL_NO_AUTH).")
    boolean noAuth;

    @Option(names = "--max-body-bytes", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_BODY_BYTES:-4194304}",
            description = "Largest request body (env IRIS_TERMINAL_MAX_BODY_BYTES; default: ${DEFAULT-VALUE}).")
    int maxBodyBytes;

    @Option(names = "--max-held-bytes", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_HELD_BYTES:-0}",
            description = "Memory for what the server holds for clients: the events all MCP sessions keep so that "
                    + "clients can resume streams, and what open connections have not written yet; a connection "
                    + "whose client stopped reading is dropped first, then the identity holding the most loses its "
                    + "oldest events (env IRIS_TERMINAL_MAX_HELD_BYTES; default 0: a quarter of the JVM's maximum heap).")
    long maxHeldBytes;

    @Option(names = "--mcp-session-idle", paramLabel = "SECONDS", defaultValue = "${env:IRIS_TERMINAL_MCP_SESSION_IDLE:-1800}",
            description = "Close MCP sessions (not terminal sessions) idle this long (default: ${DEFAULT-VALUE}).")
    long mcpSessionIdleSeconds;

    @Option(names = "--max-mcp-sessions", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_MCP_SESSIONS:-256}",
            description = "Open MCP sessions (client connections, not terminal sessions) per identity; initialize "
                    + "beyond is refused with 429 (env IRIS_TERMINAL_MAX_MCP_SESSIONS; default: ${DEFAULT-VALUE}).")
    int maxMcpSessions;

    @Option(names = "--header-timeout", paramLabel = "SECONDS", defaultValue = "${env:IRIS_TERMINAL_HEADER_TIMEOUT:-30}",
            description = "Close a connection whose request headers are not complete this long after they began "
                    + "(env IRIS_TERMINAL_HEADER_TIMEOUT; default: ${DEFAULT-VALUE}).")
    long headerTimeoutSeconds;

    @Option(names = "--connection-idle", paramLabel = "SECONDS", defaultValue = "${env:IRIS_TERMINAL_CONNECTION_IDLE:-120}",
            description = "Close a connection that has sent no request for this long (env IRIS_TERMINAL_CONNECTION_IDLE; "
                    + "default: ${DEFAULT-VALUE}).")
    long connectionIdleSeconds;

    /** For picocli's full command tree (help); a start through it is not prepared ahead. */
    ServeCommand() {
        this(StartPreparation.none());
    }

    ServeCommand(StartPreparation preparation) {
        this.preparation = preparation;
    }

    @Override
    public Integer call() throws IOException {
        // The endpoint takes requests before start() returns (the preparation is awaited after it
        // opens), so the hook is there first: a SIGTERM at any moment after the endpoint opened still
        // answers subscriptions and ends sessions, once the start it interrupted has finished.
        CompletableFuture<Serving> started = new CompletableFuture<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeOnceStarted(started), "shutdown"));
        Serving serving;
        try {
            serving = start();
        } catch (Throwable e) {
            // whatever ended the start, the hook must not wait for it
            started.completeExceptionally(e);
            throw e;
        }
        started.complete(serving);
        serving.announce();
        serving.awaitClosed();
        return 0;
    }

    /** The shutdown hook: closes the server once its start has finished, if it started. */
    private static void closeOnceStarted(CompletableFuture<Serving> started) {
        Serving serving;
        try {
            serving = started.get(START_LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return; // the start failed and closed what it had opened
        } catch (TimeoutException e) {
            LOG.warn("shutting down while the start has not finished after {} s: exiting without closing sessions",
                    START_LIMIT_SECONDS);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        serving.close();
    }

    /**
     * The running server: what {@link #start} opened, closed in reverse order by {@link #close}. The
     * archive training starts one, speaks to it and closes it.
     */
    static final class Serving implements AutoCloseable {
        private final ServerRuntime runtime;
        private final UiHandler ui;
        final McpHttpServer http;
        private final boolean processOn;
        private final String shownToken;
        private final Tokens tokens;
        private final UiLogins uiLogins;
        private final CountDownLatch stopped = new CountDownLatch(1);

        private Serving(ServerRuntime runtime, UiHandler ui, McpHttpServer http, boolean processOn, String shownToken,
                Tokens tokens, UiLogins uiLogins) {
            this.runtime = runtime;
            this.ui = ui;
            this.http = http;
            this.processOn = processOn;
            this.shownToken = shownToken;
            this.tokens = tokens;
            this.uiLogins = uiLogins;
        }

        /** The "listening" line, the client configuration for a generated token, the browser view's sign-in. */
        void announce() {
            System.err.println("iris-terminal-mcp listening on " + http.endpoint() + " (process engine "
                    + (processOn ? "on" : "off")
                    + (runtime.iris != null ? ", IRIS " + runtime.iris.describe() : ", no IRIS") + ")");
            if (shownToken != null) {
                printClientConfig(http.endpoint().toString(), shownToken);
            }
            printSignIn(http.endpoint().resolve(UiHandler.PREFIX + "/").toString(), tokens, uiLogins);
        }

        void awaitClosed() {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            LOG.info("shutting down: closing sessions and ending their processes");
            ui.close();
            http.stop();
            runtime.close();
            stopped.countDown();
        }
    }

    /** Validates the options, opens the sessions, IRIS and the listener. */
    Serving start() throws IOException {
        // clients' input reaches library log lines (a method name, a protocol version): cap every line
        System.setErr(LineCappedOutput.wrap(System.err));
        CommonOptions.require(maxBodyBytes >= 1, "--max-body-bytes must be at least 1");
        CommonOptions.require(maxMcpSessions >= 1, "--max-mcp-sessions must be at least 1");
        CommonOptions.require(maxHeldBytes >= 0, "--max-held-bytes must be 0 (a quarter of the heap) or more");
        CommonOptions.require(mcpSessionIdleSeconds >= 1, "--mcp-session-idle must be at least 1 second");
        CommonOptions.require(headerTimeoutSeconds >= 1 && headerTimeoutSeconds <= MAX_TIMEOUT_SECONDS,
                "--header-timeout must be 1 to " + MAX_TIMEOUT_SECONDS + " seconds");
        CommonOptions.require(connectionIdleSeconds >= 1 && connectionIdleSeconds <= MAX_TIMEOUT_SECONDS,
                "--connection-idle must be 1 to " + MAX_TIMEOUT_SECONDS + " seconds");
        ListenAddress at = ListenAddress.parse("--listen", listen);
        String host = at.host();
        int port = at.port();
        boolean loopback = isLoopback(host);

        Tokens tokens = null;
        String shownToken = null;
        if (noAuth) {
            LOG.warn("--no-auth: anyone who can reach {} may run commands as this user", listen);
        } else if (tokensFile != null) {
            tokens = Tokens.fromFile(tokensFile);
        } else if (token != null && !token.isBlank()) {
            tokens = Tokens.single(token);
        } else {
            Tokens.StoredToken stored = Tokens.loadOrGenerate(options.dataDir);
            tokens = Tokens.single(stored.token());
            shownToken = stored.token();
        }

        var iris = irisOptions.connect();
        ProcessPolicyDecision process = decide(loopback, iris != null);
        ServerRuntime runtime = new ServerRuntime(options, iris, process.on(), process.offReason());
        UiLogins uiLogins = new UiLogins();
        McpHttpServer.Config config = new McpHttpServer.Config(host, port, tokens,
                OriginPolicy.forListenHost(host, allowOrigins == null ? List.of() : allowOrigins),
                noAuth, maxBodyBytes, maxMcpSessions,
                Duration.ofSeconds(mcpSessionIdleSeconds), McpHttpServer.DEFAULT_KEEP_ALIVE,
                Duration.ofSeconds(headerTimeoutSeconds), Duration.ofSeconds(connectionIdleSeconds),
                maxHeldBytes > 0 ? maxHeldBytes : HeldBytes.defaultMax());
        // one budget for what the endpoint and the browser view hold for clients
        HeldBytes held = new HeldBytes(config.maxHeldBytes());
        UiHandler ui = new UiHandler(new UiApi(runtime.assembly, runtime.sessions), runtime.sessions.changes(),
                uiLogins, tokens, held);
        McpHttpServer http;
        try {
            http = McpHttpServer.start(config, transport -> runtime.assembly.build(transport, false), ui, held);
        } catch (RuntimeException e) {
            ui.close();
            runtime.close();
            throw StartupError.listening(listen, e);
        }
        Serving serving = new Serving(runtime, ui, http, process.on(), shownToken, tokens, uiLogins);
        // the preparation ran alongside all of the above (whichever thread got to a piece first did it);
        // "listening" is said only once it is done, so its failure is this start's error
        try {
            preparation.await();
        } catch (StartupError e) {
            serving.close();
            throw e;
        }
        return serving;
    }

    private record ProcessPolicyDecision(boolean on, String offReason) {
    }

    /** auto: on for a loopback server without IRIS (a developer's own machine), off otherwise. */
    private ProcessPolicyDecision decide(boolean loopback, boolean withIris) {
        return switch (options.process) {
            case on -> new ProcessPolicyDecision(true, null);
            case off -> new ProcessPolicyDecision(false, "the process engine is off on this server (--process off)");
            case auto -> loopback && !withIris ? new ProcessPolicyDecision(true, null)
                    : new ProcessPolicyDecision(false, "the process engine is off on this server: with --process auto "
                    + "it is on only for a loopback server without IRIS; its administrator can start it with --process on");
        };
    }

    private static void printClientConfig(String url, String token) {
        System.err.println();
        System.err.println("Bearer token (stored 0600 in the data directory): " + token);
        System.err.println("Claude Code:");
        System.err.println("  claude mcp add --transport http iris-terminal " + url
                + " --header \"Authorization: Bearer " + token + "\"");
        System.err.println("Any client (JSON):");
        System.err.println("  {\"mcpServers\": {\"iris-terminal\": {\"type\": \"http\", \"url\": \"" + url
                + "\", \"headers\": {\"Authorization\": \"Bearer " + token + "\"}}}}");
        System.err.println();
    }

    /** The browser view, and for each identity a link that signs a browser in as it. */
    private static void printSignIn(String page, Tokens tokens, UiLogins logins) {
        if (tokens == null) {
            System.err.println("Browser view (no sign-in, --no-auth): " + page);
            return;
        }
        logins.announce(System.err, page, tokens.identities(), "sign in there with a token, or with a link below");
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
