package iristerm.http;

import java.util.LinkedHashMap;
import java.util.Map;

import iristerm.jsonrpc.Refusal;

/**
 * A complete HTTP answer: status, headers, and a body (null for none). The streaming alternative
 * is an {@link EventStream}.
 */
public record Reply(int status, Map<String, String> headers, String body) {

    public static final String APPLICATION_JSON = "application/json";
    public static final String CONTENT_TYPE = "Content-Type";

    public Reply {
        headers = Map.copyOf(headers);
    }

    /** No body: 202 for an accepted notification, 200 for a deleted session. */
    public static Reply empty(int status) {
        return new Reply(status, Map.of(), null);
    }

    public static Reply json(int status, String body) {
        return new Reply(status, Map.of(CONTENT_TYPE, APPLICATION_JSON), body);
    }

    /**
     * An HTTP error whose body is a JSON-RPC error response with a null id, the form the MCP
     * specification suggests for transport-level rejections where no id could be read.
     */
    public static Reply error(int status, int code, String message) {
        return error(status, code, message, null);
    }

    /** An HTTP error answering the request with {@code id} (null when its body had none, or none was read). */
    public static Reply error(int status, int code, String message, Object id) {
        return json(status, new Refusal(code, message, id).toJson());
    }

    /** This reply with one more header. */
    public Reply with(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Reply(status, more, body);
    }
}
