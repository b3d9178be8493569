package iristerm.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import iristerm.json.Json;
import iristerm.jsonrpc.Refusal;
import iristerm.jsonrpc.RequestParams;
import iristerm.jsonrpc.UnknownTool;
import iristerm.modern.Era;
import iristerm.modern.ModernError;
import iristerm.modern.ModernLane;
import iristerm.modern.Protocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * MCP 2026-07-28 on the SDK's stateless server: each request is checked, run for the identity the
 * transport names, and its result completed with what this revision adds and the SDK (2.1.0,
 * which stops at 2025-11-25) does not know: {@code resultType}, the server's identity in
 * {@code _meta}, cache hints, and -32602 for a resource that is not there. {@code server/discover}
 * and {@code subscriptions/listen} are answered here.
 */
final class ModernServer implements ModernLane {
    private static final Logger LOG = LoggerFactory.getLogger(ModernServer.class);

    /** key of the request's {@link Outbox} in the transport context the stateless handlers receive */
    private static final String OUTBOX_KEY = "iristerm.outbox";

    /** what the modern side offers: no logging capability, as logging/setLevel is gone from this revision */
    static final McpSchema.ServerCapabilities CAPABILITIES = McpSchema.ServerCapabilities.builder()
            .tools(false).resources(false, false).completions().extensions(AppView.CAPABILITY).build();

    /** the methods of this revision the SDK's stateless server answers */
    private static final Set<String> DELEGATED = Set.of(McpSchema.METHOD_TOOLS_LIST, McpSchema.METHOD_TOOLS_CALL,
            McpSchema.METHOD_RESOURCES_LIST, McpSchema.METHOD_RESOURCES_TEMPLATES_LIST, McpSchema.METHOD_RESOURCES_READ,
            McpSchema.METHOD_COMPLETION_COMPLETE);
    /** methods of 2025-11-25 this revision removed; named so the error can say so */
    private static final Set<String> REMOVED = Set.of(McpSchema.METHOD_INITIALIZE, McpSchema.METHOD_PING,
            McpSchema.METHOD_LOGGING_SET_LEVEL, McpSchema.METHOD_RESOURCES_SUBSCRIBE,
            McpSchema.METHOD_RESOURCES_UNSUBSCRIBE);

    /** Static lists: a client may keep them a while. Per-identity, ever-changing ones: not at all. */
    private static final long STATIC_TTL_MILLIS = 300_000;

    private final McpStatelessServerHandler handler;
    private final Subscriptions subscriptions;
    private final Map<String, Object> serverInfo;
    private final String instructions;
    /** who calls where the transport authenticates nobody (stdio: the user who started the server) */
    private final String localIdentity;
    private final List<String> tools;

    ModernServer(McpStatelessServerHandler handler, McpSchema.Implementation serverInfo, String instructions,
            Subscriptions subscriptions, String localIdentity, List<String> tools) {
        this.handler = handler;
        this.tools = List.copyOf(tools);
        this.localIdentity = localIdentity;
        this.subscriptions = subscriptions;
        this.serverInfo = Map.of("name", serverInfo.name(), "version", serverInfo.version());
        this.instructions = instructions;
    }

    /** The caller of a stateless tool call: the transport's identity, progress and cancellation through its outbox. */
    static Caller caller(McpTransportContext context, ProgressTicker ticker, McpSchema.CallToolRequest request) {
        Outbox out = (Outbox) context.get(OUTBOX_KEY);
        CallProgress progress = CallProgress.of(ticker, n -> out.send(new McpSchema.JSONRPCNotification(
                McpSchema.JSONRPC_VERSION, McpSchema.METHOD_NOTIFICATION_PROGRESS, n)), request, out.cancelled());
        return new Caller(identity(context), null, progress, true);
    }

    static String identity(McpTransportContext context) {
        return (String) context.get(Caller.IDENTITY_KEY);
    }

    @Override
    public ModernError check(McpSchema.JSONRPCRequest request) {
        String version = Era.claimedVersion(request);
        if (!Protocol.SUPPORTED.contains(version)) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("supported", Protocol.SUPPORTED);
            data.put("requested", version);
            return new ModernError(Protocol.UNSUPPORTED_VERSION, "Unsupported protocol version: " + version
                    + "; per request this server speaks " + String.join(", ", Protocol.SUPPORTED)
                    + " (and 2025-11-25 and earlier to clients that open with initialize)", data);
        }
        String method = request.method();
        if (REMOVED.contains(method)) {
            return ModernError.methodNotFound("Method not found: " + method + " is not part of protocol "
                    + Protocol.VERSION + " (server/discover describes the server)");
        }
        if (!DELEGATED.contains(method) && !Protocol.METHOD_DISCOVER.equals(method)
                && !Protocol.METHOD_LISTEN.equals(method)) {
            return ModernError.methodNotFound("Method not found: " + method);
        }
        return null;
    }

    @Override
    public List<String> tools() {
        return tools;
    }

    @Override
    public boolean streams(McpSchema.JSONRPCRequest request) {
        return McpSchema.METHOD_TOOLS_CALL.equals(request.method()) || Protocol.METHOD_LISTEN.equals(request.method());
    }

    @Override
    public void run(String transportIdentity, McpSchema.JSONRPCRequest request, Outbox out) {
        String identity = transportIdentity == null || transportIdentity.isBlank() ? localIdentity : transportIdentity;
        switch (request.method()) {
            case Protocol.METHOD_DISCOVER -> out.send(McpSchema.JSONRPCResponse.result(request.id(), discover()));
            case Protocol.METHOD_LISTEN -> subscriptions.listen(identity, request, out);
            default -> delegate(identity, request, out);
        }
    }

    @Override
    public void closing() {
        subscriptions.close();
    }

    private void delegate(String identity, McpSchema.JSONRPCRequest posted, Outbox out) {
        RequestParams.Checked checked = RequestParams.check(posted);
        Refusal refusal = checked.refusal() != null ? checked.refusal() : UnknownTool.of(checked.request(), tools);
        if (refusal != null) {
            out.send(McpSchema.JSONRPCResponse.error(posted.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                    refusal.code(), refusal.message(), null)));
            return;
        }
        McpTransportContext context = McpTransportContext.create(Map.of(Caller.IDENTITY_KEY, identity, OUTBOX_KEY, out));
        McpSchema.JSONRPCResponse response;
        try {
            response = handler.handleRequest(context, checked.request()).block();
        } catch (RuntimeException e) {
            LOG.warn("modern request {} failed", posted.method(), e);
            response = McpSchema.JSONRPCResponse.error(posted.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                    ErrorCodes.INTERNAL_ERROR, posted.method() + " failed inside the server; the server log has the "
                    + "details", null));
        }
        if (!out.cancelled().isDone()) {
            // a cancelled request gets nothing more, not even its answer
            out.send(finish(posted.method(), response));
        }
    }

    private McpSchema.JSONRPCResponse finish(String method, McpSchema.JSONRPCResponse response) {
        McpSchema.JSONRPCResponse.JSONRPCError error = response.error();
        if (error != null) {
            return McpSchema.JSONRPCResponse.error(response.id(), modernError(error));
        }
        ObjectNode result = Json.MAPPER.valueToTree(response.result());
        completed(result);
        switch (method) {
            case McpSchema.METHOD_TOOLS_LIST -> cacheable(result, STATIC_TTL_MILLIS, "public");
            case McpSchema.METHOD_RESOURCES_LIST, McpSchema.METHOD_RESOURCES_TEMPLATES_LIST,
                    McpSchema.METHOD_RESOURCES_READ -> cacheable(result, 0, "private");
            default -> { }
        }
        return new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, response.id(), result, null);
    }

    /** The error as this revision words it: a missing resource is invalid params (-32002 is 2025's code). */
    private static McpSchema.JSONRPCResponse.JSONRPCError modernError(McpSchema.JSONRPCResponse.JSONRPCError e) {
        if (e.code() == McpSchema.ErrorCodes.RESOURCE_NOT_FOUND) {
            return new McpSchema.JSONRPCResponse.JSONRPCError(ErrorCodes.INVALID_PARAMS, e.message(), e.data());
        }
        return e;
    }

    private Map<String, Object> discover() {
        ObjectNode result = Json.MAPPER.createObjectNode();
        result.set("supportedVersions", Json.MAPPER.valueToTree(Protocol.SUPPORTED));
        result.set("capabilities", Json.MAPPER.valueToTree(CAPABILITIES));
        result.put("instructions", instructions);
        completed(result);
        cacheable(result, STATIC_TTL_MILLIS, "public");
        return Json.MAPPER.treeToValue(result, Map.class);
    }

    /** Marks a result complete and names the server in its {@code _meta}, as every result of this revision is. */
    private void completed(ObjectNode result) {
        result.put("resultType", "complete");
        JsonNode meta = result.get("_meta");
        ObjectNode own = meta instanceof ObjectNode o ? o : result.putObject("_meta");
        own.set(Protocol.META_SERVER_INFO, Json.MAPPER.valueToTree(serverInfo));
    }

    private static void cacheable(ObjectNode result, long ttlMillis, String scope) {
        result.put("ttlMs", ttlMillis);
        result.put("cacheScope", scope);
    }

    /** Receives the stateless server's handler when the SDK builds it; the transports are this project's own. */
    static final class Attachment implements McpStatelessServerTransport {
        private volatile McpStatelessServerHandler handler;

        @Override
        public void setMcpHandler(McpStatelessServerHandler handler) {
            this.handler = handler;
        }

        McpStatelessServerHandler handler() {
            return handler;
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }

        @Override
        public List<String> protocolVersions() {
            return Protocol.SUPPORTED;
        }
    }
}
