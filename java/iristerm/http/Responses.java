package iristerm.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.HttpString;

/**
 * Complete (non-streaming) Undertow responses. Safe from any thread: the async sender ends the
 * exchange once the body is written.
 */
public final class Responses {

    private Responses() {
    }

    public static void send(HttpServerExchange exchange, Reply reply) {
        exchange.setStatusCode(reply.status());
        reply.headers().forEach((name, value) -> exchange.getResponseHeaders().put(new HttpString(name), value));
        if (reply.body() == null) {
            exchange.endExchange();
        } else {
            exchange.getResponseSender().send(reply.body());
        }
    }

    /** A JSON-RPC error with a null id, for the layers in front of the core (routing, origin, authentication). */
    static void error(HttpServerExchange exchange, int status, int code, String message) {
        send(exchange, Reply.error(status, code, message));
    }

    static void empty(HttpServerExchange exchange, int status) {
        send(exchange, Reply.empty(status));
    }
}
