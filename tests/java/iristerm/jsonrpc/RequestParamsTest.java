package iristerm.jsonrpc;

import static iristerm.jsonrpc.PlainWords.assertPlain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

class RequestParamsTest {

    /** The request {"id": 5, "method": method, "params": params} as the transports read it. */
    private static McpSchema.JSONRPCRequest request(String method, String params) {
        String text = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"" + method + "\""
                + (params == null ? "" : ",\"params\":" + params) + "}";
        return (McpSchema.JSONRPCRequest) InboundMessage.parse(text.getBytes(StandardCharsets.UTF_8)).message();
    }

    /** The -32602 refusal of the request, with its id and a plain message containing {@code says}. */
    private static void invalid(String method, String params, String says) {
        Refusal r = RequestParams.check(request(method, params)).refusal();
        assertNotNull(r, method + " " + params);
        assertEquals(ErrorCodes.INVALID_PARAMS, r.code());
        assertEquals(5, ((Number) r.id()).intValue());
        assertTrue(r.message().contains(says), r.message());
        assertPlain(r.message());
    }

    private static void valid(String method, String params) {
        assertNull(RequestParams.check(request(method, params)).refusal(), method + " " + params);
    }

    @Test
    void theCheckedRequestCarriesItsParamsAsTheTypeTheSdkAsksFor() {
        McpSchema.JSONRPCRequest checked = RequestParams.check(request("tools/call",
                "{\"name\":\"session_send\",\"arguments\":{\"session\":\"s1\",\"wait_ms\":5}}")).request();
        McpSchema.CallToolRequest call = assertInstanceOf(McpSchema.CallToolRequest.class, checked.params());
        assertEquals("session_send", call.name());
        assertEquals(Map.of("session", "s1", "wait_ms", 5), call.arguments());
        assertEquals(5, ((Number) checked.id()).intValue());
        assertEquals("tools/call", checked.method());
        // a method without a rule gets its params as a map, as the SDK read them before
        assertEquals(Map.of("a", List.of(1)),
                RequestParams.check(request("ping", "{\"a\":[1]}")).request().params());
        assertNull(RequestParams.check(request("ping", null)).request().params());
        assertNull(RequestParams.check(request("ping", "null")).request().params());
        // params given as a map (not read by InboundMessage) are checked the same way
        McpSchema.JSONRPCRequest fromMap = new McpSchema.JSONRPCRequest("2.0", "tools/call", 9,
                Map.of("name", "session_list"));
        assertEquals("session_list", ((McpSchema.CallToolRequest) RequestParams.check(fromMap).request().params()).name());
        assertNotNull(RequestParams.check(new McpSchema.JSONRPCRequest("2.0", "tools/call", 9, Map.of())).refusal());
    }

    @Test
    void toolsCallNeedsAName() {
        invalid("tools/call", "null", "\"name\"");
        invalid("tools/call", null, "\"name\"");
        invalid("tools/call", "{\"arguments\":{}}", "\"name\"");
        valid("tools/call", "{\"name\":\"session_list\"}");
        valid("tools/call", "{\"name\":\"session_list\",\"arguments\":{\"session\":\"x\"}}");
    }

    @Test
    void toolCallParamsBuiltFromTheTreeAreWhatJacksonsConversionGives() {
        String params = "{\"name\":\"session_send\",\"_meta\":{\"progressToken\":7},\"extra\":1,\"arguments\":"
                + "{\"s\":\"é\\u0000😀\",\"i\":5,\"l\":5000000000,\"big\":123456789012345678901234567890,"
                + "\"d\":1.5,\"e\":-2e-3,\"t\":true,\"f\":false,\"n\":null,\"a\":[1,\"x\",[],{}],\"o\":{\"p\":{\"q\":[null]}}}}";
        JsonNode tree = Json.MAPPER.readTree(params);
        McpSchema.CallToolRequest jackson = Json.MAPPER.treeToValue(tree, McpSchema.CallToolRequest.class);
        McpSchema.CallToolRequest built = TreeValues.callToolRequest(tree);
        assertEquals(jackson, built);
        assertEquals(jackson.arguments().get("big").getClass(), built.arguments().get("big").getClass());
        assertEquals(Long.class, built.arguments().get("l").getClass());
        JsonNode bare = Json.MAPPER.readTree("{\"name\":\"session_list\"}");
        assertEquals(Json.MAPPER.treeToValue(bare, McpSchema.CallToolRequest.class), TreeValues.callToolRequest(bare));
    }

    @Test
    void toolsCallNameAndMetaMustBeOfTheirKind() {
        invalid("tools/call", "{\"name\":5}", "at \"name\"");
        invalid("tools/call", "{\"name\":\"session_list\",\"_meta\":\"x\"}", "at \"_meta\"");
    }

    @Test
    void toolsCallArgumentsMustBeAnObject() {
        invalid("tools/call", "{\"name\":\"session_open\",\"arguments\":[1]}", "\"arguments\"");
        invalid("tools/call", "{\"name\":\"session_open\",\"arguments\":\"x\"}", "\"arguments\"");
    }

    @Test
    void completionParamsOfTheWrongShapeAreRefusedInPlainWords() {
        invalid("completion/complete", "{\"ref\":5}", "\"argument\"");
        invalid("completion/complete", "{\"ref\":5,\"argument\":{\"name\":\"session\",\"value\":\"\"}}", "at \"ref\"");
        invalid("completion/complete", "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"u\"},"
                + "\"argument\":{\"name\":5,\"value\":[1]}}", "\"argument\"");
        valid("completion/complete", "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"u\"},"
                + "\"argument\":{\"name\":\"session\",\"value\":\"a\"}}");
    }

    @Test
    void paramsMustBeAnObject() {
        invalid("tools/call", "\"not an object\"", "params must be a JSON object");
        invalid("ping", "[1,2]", "params must be a JSON object");
        valid("ping", null);
        valid("ping", "{}");
    }

    @Test
    void loggingSetLevelTakesOnlyTheSpecificationsLevels() {
        invalid("logging/setLevel", "{\"level\":\"loud\"}", "unknown logging level \"loud\"");
        // a piece of a level's name is no level
        invalid("logging/setLevel", "{\"level\":\"bug\"}", "debug, info, notice, warning, error, critical, alert, emergency");
        invalid("logging/setLevel", "{\"level\":\"DEBUG\"}", "unknown logging level");
        invalid("logging/setLevel", "{\"level\":3}", "unknown logging level 3");
        invalid("logging/setLevel", "{}", "\"level\"");
        valid("logging/setLevel", "{\"level\":\"debug\"}");
        valid("logging/setLevel", "{\"level\":\"emergency\"}");
    }

    @Test
    void resourcesReadNeedsAUri() {
        invalid("resources/read", "{}", "\"uri\"");
        invalid("resources/read", "null", "\"uri\"");
        valid("resources/read", "{\"uri\":\"iris-terminal://sessions/x/transcript\"}");
    }

    @Test
    void initializeNeedsAProtocolVersionAndWellTypedFields() {
        invalid("initialize", null, "\"protocolVersion\"");
        invalid("initialize", "{\"capabilities\":{}}", "\"protocolVersion\"");
        invalid("initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":[]}", "\"capabilities\"");
        valid("initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}");
    }

    @Test
    void listRequestsTakeAnOptionalCursor() {
        valid("tools/list", null);
        valid("resources/templates/list", "{\"cursor\":\"abc\"}");
        invalid("tools/list", "{\"cursor\":{}}", "\"cursor\"");
    }
}
