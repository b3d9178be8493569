package iristerm.http;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.Base64;

import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.modern.ModernError;
import tools.jackson.databind.JsonNode;

/**
 * The headers a POST of MCP 2026-07-28 mirrors from its body, checked against it (the transport
 * specification's "Server Validation"): {@code MCP-Protocol-Version} (present; {@code Era} already
 * compared it with the body), {@code Mcp-Method} on every request, and {@code Mcp-Name} on
 * {@code tools/call}, {@code resources/read} and {@code prompts/get}, which may come Base64-encoded
 * as {@code =?base64?…?=}. Any missing, malformed or different value is a header mismatch (-32020).
 */
final class ModernHeaders {
    static final String MCP_METHOD = "Mcp-Method";
    static final String MCP_NAME = "Mcp-Name";
    private static final String PREFIX = "=?base64?";
    private static final String SUFFIX = "?=";

    private ModernHeaders() {
    }

    /**
     * The mismatch, or null when the headers agree with the request. {@code mirroredRequired}
     * false: a missing {@code Mcp-Method} or {@code Mcp-Name} is let through (one that is there is
     * still checked), for an endpoint behind a gateway that does not pass them on.
     */
    static ModernError check(StreamableExchange exchange, McpSchema.JSONRPCRequest request, JsonNode params,
            boolean mirroredRequired) {
        if (exchange.header(HttpHeaders.PROTOCOL_VERSION) == null) {
            return ModernError.headerMismatch("the MCP-Protocol-Version header is required on every request of "
                    + "protocol 2026-07-28 and must equal params._meta[\"io.modelcontextprotocol/protocolVersion\"]");
        }
        String method = exchange.header(MCP_METHOD);
        if (method == null && !mirroredRequired) {
            return null;
        }
        if (method == null) {
            return ModernError.headerMismatch("the Mcp-Method header is required; send Mcp-Method: " + request.method());
        }
        if (!method.strip().equals(request.method())) {
            return ModernError.headerMismatch("Mcp-Method header value '" + LogText.brief(method)
                    + "' does not match body value '" + LogText.brief(request.method()) + "'");
        }
        String field = switch (request.method()) {
            case McpSchema.METHOD_TOOLS_CALL, McpSchema.METHOD_PROMPT_GET -> "name";
            case McpSchema.METHOD_RESOURCES_READ -> "uri";
            default -> null;
        };
        if (field == null) {
            return null;
        }
        String name = exchange.header(MCP_NAME);
        if (name == null && !mirroredRequired) {
            return null;
        }
        if (name == null) {
            return ModernError.headerMismatch("the Mcp-Name header is required on " + request.method()
                    + " and must equal params." + field);
        }
        String decoded = decode(name.strip());
        if (decoded == null) {
            return ModernError.headerMismatch("Mcp-Name header value is neither plain visible ASCII nor valid "
                    + PREFIX + "<Base64 of UTF-8>" + SUFFIX);
        }
        JsonNode body = params == null ? null : params.get(field);
        String expected = body != null && body.isString() ? body.asString() : null;
        if (!decoded.equals(expected)) {
            return ModernError.headerMismatch("Mcp-Name header value '" + LogText.brief(decoded)
                    + "' does not match body value '" + LogText.brief(expected) + "' (params." + field + ")");
        }
        return null;
    }

    /** A header value as the client meant it: Base64 sentinel decoded, plain values as they are; null if malformed. */
    static String decode(String value) {
        if (value.startsWith(PREFIX) && value.endsWith(SUFFIX) && value.length() >= PREFIX.length() + SUFFIX.length()) {
            try {
                byte[] bytes = Base64.getDecoder().decode(value.substring(PREFIX.length(),
                        value.length() - SUFFIX.length()));
                return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            } catch (IllegalArgumentException | CharacterCodingException e) {
                return null;
            }
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return null;
            }
        }
        return value;
    }
}
