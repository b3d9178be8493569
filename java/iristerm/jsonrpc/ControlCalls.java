package iristerm.jsonrpc;

import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.JsonNode;

import java.util.Map;
import java.util.Set;

/**
 * The calls that end or interrupt what other calls wait for: transports run them apart from everything
 * else, so that they get through whatever else is waiting.
 */
public final class ControlCalls {
    public static final Set<String> TOOLS = Set.of("session_close", "session_signal");

    private ControlCalls() {
    }

    public static boolean isControl(McpSchema.JSONRPCRequest request) {
        if (!McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
            return false;
        }
        // a 2025 request's params may be converted already; a 2026 one's are still the JSON tree
        Object params = request.params();
        String tool = params instanceof McpSchema.CallToolRequest call ? call.name()
                : params instanceof JsonNode tree ? tree.path("name").asString("")
                : params instanceof Map<?, ?> map ? String.valueOf(map.get("name")) : "";
        return TOOLS.contains(tool);
    }
}
