package iristerm.jsonrpc;

import static iristerm.jsonrpc.PlainWords.assertPlain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

class InboundMessageTest {

    private static InboundMessage parse(String text) {
        return InboundMessage.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The refusal of {@code text}, checked to carry {@code code}, {@code id} and a plain message. */
    private static Refusal refused(String text, int code, Object id) {
        InboundMessage m = parse(text);
        assertNull(m.message(), text);
        Refusal r = m.refusal();
        assertNotNull(r, text);
        assertEquals(code, r.code(), r::toString);
        assertEquals(id, r.id(), r::toString);
        assertPlain(r.message());
        return r;
    }

    @Test
    void notUtf8IsAParseError() {
        InboundMessage m = InboundMessage.parse(new byte[] {'{', (byte) 0xC3, '}'});
        assertEquals(ErrorCodes.PARSE_ERROR, m.refusal().code());
    }

    @Test
    void malformedUtf8InsideAStringIsRefusedAndWellFormedTextIsKept() {
        byte[] head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\"}}".getBytes(StandardCharsets.UTF_8);
        // an overlong slash, an encoded surrogate (CESU-8), a code point beyond U+10FFFF, a stray continuation byte
        byte[][] bad = {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0x80}};
        for (byte[] b : bad) {
            InboundMessage m = InboundMessage.parse(concat(head, b, tail));
            assertNotNull(m.refusal(), () -> "accepted " + java.util.Arrays.toString(b));
            assertEquals(ErrorCodes.PARSE_ERROR, m.refusal().code());
            assertEquals("message is not valid UTF-8", m.refusal().message());
        }
        InboundMessage ok = InboundMessage.parse(concat(head, "é€😀".getBytes(StandardCharsets.UTF_8), tail));
        McpSchema.JSONRPCRequest r = assertInstanceOf(McpSchema.JSONRPCRequest.class, ok.message());
        assertEquals("é€😀", ((JsonNode) r.params()).get("x").asString());
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void malformedJsonIsAParseErrorThatSaysWhere() {
        Refusal r = refused("{bad", ErrorCodes.PARSE_ERROR, null);
        assertTrue(r.message().contains("line 1, column 2"), r.message());
        refused("\0\0\0", ErrorCodes.PARSE_ERROR, null);
    }

    @Test
    void twoValuesInOneMessageAreAParseError() {
        Refusal r = refused("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                ErrorCodes.PARSE_ERROR, null);
        assertTrue(r.message().contains("more than one JSON value"), r.message());
    }

    @Test
    void deepNestingIsRefusedWithoutExhaustingTheStack() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        Refusal r = refused(deep, ErrorCodes.PARSE_ERROR, null);
        assertTrue(r.message().contains("nested deeper than " + InboundMessage.MAX_NESTING), r.message());
        // the bound leaves room for real messages
        String nested = "{\"a\":".repeat(150) + "1" + "}".repeat(150);
        assertNotNull(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":" + nested + "}").message());
    }

    @Test
    void batchesAndNonObjectsAreInvalidRequests() {
        refused("[]", ErrorCodes.INVALID_REQUEST, null);
        refused("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", ErrorCodes.INVALID_REQUEST, null);
        refused("42", ErrorCodes.INVALID_REQUEST, null);
        refused("\"ping\"", ErrorCodes.INVALID_REQUEST, null);
        refused("null", ErrorCodes.INVALID_REQUEST, null);
        refused("", ErrorCodes.INVALID_REQUEST, null);
        refused("{}", ErrorCodes.INVALID_REQUEST, null);
    }

    @Test
    void jsonrpcOtherThan20IsRefusedWithTheId() {
        refused("{\"jsonrpc\":\"1.0\",\"id\":6,\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, 6L);
        refused("{\"jsonrpc\":2.0,\"id\":\"a\",\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, "a");
        refused("{\"id\":7,\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, 7L);
    }

    @Test
    void anIdMustBeAStringOrAnIntegerAndValidUnicode() {
        refused("{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, null);
        refused("{\"jsonrpc\":\"2.0\",\"id\":\"x\\udc00\",\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, null);
        refused("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, null);
        refused("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, null);
        refused("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", ErrorCodes.INVALID_REQUEST, null);
        // a surrogate pair is a character like any other: the id comes back unchanged
        McpSchema.JSONRPCRequest r = assertInstanceOf(McpSchema.JSONRPCRequest.class,
                parse("{\"jsonrpc\":\"2.0\",\"id\":\"\\ud83d\\ude00\",\"method\":\"ping\"}").message());
        assertEquals("\ud83d\ude00", r.id());
    }

    @Test
    void methodMustBeAString() {
        refused("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":5}", ErrorCodes.INVALID_REQUEST, 3L);
    }

    @Test
    void aResponseNeedsAnIdAndEitherResultOrError() {
        refused("{\"jsonrpc\":\"2.0\",\"id\":3}", ErrorCodes.INVALID_REQUEST, 3L);
        refused("{\"jsonrpc\":\"2.0\",\"result\":{}}", ErrorCodes.INVALID_REQUEST, null);
        refused("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{},\"error\":{\"code\":1,\"message\":\"x\"}}",
                ErrorCodes.INVALID_REQUEST, 3L);
        assertInstanceOf(McpSchema.JSONRPCResponse.class, parse("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}").message());
    }

    @Test
    void wellFormedMessagesBecomeTheSdksMessages() {
        McpSchema.JSONRPCRequest request = assertInstanceOf(McpSchema.JSONRPCRequest.class,
                parse("  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\r").message());
        assertEquals("tools/list", request.method());
        assertEquals(1, ((Number) request.id()).intValue());
        McpSchema.JSONRPCNotification n = assertInstanceOf(McpSchema.JSONRPCNotification.class,
                parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").message());
        assertEquals("notifications/initialized", n.method());
    }

    @Test
    void aRefusalIsAJsonRpcErrorResponseWithAnExplicitNullId() {
        JsonNode json = Json.MAPPER.readTree(new Refusal(ErrorCodes.PARSE_ERROR, "bad", null).toJson());
        assertEquals("2.0", json.get("jsonrpc").asString());
        assertTrue(json.has("id") && json.get("id").isNull(), json::toString);
        assertEquals(ErrorCodes.PARSE_ERROR, json.get("error").get("code").asInt());
        assertEquals("bad", json.get("error").get("message").asString());
        assertEquals(7, Json.MAPPER.readTree(new Refusal(1, "x", 7L).toJson()).get("id").asInt());
    }
}
