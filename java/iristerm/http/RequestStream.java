package iristerm.http;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The event stream answering one POSTed request: the request's notifications, then exactly one
 * response. Whoever answers first wins (the SDK, the core when the SDK failed, or the server
 * shutting down) and later answers are dropped, so a client never sees two responses to one id.
 */
final class RequestStream {

    private static final Logger log = LoggerFactory.getLogger(RequestStream.class);

    private final McpSchema.JSONRPCRequest request;
    private final EventSink events;
    private final McpJsonMapper json;
    /** Completed by the first answer, or when the stream ends without one: then no answer is sent. */
    private final CompletableFuture<Void> settled = new CompletableFuture<>();

    RequestStream(McpSchema.JSONRPCRequest request, EventSink events, McpJsonMapper json) {
        this.request = request;
        this.events = events;
        this.json = json;
        events.closed().thenRun(() -> settled.complete(null));
    }

    McpSchema.JSONRPCRequest request() {
        return request;
    }

    EventSink events() {
        return events;
    }

    /** Completes once a response has been sent, or the stream ended (or is ending) without one. */
    CompletableFuture<Void> settled() {
        return settled;
    }

    /** Sends {@code response} (serialized) as the answer, unless the request was settled already. */
    boolean answer(String eventId, String response) {
        return settled.complete(null) && events.send(eventId, response);
    }

    /** Answers with {@code error} unless the request was settled already, then ends the stream. */
    void fail(McpSchema.JSONRPCResponse.JSONRPCError error) {
        try {
            answer(null, json.writeValueAsString(McpSchema.JSONRPCResponse.error(request.id(), error)));
        } catch (IOException e) {
            log.warn("Could not serialize the error for request {}: {}", LogText.brief(request.id()), e.toString());
        }
        end();
    }

    /** Ends the stream after what is queued; a request left unanswered stays so. */
    void end() {
        settled.complete(null);
        events.end();
    }
}
