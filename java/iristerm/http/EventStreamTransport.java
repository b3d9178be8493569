package iristerm.http;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import reactor.core.publisher.Mono;

/**
 * The SDK's view of one event stream: JSON-RPC messages in, {@code message} events out.
 *
 * <p>A request's stream ignores the SDK's graceful close and is ended by the core when the SDK's
 * handling of the request terminates: the SDK closes before passing on an error it did not
 * answer itself, and the stream must stay open for the error response. The SDK's response goes
 * through the {@link RequestStream}, which lets only the first answer to a request through.
 */
final class EventStreamTransport implements McpStreamableServerTransport {

    private static final Logger log = LoggerFactory.getLogger(EventStreamTransport.class);

    private final McpJsonMapper json;
    private final EventSink events;
    private final RequestStream request;

    /** The listening stream (GET): server-initiated messages only. */
    EventStreamTransport(McpJsonMapper json, EventSink events) {
        this(json, events, null);
    }

    /** A POSTed request's stream. */
    EventStreamTransport(McpJsonMapper json, RequestStream request) {
        this(json, request.events(), request);
    }

    private EventStreamTransport(McpJsonMapper json, EventSink events, RequestStream request) {
        this.json = json;
        this.events = events;
        this.request = request;
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return sendMessage(message, null);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
        return Mono.fromCallable(() -> json.writeValueAsString(message))
                .doOnNext(text -> {
                    boolean sent = request != null && message instanceof McpSchema.JSONRPCResponse
                            ? request.answer(messageId, text)
                            : events.send(messageId, text);
                    if (!sent) {
                        // content not logged: it may carry terminal output the user wants private
                        log.debug("Event stream already closed or its request answered; dropped a message");
                    }
                })
                .then();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return json.convertValue(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return request != null ? Mono.empty() : Mono.fromRunnable(events::end);
    }

    @Override
    public void close() {
        events.end();
    }
}
