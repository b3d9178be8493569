package iristerm.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;

/** A POST body read as one JSON-RPC message, or the 400 answer saying why it is not one. */
record PostedMessage(McpSchema.JSONRPCMessage message, Reply refusal) {

    static PostedMessage parse(McpJsonMapper json, byte[] body) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(body)).toString();
            String start = text.stripLeading();
            if (!start.startsWith("{")) {
                return refused(ErrorCodes.INVALID_REQUEST, start.startsWith("[")
                        ? "JSON-RPC batches are not supported; send one message per request"
                        : "Request body must be one JSON-RPC message (a JSON object)");
            }
            return new PostedMessage(McpSchema.deserializeJsonRpcMessage(json, text), null);
        } catch (CharacterCodingException e) {
            return refused(ErrorCodes.PARSE_ERROR, "Request body is not valid UTF-8");
        } catch (IOException e) {
            return refused(ErrorCodes.PARSE_ERROR, "Malformed JSON: " + StreamableCore.rootMessage(e));
        } catch (IllegalArgumentException e) {
            return refused(ErrorCodes.INVALID_REQUEST, "Not a JSON-RPC 2.0 message: " + e.getMessage());
        }
    }

    private static PostedMessage refused(int code, String message) {
        return new PostedMessage(null, Reply.error(400, code, message));
    }
}
