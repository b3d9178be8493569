package iristerm.jsonrpc;

import java.util.LinkedHashMap;
import java.util.Map;

import iristerm.json.Json;

/**
 * Why an inbound message is not handled, as the JSON-RPC error that answers it: a code, a message
 * in plain words (never a Java class name), and the message's id when one could be read (null
 * otherwise, as JSON-RPC requires for unreadable messages).
 */
public record Refusal(int code, String message, Object id) {

    /** The JSON-RPC error response, {@code "id": null} included when no id was readable. */
    public String toJson() {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("jsonrpc", "2.0");
        response.put("id", id);
        response.put("error", error);
        return Json.MAPPER.writeValueAsString(response);
    }
}
