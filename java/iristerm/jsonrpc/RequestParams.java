package iristerm.jsonrpc;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.mcp.Json;
import tools.jackson.core.JacksonException;

/**
 * The params of the requests this server answers, checked before the SDK sees them: the SDK
 * answers a missing or mistyped field with an internal error that names Java classes, this
 * answers -32602 with the field and what to send.
 */
public final class RequestParams {

    /** The level names of the MCP specification, in order of severity. */
    private static final List<String> LEVELS = Arrays.stream(McpSchema.LoggingLevel.values())
            .map(l -> l.name().toLowerCase(Locale.ROOT)).toList();

    /** What one method's params must hold: the SDK type they convert to and the fields that must be there. */
    private record Rule(Class<?> type, List<String> required, String hint) {
    }

    private static final Rule PAGINATED = new Rule(McpSchema.PaginatedRequest.class, List.of(),
            "params are optional: {\"cursor\": \"…\"}");

    private static final Map<String, Rule> RULES = Map.of(
            McpSchema.METHOD_INITIALIZE, new Rule(McpSchema.InitializeRequest.class, List.of("protocolVersion"),
                    "send {\"protocolVersion\": \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": "
                            + "{\"name\": \"…\", \"version\": \"…\"}}"),
            McpSchema.METHOD_TOOLS_CALL, new Rule(McpSchema.CallToolRequest.class, List.of("name"),
                    "send {\"name\": \"<tool>\", \"arguments\": {…}}; tools/list names the tools"),
            McpSchema.METHOD_RESOURCES_READ, new Rule(McpSchema.ReadResourceRequest.class, List.of("uri"),
                    "send {\"uri\": \"iris-terminal://sessions/<session>/transcript\"}"),
            McpSchema.METHOD_LOGGING_SET_LEVEL, new Rule(McpSchema.SetLevelRequest.class, List.of("level"),
                    "\"level\" is one of " + String.join(", ", LEVELS)),
            McpSchema.METHOD_TOOLS_LIST, PAGINATED,
            McpSchema.METHOD_RESOURCES_LIST, PAGINATED,
            McpSchema.METHOD_RESOURCES_TEMPLATES_LIST, PAGINATED);

    private RequestParams() {
    }

    /** Null when the request's params are fit for its method (or the method has no rule), else the refusal. */
    public static Refusal check(McpSchema.JSONRPCRequest request) {
        Object params = request.params();
        if (params != null && !(params instanceof Map)) {
            return refused(request, "params must be a JSON object");
        }
        Rule rule = RULES.get(request.method());
        if (rule == null) {
            return null;
        }
        Map<?, ?> fields = params == null ? Map.of() : (Map<?, ?>) params;
        for (String name : rule.required()) {
            if (fields.get(name) == null) {
                return refused(request, request.method() + " needs \"" + name + "\" in params; " + rule.hint());
            }
        }
        if (McpSchema.METHOD_LOGGING_SET_LEVEL.equals(request.method())
                && !LEVELS.contains(fields.get("level"))) {
            return refused(request, "unknown logging level " + quoted(fields.get("level")) + "; " + rule.hint());
        }
        try {
            Json.MAPPER.convertValue(fields, rule.type());
            return null;
        } catch (JacksonException e) {
            return refused(request, "invalid params for " + request.method() + Plain.path(e)
                    + ": wrong type or value; " + rule.hint());
        } catch (IllegalArgumentException e) {
            return refused(request, "invalid params for " + request.method() + "; " + rule.hint());
        }
    }

    private static String quoted(Object value) {
        return value instanceof String s ? "\"" + Plain.of(s) + "\"" : Plain.of(String.valueOf(value));
    }

    private static Refusal refused(McpSchema.JSONRPCRequest request, String message) {
        return new Refusal(ErrorCodes.INVALID_PARAMS, message, request.id());
    }
}
