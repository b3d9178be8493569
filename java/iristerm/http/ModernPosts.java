package iristerm.http;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.modern.Era;
import iristerm.modern.ModernError;
import iristerm.modern.ModernLane;
import iristerm.modern.Protocol;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;

/**
 * POSTs of MCP 2026-07-28 on the Streamable HTTP endpoint: no MCP session, no event ids, no
 * resumption. A request is checked (its {@code _meta}, its headers, its version and method; each
 * refusal with its HTTP status and the request's id), then answered as one JSON body, or, for a
 * tool call or a subscription where the exchange streams, as an event stream of its own that
 * carries its notifications and ends with its response. Closing that stream cancels the request.
 * A notification is accepted (202) and needs nothing.
 */
final class ModernPosts {
    private static final Logger log = LoggerFactory.getLogger(ModernPosts.class);

    private final ModernLane lane;
    /** the identities' own threads a request runs on (as the 2025 lane's do), or null: the shared pool */
    private final CallLanes lanes;
    private final McpJsonMapper json;
    /** hands an opened event stream to the core, which ends it at shutdown */
    private final Consumer<EventStream> track;
    /** whether Mcp-Method and Mcp-Name must be there (see {@link StreamableCore#mirroredHeadersMayBeMissing}) */
    private final boolean mirroredRequired;

    ModernPosts(ModernLane lane, McpJsonMapper json, Consumer<EventStream> track, boolean mirroredRequired,
            CallLanes lanes) {
        this.lanes = lanes;
        this.lane = lane;
        this.json = json;
        this.track = track;
        this.mirroredRequired = mirroredRequired;
    }

    void handle(StreamableExchange exchange, String identity, McpSchema.JSONRPCMessage message, Era.Route route) {
        if (!(message instanceof McpSchema.JSONRPCRequest request)) {
            exchange.respond(Reply.empty(202));
            return;
        }
        ModernError error = route.refusal();
        if (error == null) {
            error = ModernHeaders.check(exchange, request, request.params() instanceof JsonNode n ? n : null,
                    mirroredRequired);
        }
        if (error == null) {
            error = lane.check(request);
        }
        if (error == null && Protocol.METHOD_LISTEN.equals(request.method()) && !exchange.streams()) {
            error = ModernError.methodNotFound("subscriptions/listen needs a connection that stays open, and this "
                    + "endpoint answers each request whole (IRIS-hosted); wait for output with session_read "
                    + "{\"wait_ms\": 30000} instead");
        }
        if (error != null) {
            respond(exchange, error.httpStatus(), error.toResponse(request.id()));
            return;
        }
        if (exchange.streams() && lane.streams(request)) {
            EventStream events = exchange.openEventStream();
            track.accept(events);
            events.start();
            StreamOutbox out = new StreamOutbox(events);
            dispatch(identity, request, out);
        } else if (exchange.streams()) {
            // Undertow: never hold its IO thread with a tool's work
            dispatch(identity, request, new BodyOutbox(exchange));
        } else {
            // the IRIS-hosted bridge answers on the calling thread, whole
            run(identity, request, new BodyOutbox(exchange));
        }
    }

    /**
     * Runs the request on its identity's lane, so that one identity's long waits never hold another's
     * calls (nor its own close and signal, which have a lane of their own).
     */
    private void dispatch(String identity, McpSchema.JSONRPCRequest request, ModernLane.Outbox out) {
        Runnable work = () -> run(identity, request, out);
        if (lanes == null) {
            Schedulers.boundedElastic().schedule(work);
            return;
        }
        try {
            lanes.laneFor(identity, request).execute(work);
        } catch (RejectedExecutionException e) {
            out.send(McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                    ErrorCodes.INTERNAL_ERROR, "Server shutting down", null)));
        }
    }

    /** Ends the subscriptions with their answers, before the core ends the streams that carry them. */
    void closing() {
        lane.closing();
    }

    private void run(String identity, McpSchema.JSONRPCRequest request, ModernLane.Outbox out) {
        try {
            lane.run(identity, request, out);
        } catch (RuntimeException e) {
            log.warn("Modern request {} failed: {}", LogText.brief(request.method()), LogText.brief(e), e);
            out.send(McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                    ErrorCodes.INTERNAL_ERROR, request.method() + " failed inside the server; the server log has "
                    + "the details", null)));
        }
    }

    private void respond(StreamableExchange exchange, int status, McpSchema.JSONRPCResponse response) {
        String body = write(response);
        exchange.respond(body == null ? Reply.error(500, ErrorCodes.INTERNAL_ERROR, "the answer could not be written",
                response.id()) : Reply.json(status, body));
    }

    private String write(McpSchema.JSONRPCMessage message) {
        try {
            return json.writeValueAsString(message);
        } catch (IOException e) {
            log.warn("Could not serialize a modern message: {}", e.toString());
            return null;
        }
    }

    /** A request's own event stream: notifications, then the response, which ends it. */
    private final class StreamOutbox implements ModernLane.Outbox {
        private final EventStream events;
        private final CompletableFuture<Void> cancelled = new CompletableFuture<>();
        private volatile boolean answered;

        StreamOutbox(EventStream events) {
            this.events = events;
            // a stream closed before its answer is the client's cancellation
            events.closed().thenRun(() -> {
                if (!answered) {
                    cancelled.complete(null);
                }
            });
        }

        @Override
        public boolean send(McpSchema.JSONRPCMessage message) {
            String data = write(message);
            boolean response = message instanceof McpSchema.JSONRPCResponse;
            answered |= response;
            boolean sent = data != null && events.send(null, data);
            if (response) {
                events.end();
            }
            return sent;
        }

        @Override
        public CompletableFuture<Void> cancelled() {
            return cancelled;
        }
    }

    /** One JSON body: the response; notifications have no way to the client and are dropped. */
    private final class BodyOutbox implements ModernLane.Outbox {
        private final StreamableExchange exchange;
        private final CompletableFuture<Void> cancelled = new CompletableFuture<>();

        BodyOutbox(StreamableExchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public boolean send(McpSchema.JSONRPCMessage message) {
            if (message instanceof McpSchema.JSONRPCResponse response) {
                respond(exchange, 200, response);
            }
            return true;
        }

        @Override
        public CompletableFuture<Void> cancelled() {
            return cancelled;
        }
    }
}
