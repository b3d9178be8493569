package iristerm.mcp;

import iristerm.json.Json;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProviderBase;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import iristerm.iris.IrisApi;
import iristerm.json.Json;
import iristerm.jsonrpc.Plain;
import iristerm.modern.ModernCapable;
import iristerm.modern.ModernLane;
import iristerm.session.NotifyTarget;
import iristerm.session.Session;
import iristerm.session.SessionException;
import iristerm.stdio.StdioTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place the MCP server is put together: the tools, the transcript resources and the
 * instructions, defined once and served in both eras: the SDK's session server for clients that
 * open with initialize (2025-11-25 and earlier), and its stateless server behind
 * {@link ModernServer} for MCP 2026-07-28 requests, on the same transport. Transports only hand it
 * their provider.
 */
public final class ServerAssembly implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServerAssembly.class);
    public static final String NAME = "iris-terminal-mcp";
    static final String TRANSCRIPT_TEMPLATE = "iris-terminal://sessions/{session}/transcript";
    private static final Pattern TRANSCRIPT_URI = Pattern.compile("iris-terminal://sessions/([^/]+)/transcript");
    /** a transcript resource shows at most this much of the end of the session */
    private static final int TRANSCRIPT_MAX_BYTES = 1 << 20;
    /** the protocol's limit on the values one completion answer carries */
    private static final int MAX_COMPLETIONS = 100;

    /** What every server offers; {@link #instructions(boolean)} adds the IRIS part where IRIS is configured. */
    private static final String SESSION_INSTRUCTIONS = """
            Persistent terminals. Every session keeps its state between calls until you close it.
            - Shell or REPL: session_open {"command": "bash"} (or python3, node, psql…) gives a session id and
              what the program printed at start (its banner and first prompt).
              session_send {"session": id, "text": "make test"} sends a line and returns its whole output
              once the command is done, waiting up to 10 s (wait_ms: longer, or 0 not to wait): the shell's
              prompt back (reason prompt; bash also gives the command's exit_code), the program waiting for
              input (reason input: a question, a password, a pager), exit, or, for a program with no prompt
              the server can tell, 300 ms of quiet. until overrides that ({"data": true}: first byte;
              pattern, quiet_ms). Long jobs: read on with session_read (same default); each call says why
              it stopped (reason) and what state the session is in.
            - Large output: reason "oversized" means more than max_bytes came; the answer holds its first and
              last part and left_out (the bytes between, by offset), and the reader moved past all of it.
              session_read {"cursor": left_out.from, "to_file": "out.txt"} writes the rest to a file, or page
              it with force (pages of max_bytes). Readers ("reader") have independent cursors.
            - Stop a command with session_signal INT; end a session with session_close.
            - A waiting call that carries a progressToken gets notifications/progress about once a second
              (bytes so far, last line). Each session's transcript is the resource
              iris-terminal://sessions/{session}/transcript (completion offers your session ids).
            """;
    private static final String IRIS_INSTRUCTIONS = """
            - IRIS: iris_execute {"code": "write $zversion"} runs ObjectScript in your own persistent IRIS
              session (status ok/error/reading/running; answer a READ with session_send). iris_sql runs SQL.
            """;

    /** The server's instructions: what applies to a server with IRIS configured, or without. */
    public static String instructions(boolean iris) {
        return iris ? SESSION_INSTRUCTIONS + IRIS_INSTRUCTIONS : SESSION_INSTRUCTIONS;
    }

    /** what the server offers, as its initialize answer says (server/discover: ModernServer.CAPABILITIES) */
    public static final McpSchema.ServerCapabilities CAPABILITIES = McpSchema.ServerCapabilities.builder()
            .tools(false).resources(false, false).logging().completions().extensions(AppView.CAPABILITY).build();

    private static final McpSchema.ResourceTemplate TEMPLATE = McpSchema.ResourceTemplate.builder()
            .uriTemplate(TRANSCRIPT_TEMPLATE)
            .name("transcript")
            .title("Session transcript")
            .description("Everything a session wrote (the last 1 MiB), escape sequences removed")
            .mimeType("text/plain")
            .build();
    private static final McpSchema.ResourceReference TRANSCRIPT_REFERENCE =
            new McpSchema.ResourceReference(TRANSCRIPT_TEMPLATE);

    private final ServerContext ctx;
    private final List<ToolSpec> tools = new ArrayList<>();
    /** the SDK's description of each tool, in the order of {@link #tools}: one for both eras */
    private final List<McpSchema.Tool> described = new ArrayList<>();
    private final Subscriptions subscriptions;
    private volatile ModernServer modern;
    /** the transport the server was built on; notifications outside a call go through it */
    private volatile McpServerTransportProviderBase transport;
    /** whether that transport can reach a client after its call returned (a buffered one cannot) */
    private volatile boolean pushes;
    private final ProgressTicker progress = new ProgressTicker();
    private final IrisTools irisTools;
    private final String instructions;

    /**
     * @param iris IRIS reached by this server, or null when none is configured: then the iris tools are not
     *             listed at all (an agent would only learn by calling them that they cannot work), and the
     *             instructions do not mention them
     */
    public ServerAssembly(ServerContext ctx, IrisApi iris) {
        this.ctx = ctx;
        this.irisTools = new IrisTools(ctx, iris);
        this.instructions = instructions(iris != null);
        List<ToolSpec> all = new ArrayList<>(new SessionTools(ctx, irisTools, this::notifier).all());
        all.add(AppView.viewTool(ctx));
        if (iris != null) {
            all.addAll(irisTools.all());
        }
        tools.addAll(IrisTools.serving(all));
        tools.forEach(t -> described.add(describe(t)));
        subscriptions = new Subscriptions(ctx.sessions(), this::transcriptSession);
    }

    private NotifyTarget notifier(Caller caller) {
        if (caller.modern()) {
            throw new SessionException("'notify' belongs to protocol 2025-11-25 and earlier (clients that open with "
                    + "initialize); with protocol 2026-07-28 leave it out and send subscriptions/listen {\"notifications\": "
                    + "{\"resourceSubscriptions\": [\"iris-terminal://sessions/<session>/transcript\"]}}: it tells you "
                    + "when the session writes output or exits, then read with session_read.");
        }
        McpServerTransportProviderBase t = transport;
        if (t == null || !pushes || caller.exchange() == null) {
            throw new SessionException("'notify' is not available on this server: it answers each request "
                    + "completely before returning (as the IRIS-hosted endpoint does), so nothing can reach your client "
                    + "between calls. Leave notify out and read output with session_read {\"wait_ms\": 30000}.");
        }
        return new ExchangeNotifier(t, caller.exchange().sessionId());
    }

    /**
     * Ends the subscriptions (each with its final answer), stops the progress notifications of calls still
     * waiting and the listener for iris jobs' links; the sessions belong to their manager.
     */
    @Override
    public void close() {
        subscriptions.close();
        progress.close();
        irisTools.close();
    }

    public List<ToolSpec> tools() {
        return List.copyOf(tools);
    }

    /**
     * stdio: the transport runs every request on a thread of its own, so tools run on that thread
     * (immediate execution) rather than being handed to another one.
     */
    public McpSyncServer build(StdioTransport transport) {
        this.transport = transport;
        this.pushes = true;
        transport.serveModern(modern());
        return configure(McpServer.sync(transport));
    }

    /**
     * Streamable HTTP, standalone (Undertow) or hosted (IRIS). Every tool runs on the thread the
     * transport hands its request in on (immediate execution): the standalone transport runs each
     * identity's calls on threads of that identity's, so that no call waits for another identity's; the
     * hosted one on the calling thread, the only one that may call back into IRIS. A {@code buffered}
     * transport answers each request completely before its call returns (the hosted bridge), so
     * nothing can be pushed to the client afterwards and {@code notify} is refused there.
     */
    public McpSyncServer build(McpStreamableServerTransportProvider transport, boolean buffered) {
        this.transport = transport;
        this.pushes = !buffered;
        if (transport instanceof ModernCapable capable) {
            capable.serveModern(modern());
        }
        return configure(McpServer.sync(transport));
    }

    /** The modern (2026-07-28) side, built once on first use: the same tools and resources, stateless. */
    private synchronized ModernLane modern() {
        if (modern == null) {
            ModernServer.Attachment attachment = new ModernServer.Attachment();
            var spec = McpServer.sync(attachment).immediateExecution(true)
                    .serverInfo(NAME, Version.current()).jsonMapper(Json.MCP).jsonSchemaValidator(schemas())
                    .instructions(instructions).capabilities(ModernServer.CAPABILITIES);
            for (int i = 0; i < tools.size(); i++) {
                ToolSpec t = tools.get(i);
                spec.tools(new McpStatelessServerFeatures.SyncToolSpecification(described.get(i),
                        (context, request) -> run(t, ModernServer.caller(context, progress, request),
                                request.arguments())));
            }
            spec.resourceTemplates(new McpStatelessServerFeatures.SyncResourceTemplateSpecification(TEMPLATE,
                    (context, request) -> readTranscript(ModernServer.identity(context), request)));
            spec.resources(AppView.modernResource());
            spec.completions(new McpStatelessServerFeatures.SyncCompletionSpecification(TRANSCRIPT_REFERENCE,
                    (context, request) -> completeSession(ModernServer.identity(context), request)));
            spec.build();
            modern = new ModernServer(attachment.handler(), new McpSchema.Implementation(NAME, Version.current()),
                    instructions, subscriptions, ctx.localIdentity(), tools.stream().map(ToolSpec::name).toList());
        }
        return modern;
    }

    private McpSyncServer configure(McpServer.SyncSpecification<?> spec) {
        spec.serverInfo(NAME, Version.current())
                .jsonMapper(Json.MCP)
                .jsonSchemaValidator(schemas())
                .instructions(instructions)
                .immediateExecution(true)
                .capabilities(CAPABILITIES);
        for (int i = 0; i < tools.size(); i++) {
            ToolSpec t = tools.get(i);
            spec.tools(McpServerFeatures.SyncToolSpecification.builder()
                    .tool(described.get(i))
                    .callHandler((exchange, request) -> call(t, exchange, request))
                    .build());
        }
        spec.resourceTemplates(new McpServerFeatures.SyncResourceTemplateSpecification(TEMPLATE,
                (exchange, request) -> readTranscript(identity(exchange), request)));
        spec.completions(new McpServerFeatures.SyncCompletionSpecification(TRANSCRIPT_REFERENCE,
                (exchange, request) -> completeSession(identity(exchange), request)));
        spec.resources(AppView.resource());
        return spec.build();
    }

    /** A validator that knows this server's own results (see {@link ToolSchemas}). */
    private ToolSchemas schemas() {
        ToolSchemas schemas = new ToolSchemas(Json.MAPPER);
        described.forEach(tool -> schemas.ownResults(tool.outputSchema()));
        return schemas;
    }

    private String identity(McpSyncServerExchange exchange) {
        return Caller.of(exchange, ctx.localIdentity()).identity();
    }

    private static McpSchema.Tool describe(ToolSpec t) {
        return McpSchema.Tool.builder()
                .name(t.name())
                .title(t.title())
                .description(t.description())
                .annotations(McpSchema.ToolAnnotations.builder()
                        .title(t.title())
                        .readOnlyHint(t.hints().readOnly())
                        .destructiveHint(t.hints().destructive())
                        .idempotentHint(t.hints().idempotent())
                        .openWorldHint(t.hints().openWorld())
                        .build())
                .inputSchema(Json.MCP, t.inputSchema())
                .outputSchema(Json.MCP, t.outputSchema())
                .meta(AppView.toolMeta(t.name()))
                .build();
    }

    private McpSchema.CallToolResult call(ToolSpec t, McpSyncServerExchange exchange, McpSchema.CallToolRequest req) {
        return run(t, Caller.of(exchange, ctx.localIdentity()).withProgress(CallProgress.of(progress,
                exchange == null ? null : exchange::progressNotification, req, null)), req.arguments());
    }

    /**
     * Runs a tool for {@code identity} outside MCP (the browser view's Interrupt, Close and session list), through
     * the very handler and error mapping an MCP call gets, so the same ownership rules and messages apply.
     */
    public McpSchema.CallToolResult callAs(String identity, String tool, Map<String, Object> arguments) {
        ToolSpec t = tools.stream().filter(x -> x.name().equals(tool)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no tool " + tool));
        return run(t, new Caller(identity, null, CallProgress.NONE, false), arguments);
    }

    /** A session as session_list shows it, for a view of other identities' sessions (an administrator's). */
    public Map<String, Object> describe(Session s) {
        return SessionTools.row(s);
    }

    private McpSchema.CallToolResult run(ToolSpec t, Caller caller, Map<String, Object> arguments) {
        try {
            Answer a = t.handler().call(caller, new Args(arguments));
            // every result carries text content: ToolSchemas relies on it and renders no text of its own
            return McpSchema.CallToolResult.builder()
                    .structuredContent(a.structured())
                    .addTextContent(a.text())
                    .isError(a.failed())
                    .build();
        } catch (SessionException e) {
            return error(e.getMessage());
        } catch (StackOverflowError e) {
            return error("a regular expression in this call is too deep to evaluate (e.g. (.|\\n)*); "
                    + "simplify it, e.g. use [\\s\\S]* or (?s).*");
        } catch (IllegalArgumentException e) {
            // a value the JDK refused (e.g. a NUL in a path): the caller's mistake, told in its words
            LOG.debug("tool {} refused an argument: {}", t.name(), Plain.of(e.getMessage()));
            return error(t.name() + ": invalid argument: " + Plain.of(e.getMessage()));
        } catch (RuntimeException e) {
            LOG.error("tool {} failed", t.name(), e);
            return error(t.name() + " failed inside the server; other sessions are unaffected. "
                    + "If it repeats, the server log has the details.");
        }
    }

    private static McpSchema.CallToolResult error(String message) {
        return McpSchema.CallToolResult.builder().isError(true).addTextContent(message).build();
    }

    /**
     * The {session} of the transcript template: the caller's own session ids whose id or name starts
     * with what was typed (a name completes to its session's id, which is what the URI needs).
     */
    private McpSchema.CompleteResult completeSession(String identity, McpSchema.CompleteRequest req) {
        if (!"session".equals(req.argument().name())) {
            return new McpSchema.CompleteResult(new McpSchema.CompleteResult.CompleteCompletion(List.of()));
        }
        String typed = req.argument().value() == null ? "" : req.argument().value();
        List<String> ids = new ArrayList<>();
        for (Session s : ctx.sessions().list(identity)) {
            if (s.id().startsWith(typed) || s.meta().name().startsWith(typed)) {
                ids.add(s.id());
            }
        }
        List<String> shown = ids.subList(0, Math.min(ids.size(), MAX_COMPLETIONS));
        return new McpSchema.CompleteResult(new McpSchema.CompleteResult.CompleteCompletion(
                List.copyOf(shown), ids.size(), ids.size() > shown.size()));
    }

    private McpSchema.ReadResourceResult readTranscript(String identity, McpSchema.ReadResourceRequest req) {
        Session s = transcriptSession(identity, req.uri());
        long end = s.bytes();
        var slice = s.log().read(Math.max(0, end - TRANSCRIPT_MAX_BYTES), TRANSCRIPT_MAX_BYTES);
        String text = iristerm.session.AnsiCleaner.clean(
                new String(slice.bytes(), java.nio.charset.StandardCharsets.UTF_8));
        return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(req.uri(), "text/plain", text)));
    }

    /** The caller's session a transcript URI names; unknown and foreign sessions are alike not found. */
    Session transcriptSession(String identity, String uri) {
        Matcher m = TRANSCRIPT_URI.matcher(uri);
        if (!m.matches()) {
            throw resourceNotFound(uri, "use " + TRANSCRIPT_TEMPLATE);
        }
        try {
            return ctx.sessions().get(identity, m.group(1));
        } catch (SessionException e) {
            throw resourceNotFound(uri, e.getMessage());
        }
    }

    private static McpError resourceNotFound(String uri, String hint) {
        LOG.debug("resource {} not found: {}", Plain.of(uri), hint);
        return McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND)
                .message("resource not found: " + Plain.of(uri) + "; " + hint)
                .data(Map.of("uri", uri))
                .build();
    }
}
