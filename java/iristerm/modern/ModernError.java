package iristerm.modern;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;

/**
 * A modern request refused before it runs, with the HTTP status the specification gives its code
 * (404 for an unknown method, 400 for the rest); stdio only uses the JSON-RPC error.
 */
public record ModernError(int code, String message, Object data) {

    public static ModernError invalidParams(String message) {
        return new ModernError(ErrorCodes.INVALID_PARAMS, message, null);
    }

    public static ModernError headerMismatch(String message) {
        return new ModernError(Protocol.HEADER_MISMATCH, "Header mismatch: " + message, null);
    }

    public static ModernError methodNotFound(String message) {
        return new ModernError(ErrorCodes.METHOD_NOT_FOUND, message, null);
    }

    public int httpStatus() {
        return code == ErrorCodes.METHOD_NOT_FOUND ? 404 : 400;
    }

    /** The error response to the request with {@code id}. */
    public McpSchema.JSONRPCResponse toResponse(Object id) {
        return McpSchema.JSONRPCResponse.error(id, new McpSchema.JSONRPCResponse.JSONRPCError(code, message, data));
    }
}
