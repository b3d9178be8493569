package iristerm.cli;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.http.McpHttpServer;
import iristerm.jsonrpc.InboundMessage;
import iristerm.jsonrpc.RequestParams;
import iristerm.json.Json;
import iristerm.mcp.ServerAssembly;
import iristerm.mcp.Version;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The part of a start that needs no option, run on a second thread while picocli parses the command
 * line on the main one: start-up is otherwise single-threaded, and it is mostly first-time work of
 * the JVM (loading, linking and initialising classes, building Jackson's serialisers), which is the
 * same whichever thread does it first. Here: the JSON mapper (Jackson builds a default date format
 * with calendar and locale data in its static initialisers, which no configuration avoids), the
 * security providers, the first parsing of a tool schema, and the first decoding of an
 * {@code initialize} request and encoding of its result with the very code and mappers that answer
 * the client's; for {@code serve} also the HTTP stack's provider ({@link McpHttpServer#prepare}).
 *
 * <p>Nothing is handed over: whichever thread comes to a class or a cache first fills it, and the
 * other waits on the JVM's own lock for that piece only. The serving command {@link #await}s the
 * whole before it reads the first request (stdio) or says "listening" (serve), so a failure here is
 * the command's one-line start error, never a stack trace. Nothing here writes to stdout.
 */
final class StartPreparation {
    /** far beyond the ~0.2 s it takes; only a stalled machine reaches it */
    static final Duration BOUND = Duration.ofSeconds(60);

    /** the serving mode being prepared: serve prepares more than stdio */
    enum Mode { STDIO, SERVE }

    /** an initialize request as a client sends it first */
    private static final byte[] INITIALIZE = """
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
             "capabilities": {}, "clientInfo": {"name": "start-preparation", "version": "1"}}}"""
            .getBytes(StandardCharsets.UTF_8);

    private final FutureTask<?> task;
    private final Duration bound;

    private StartPreparation(Callable<?> work, Duration bound) {
        this.task = new FutureTask<>(work);
        this.bound = bound;
    }

    /** Starts preparing {@code mode} on a thread of its own (a daemon: it never keeps the JVM up). */
    static StartPreparation begin(Mode mode) {
        return start(() -> prepare(mode), BOUND);
    }

    /** Runs {@code work} as the preparation (tests give it one that fails or stalls). */
    static StartPreparation start(Callable<?> work, Duration bound) {
        StartPreparation p = new StartPreparation(work, bound);
        Thread t = new Thread(p.task, "start-preparation");
        t.setDaemon(true);
        t.start();
        return p;
    }

    /** Nothing prepared ahead: the command does all the work as it goes (a server started in-process by a test). */
    static StartPreparation none() {
        StartPreparation p = new StartPreparation(() -> null, BOUND);
        p.task.run();
        return p;
    }

    /**
     * Waits for the preparation, at most its bound.
     *
     * @throws StartupError if it failed or did not finish in time
     */
    void await() {
        try {
            task.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new StartupError("preparing the server failed: " + StartupError.reason(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new StartupError("preparing the server took more than " + bound.toSeconds()
                    + " s; the machine may be overloaded, try again", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupError("interrupted while preparing the server", e);
        }
    }

    private static Void prepare(Mode mode) throws IOException {
        // in the order the main thread comes to need them: the mapper and the security providers (the
        // sessions), the tools' schemas (the assembly), the HTTP stack's provider (the listener), then
        // the first exchange
        McpJsonMapper json = Json.MCP;
        new SecureRandom();
        McpSchema.Tool.builder().name("prepared").inputSchema(json, "{\"type\": \"object\"}").build();
        if (mode == Mode.SERVE) {
            McpHttpServer.prepare();
        }
        InboundMessage inbound = InboundMessage.parse(INITIALIZE);
        RequestParams.Checked checked = inbound.message() instanceof McpSchema.JSONRPCRequest read
                ? RequestParams.check(read) : null;
        if (checked == null || checked.refusal() != null) {
            throw new IllegalStateException("the server refused its own initialize request: "
                    + (checked == null ? inbound.refusal() : checked.refusal()));
        }
        // what the SDK does with it: take the converted params, answer with the server's description
        McpSchema.JSONRPCRequest request = checked.request();
        McpSchema.InitializeRequest init = json.convertValue(request.params(), McpSchema.InitializeRequest.class);
        json.writeValueAsBytes(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(),
                new McpSchema.InitializeResult(init.protocolVersion(), ServerAssembly.CAPABILITIES,
                        new McpSchema.Implementation(ServerAssembly.NAME, Version.current()),
                        ServerAssembly.instructions(false)), null));
        return null;
    }
}
