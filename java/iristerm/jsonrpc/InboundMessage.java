package iristerm.jsonrpc;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One inbound JSON-RPC 2.0 message as both transports read it (a stdio line, an HTTP POST body):
 * the SDK's message, or the {@link Refusal} that answers it. Only the envelope is checked here
 * (JSON, one object, {@code "jsonrpc": "2.0"}, id, method, request/notification/response shape);
 * a request's params stay a JSON tree until {@link RequestParams} checks and converts them.
 */
public record InboundMessage(McpSchema.JSONRPCMessage message, Refusal refusal) {

    /** Deeper JSON is refused; MCP messages nest a few levels, tool arguments a few more. */
    public static final int MAX_NESTING = 200;

    /**
     * A parser with a nesting bound of its own: reading stays far from any stack limit, and the
     * bound is ours to name in the refusal.
     */
    private static final JsonMapper STRICT = JsonMapper.builder(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
            .build())
            // trailing values are found below, to be answered in plain words
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    public static InboundMessage parse(byte[] utf8) {
        // an ASCII message (the usual one) is valid UTF-8 as it is; any other is checked strictly
        // first, as the JSON parser lets some malformed sequences through
        String text = null;
        if (!ascii(utf8)) {
            try {
                text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(utf8)).toString();
            } catch (CharacterCodingException e) {
                return refused(ErrorCodes.PARSE_ERROR, "message is not valid UTF-8", null);
            }
        }
        JsonNode node;
        try (JsonParser parser = text == null ? STRICT.createParser(utf8) : STRICT.createParser(text)) {
            node = STRICT.readTree(parser);
            if (node == null || node.isMissingNode()) {
                return refused(ErrorCodes.INVALID_REQUEST, "empty message; send one JSON-RPC message (a JSON object)",
                        null);
            }
            if (parser.nextToken() != null) {
                return refused(ErrorCodes.PARSE_ERROR,
                        "more than one JSON value in one message; send one JSON-RPC message at a time", null);
            }
        } catch (StreamConstraintsException e) {
            return refused(ErrorCodes.PARSE_ERROR, "JSON nested deeper than " + MAX_NESTING
                    + " levels (or a number or name too long to read); send a flatter message", null);
        } catch (JacksonException e) {
            return refused(ErrorCodes.PARSE_ERROR, "malformed JSON" + where(e) + ": " + Plain.of(e.getOriginalMessage()),
                    null);
        }
        return envelope(node);
    }

    private static boolean ascii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    private static InboundMessage envelope(JsonNode node) {
        if (node.isArray()) {
            return refused(ErrorCodes.INVALID_REQUEST, "JSON-RPC batches are not supported; send one message at a time",
                    null);
        }
        if (!node.isObject()) {
            return refused(ErrorCodes.INVALID_REQUEST,
                    "a JSON-RPC message is a JSON object, this is " + kind(node), null);
        }
        JsonNode idNode = node.get("id");
        Object id = idOf(idNode);
        if (idNode != null && !idNode.isNull() && id == null) {
            return refused(ErrorCodes.INVALID_REQUEST,
                    "\"id\" must be a string or an integer (and a string must be valid Unicode)", null);
        }
        JsonNode version = node.get("jsonrpc");
        if (version == null || !version.isString() || !McpSchema.JSONRPC_VERSION.equals(version.asString())) {
            return refused(ErrorCodes.INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"", id);
        }
        JsonNode method = node.get("method");
        if (method != null) {
            if (!method.isString()) {
                return refused(ErrorCodes.INVALID_REQUEST, "\"method\" must be a string", id);
            }
            if (idNode == null) {
                return converted(node, McpSchema.JSONRPCNotification.class, null);
            }
            if (idNode.isNull()) {
                return refused(ErrorCodes.INVALID_REQUEST,
                        "a request's \"id\" must be a string or an integer, not null (leave it out for a notification)",
                        null);
            }
            return request(node, method.asString(), idNode, id);
        }
        boolean result = node.has("result");
        boolean error = node.has("error");
        if (id == null || result == error) {
            return refused(ErrorCodes.INVALID_REQUEST, "not a JSON-RPC message: a request or notification needs "
                    + "\"method\", a response needs \"id\" and either \"result\" or \"error\"", id);
        }
        return converted(node, McpSchema.JSONRPCResponse.class, id);
    }

    /**
     * A request built from the tree as it is, its params left as read: {@link RequestParams#check}
     * converts them once, to the type their method needs.
     */
    private static InboundMessage request(JsonNode node, String method, JsonNode idNode, Object id) {
        try {
            return new InboundMessage(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method,
                    idNode.isString() ? idNode.asString() : idNode.numberValue(), node.get("params")), null);
        } catch (IllegalArgumentException e) {
            return refused(ErrorCodes.INVALID_REQUEST, "not a JSON-RPC 2.0 message", id);
        }
    }

    private static InboundMessage converted(JsonNode node, Class<? extends McpSchema.JSONRPCMessage> type, Object id) {
        try {
            return new InboundMessage(STRICT.treeToValue(node, type), null);
        } catch (JacksonException | IllegalArgumentException e) {
            return refused(ErrorCodes.INVALID_REQUEST, "not a JSON-RPC 2.0 message"
                    + (e instanceof JacksonException j ? Plain.path(j) : ""), id);
        }
    }

    /** A usable id (string without lone surrogates, or integer), else null; such an id is echoed unchanged. */
    private static Object idOf(JsonNode id) {
        if (id == null) {
            return null;
        }
        if (id.isString()) {
            String s = id.asString();
            return Plain.wellFormed(s) ? s : null;
        }
        if (id.isIntegralNumber()) {
            BigInteger n = id.bigIntegerValue();
            return n.bitLength() < 64 ? (Object) n.longValue() : n;
        }
        return null;
    }

    private static String kind(JsonNode node) {
        if (node.isNull()) {
            return "null";
        }
        if (node.isString()) {
            return "a string";
        }
        if (node.isNumber()) {
            return "a number";
        }
        return node.isBoolean() ? "a boolean" : "another JSON value";
    }

    private static String where(JacksonException e) {
        return e.getLocation() == null ? ""
                : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
    }

    private static InboundMessage refused(int code, String message, Object id) {
        return new InboundMessage(null, new Refusal(code, message, id));
    }
}
