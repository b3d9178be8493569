package iristerm.http;

import java.util.LinkedHashMap;
import java.util.Map;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import iristerm.mcp.Json;
import tools.jackson.databind.json.JsonMapper;

/**
 * Complete (non-streaming) HTTP responses. Safe from any thread: the async sender ends the
 * exchange once the body is written.
 */
final class Responses {

    static final String APPLICATION_JSON = "application/json";

    // Plain Jackson, only to serialize the error envelope below; no ServiceLoader lookup involved.
    private static final JsonMapper JSON = Json.MAPPER;

    private Responses() {
    }

    /**
     * An HTTP error whose body is a JSON-RPC error response with a null id, the form the MCP
     * specification suggests for transport-level rejections.
     */
    static void error(HttpServerExchange exchange, int status, int code, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jsonrpc", "2.0");
        body.put("id", null);
        body.put("error", error);
        json(exchange, status, JSON.writeValueAsString(body));
    }

    static void json(HttpServerExchange exchange, int status, String body) {
        exchange.setStatusCode(status);
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, APPLICATION_JSON);
        exchange.getResponseSender().send(body);
    }

    static void empty(HttpServerExchange exchange, int status) {
        exchange.setStatusCode(status);
        exchange.endExchange();
    }
}
