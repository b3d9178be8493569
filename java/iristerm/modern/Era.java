package iristerm.modern;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

/**
 * Which era serves an inbound message, by how it opens (the rules of the TypeScript SDK's
 * {@code isLegacyRequest}, so both SDKs' clients meet the same server): a message whose
 * {@code params._meta} claims a protocol version is modern, and so is one whose
 * {@code MCP-Protocol-Version} header names a modern revision; {@code initialize}, responses and
 * everything else are legacy. A modern claim that is malformed is refused here rather than
 * served as legacy.
 */
public final class Era {

    /** modern or legacy, or the refusal of a message that claims the modern era wrongly */
    public record Route(boolean modern, ModernError refusal) {
        static final Route LEGACY = new Route(false, null);
        static final Route MODERN = new Route(true, null);

        static Route refused(ModernError e) {
            return new Route(true, e);
        }
    }

    private static final List<String> LEVELS = Arrays.stream(McpSchema.LoggingLevel.values())
            .map(l -> l.name().toLowerCase(Locale.ROOT)).toList();

    private Era() {
    }

    /**
     * @param headerVersion the {@code MCP-Protocol-Version} header (HTTP), null on stdio or when absent
     */
    public static Route of(McpSchema.JSONRPCMessage message, String headerVersion) {
        boolean headerModern = Protocol.isModern(headerVersion);
        if (message instanceof McpSchema.JSONRPCNotification n) {
            return claims(n.params()) || headerModern ? Route.MODERN : Route.LEGACY;
        }
        if (!(message instanceof McpSchema.JSONRPCRequest request)) {
            return Route.LEGACY;
        }
        JsonNode params = tree(request.params());
        if (McpSchema.METHOD_INITIALIZE.equals(request.method()) && !validModernClaim(params)) {
            return headerModern ? Route.refused(ModernError.headerMismatch("initialize is the handshake of protocol "
                    + "2025-11-25 and earlier, but the MCP-Protocol-Version header names " + headerVersion
                    + "; send initialize without it, or send requests of " + headerVersion + " without initialize"))
                    : Route.LEGACY;
        }
        if (claims(params)) {
            String problem = envelopeProblem(params.get("_meta"));
            if (problem != null) {
                return Route.refused(ModernError.invalidParams("Invalid params._meta: " + problem));
            }
            String claimed = params.get("_meta").get(Protocol.META_VERSION).asString();
            if (headerVersion != null && !headerVersion.equals(claimed)) {
                return Route.refused(ModernError.headerMismatch("MCP-Protocol-Version header value '" + headerVersion
                        + "' does not match body value '" + claimed + "'"));
            }
            return Route.MODERN;
        }
        if (headerModern) {
            return Route.refused(ModernError.invalidParams("the MCP-Protocol-Version header names protocol "
                    + headerVersion + ", but params._meta lacks \"" + Protocol.META_VERSION + "\" and \""
                    + Protocol.META_CAPABILITIES + "\", which every request of that protocol carries"));
        }
        return Route.LEGACY;
    }

    /** The version a modern request claims (only for requests {@link #of} routed modern without refusal). */
    public static String claimedVersion(McpSchema.JSONRPCRequest request) {
        return tree(request.params()).get("_meta").get(Protocol.META_VERSION).asString();
    }

    /** {@code params._meta}, an empty object when there is none. */
    public static JsonNode meta(Object params) {
        JsonNode meta = tree(params).get("_meta");
        return meta != null && meta.isObject() ? meta : Json.MAPPER.createObjectNode();
    }

    private static boolean claims(Object params) {
        JsonNode meta = tree(params).get("_meta");
        return meta != null && meta.isObject() && meta.has(Protocol.META_VERSION);
    }

    private static boolean validModernClaim(JsonNode params) {
        if (!claims(params)) {
            return false;
        }
        JsonNode meta = params.get("_meta");
        return envelopeProblem(meta) == null && Protocol.isModern(meta.get(Protocol.META_VERSION).asString());
    }

    /** What is wrong with a request's {@code _meta} envelope, or null. */
    private static String envelopeProblem(JsonNode meta) {
        JsonNode version = meta.get(Protocol.META_VERSION);
        if (version == null || !version.isString() || version.asString().isBlank()) {
            return "\"" + Protocol.META_VERSION + "\" must be a protocol version string such as \"" + Protocol.VERSION
                    + "\"";
        }
        JsonNode capabilities = meta.get(Protocol.META_CAPABILITIES);
        if (capabilities == null || !capabilities.isObject()) {
            return "\"" + Protocol.META_CAPABILITIES + "\" must be an object (the client's capabilities, {} for none)";
        }
        JsonNode info = meta.get(Protocol.META_CLIENT_INFO);
        if (info != null && !(info.isObject() && info.path("name").isString())) {
            return "\"" + Protocol.META_CLIENT_INFO + "\" must be an object with a \"name\"";
        }
        JsonNode level = meta.get(Protocol.META_LOG_LEVEL);
        if (level != null && !(level.isString() && LEVELS.contains(level.asString()))) {
            return "\"" + Protocol.META_LOG_LEVEL + "\" must be one of " + String.join(", ", LEVELS);
        }
        return null;
    }

    private static JsonNode tree(Object params) {
        if (params instanceof JsonNode node) {
            return node;
        }
        return params == null ? Json.MAPPER.createObjectNode() : Json.MAPPER.valueToTree(params);
    }
}
