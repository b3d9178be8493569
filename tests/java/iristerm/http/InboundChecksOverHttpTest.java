package iristerm.http;

import static iristerm.jsonrpc.PlainWords.assertPlain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import tools.jackson.databind.JsonNode;

/** The inbound message checks stdio applies, applied to POST bodies: same rules, same plain words. */
@Timeout(60)
class InboundChecksOverHttpTest extends WithTestServer {

    private String session;

    @BeforeEach
    void initialize() throws Exception {
        session = test.initializeSession();
    }

    /** The JSON-RPC error a POST of {@code body} is answered with, checked for status, code and plain words. */
    private JsonNode error(String body, int status, int code) throws Exception {
        HttpResponse<String> response = test.send(test.request(body).header("Mcp-Session-Id", session));
        assertEquals(status, response.statusCode(), response.body());
        JsonNode json = TestServer.JACKSON.readTree(response.body());
        assertEquals(code, json.path("error").path("code").asInt(), response.body());
        assertPlain(json.path("error").path("message").asString());
        return json;
    }

    @Test
    void envelopeMistakesAre400WithTheReason() throws Exception {
        JsonNode version = error("{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}", 400, ErrorCodes.INVALID_REQUEST);
        assertEquals(3, version.path("id").asInt(), "the readable id comes back");
        JsonNode lone = error("{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"ping\"}", 400,
                ErrorCodes.INVALID_REQUEST);
        assertTrue(lone.get("id").isNull(), lone::toString);
        error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                400, ErrorCodes.PARSE_ERROR);
        error("[".repeat(600) + "]".repeat(600), 400, ErrorCodes.PARSE_ERROR);
        error("{\"jsonrpc\":\"2.0\",\"id\":4}", 400, ErrorCodes.INVALID_REQUEST);
    }

    @Test
    void badParamsAreTheRequestsAnswer() throws Exception {
        JsonNode call = error("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":null}", 200,
                ErrorCodes.INVALID_PARAMS);
        assertEquals(5, call.path("id").asInt());
        error("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[]}}",
                200, ErrorCodes.INVALID_PARAMS);
        JsonNode level = error("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"loud\"}}",
                200, ErrorCodes.INVALID_PARAMS);
        assertTrue(level.path("error").path("message").asString().contains("debug, info"), level::toString);
    }

    @Test
    void initializeWithMistypedFieldsNamesTheFieldNotAJavaClass() throws Exception {
        session = null;
        HttpResponse<String> response = test.send(test.request(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                        + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":[]}}"));
        assertEquals(400, response.statusCode(), response.body());
        JsonNode json = TestServer.JACKSON.readTree(response.body());
        assertEquals(ErrorCodes.INVALID_PARAMS, json.path("error").path("code").asInt());
        String message = json.path("error").path("message").asString();
        assertTrue(message.contains("\"capabilities\""), message);
        assertPlain(message);
    }
}
