package iristerm.jsonrpc;

import java.util.List;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;

/**
 * A tools/call of a tool the server does not have, refused before the SDK sees it: the SDK's own
 * answer says "Unknown tool: invalid_tool_name" and hides the name in its data. Both eras answer
 * with this one message, which names the tool called and the tools there are.
 */
public final class UnknownTool {
    private UnknownTool() {
    }

    /**
     * The refusal of {@code request} (as {@link RequestParams#check} converted it) when it calls a
     * tool not among {@code tools}; null for any other request.
     */
    public static Refusal of(McpSchema.JSONRPCRequest request, List<String> tools) {
        if (!McpSchema.METHOD_TOOLS_CALL.equals(request.method())
                || !(request.params() instanceof McpSchema.CallToolRequest call) || tools.contains(call.name())) {
            return null;
        }
        return new Refusal(ErrorCodes.INVALID_PARAMS, "Unknown tool \"" + Plain.of(call.name())
                + "\": this server's tools are " + String.join(", ", tools) + " (tools/list describes them)",
                request.id());
    }
}
