package iristerm.jsonrpc;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.json.Json;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The params of the requests this server answers, checked before the SDK sees them: the SDK
 * answers a missing or mistyped field with an internal error that names Java classes, this
 * answers -32602 with the field and what to send. The check is the one conversion of the params:
 * the request handed on carries them as the SDK type of its method (a map for the methods without
 * a rule), which the SDK's mapper takes as it is ({@link iristerm.json.Json#MCP}).
 */
public final class RequestParams {

    /** The level names of the MCP specification, in order of severity. */
    private static final List<String> LEVELS = Arrays.stream(McpSchema.LoggingLevel.values())
            .map(l -> l.name().toLowerCase(Locale.ROOT)).toList();

    /** What one method's params must hold: the fields that must be there, and the conversion to their SDK type. */
    private record Rule(Function<JsonNode, Object> convert, List<String> required, String hint) {
        static Rule converted(Class<?> type, List<String> required, String hint) {
            return new Rule(fields -> Json.MAPPER.treeToValue(fields, type), required, hint);
        }
    }

    private static final Rule PAGINATED = Rule.converted(McpSchema.PaginatedRequest.class, List.of(),
            "params are optional: {\"cursor\": \"…\"}");

    private static final Map<String, Rule> RULES = Map.of(
            McpSchema.METHOD_INITIALIZE, Rule.converted(McpSchema.InitializeRequest.class, List.of("protocolVersion"),
                    "send {\"protocolVersion\": \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": "
                            + "{\"name\": \"…\", \"version\": \"…\"}}"),
            McpSchema.METHOD_TOOLS_CALL, new Rule(TreeValues::callToolRequest, List.of("name"),
                    "send {\"name\": \"<tool>\", \"arguments\": {…}}; tools/list names the tools"),
            McpSchema.METHOD_RESOURCES_READ, Rule.converted(McpSchema.ReadResourceRequest.class, List.of("uri"),
                    "send {\"uri\": \"iris-terminal://sessions/<session>/transcript\"}"),
            McpSchema.METHOD_COMPLETION_COMPLETE, Rule.converted(McpSchema.CompleteRequest.class,
                    List.of("ref", "argument"), "send {\"ref\": {\"type\": \"ref/resource\", \"uri\": "
                            + "\"iris-terminal://sessions/{session}/transcript\"}, \"argument\": {\"name\": "
                            + "\"session\", \"value\": \"<the start of an id or name>\"}}"),
            McpSchema.METHOD_LOGGING_SET_LEVEL, Rule.converted(McpSchema.SetLevelRequest.class, List.of("level"),
                    "\"level\" is one of " + String.join(", ", LEVELS)),
            McpSchema.METHOD_TOOLS_LIST, PAGINATED,
            McpSchema.METHOD_RESOURCES_LIST, PAGINATED,
            McpSchema.METHOD_RESOURCES_TEMPLATES_LIST, PAGINATED);

    private RequestParams() {
    }

    /** A checked request: with its params converted, or the refusal that answers it. */
    public record Checked(McpSchema.JSONRPCRequest request, Refusal refusal) {
    }

    /**
     * The request with its params converted to its method's SDK type when they are fit for it, else
     * the refusal. Params arrive as read by {@link InboundMessage} (a JSON tree) or as a map.
     */
    public static Checked check(McpSchema.JSONRPCRequest request) {
        Object params = request.params();
        JsonNode fields = params == null || params instanceof JsonNode ? (JsonNode) params : Json.MAPPER.valueToTree(params);
        if (fields != null && fields.isNull()) {
            fields = null;
        }
        if (fields != null && !fields.isObject()) {
            return refused(request, "params must be a JSON object");
        }
        Rule rule = RULES.get(request.method());
        if (rule != null) {
            for (String name : rule.required()) {
                JsonNode value = fields == null ? null : fields.get(name);
                if (value == null || value.isNull()) {
                    return refused(request, request.method() + " needs \"" + name + "\" in params; " + rule.hint());
                }
            }
            if (McpSchema.METHOD_LOGGING_SET_LEVEL.equals(request.method())) {
                JsonNode level = fields.get("level");
                if (!level.isString() || !LEVELS.contains(level.asString())) {
                    return refused(request, "unknown logging level " + quoted(level) + "; " + rule.hint());
                }
            }
        }
        if (fields == null) {
            return new Checked(params == null ? request : withParams(request, null), null);
        }
        try {
            return new Checked(withParams(request, rule == null ? TreeValues.plain(fields) : rule.convert().apply(fields)),
                    null);
        } catch (JacksonException | TreeValues.WrongField e) {
            String at = e instanceof JacksonException j ? Plain.path(j) : " at " + e.getMessage();
            return refused(request, "invalid params for " + request.method() + at
                    + ": wrong type or value" + (rule == null ? "" : "; " + rule.hint()));
        } catch (IllegalArgumentException e) {
            return refused(request, "invalid params for " + request.method() + (rule == null ? "" : "; " + rule.hint()));
        }
    }

    private static McpSchema.JSONRPCRequest withParams(McpSchema.JSONRPCRequest request, Object params) {
        return new McpSchema.JSONRPCRequest(request.jsonrpc(), request.method(), request.id(), params);
    }

    private static String quoted(JsonNode value) {
        return value.isString() ? "\"" + Plain.of(value.asString()) + "\"" : Plain.of(value.toString());
    }

    private static Checked refused(McpSchema.JSONRPCRequest request, String message) {
        return new Checked(null, new Refusal(ErrorCodes.INVALID_PARAMS, message, request.id()));
    }
}
