package iristerm.modern;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * The server's stateless side (MCP 2026-07-28) as the transports see it: they route a request
 * here when {@link Era} says it is modern, check what only they can see (HTTP headers), and hand
 * over one {@link Outbox} per request. Nothing is kept between requests but what the tools keep
 * (terminal sessions, addressed by the ids they hand out).
 */
public interface ModernLane {

    /**
     * Refuses a modern request this server cannot take: a version it does not serve (-32022, with
     * {@code data.supported}) or a method this era does not have (-32601). Null when it may run.
     */
    ModernError check(McpSchema.JSONRPCRequest request);

    /**
     * The tools the server offers, the same in both eras: transports refuse a call of any other
     * by name ({@link iristerm.jsonrpc.UnknownTool}), whichever era it belongs to.
     */
    List<String> tools();

    /**
     * Whether the answer should be an event stream rather than one JSON body: a tool call (which
     * may report progress) and a subscription (which lasts).
     */
    boolean streams(McpSchema.JSONRPCRequest request);

    /**
     * Runs a request {@link #check} let through, for {@code identity} (null: the server's local
     * identity, where the transport authenticates nobody), on the calling thread: its
     * notifications, then its response go to {@code out}. A subscription returns once it is set up
     * and sends until {@code out} is cancelled or the server closes.
     */
    void run(String identity, McpSchema.JSONRPCRequest request, Outbox out);

    /**
     * The transport is shutting down: requests that last (subscriptions) end now, each with its
     * answer, while their streams can still carry it.
     */
    void closing();

    /** Where one modern request's messages go: its own HTTP answer, or stdout on stdio. */
    interface Outbox {
        /**
         * Sends a notification of the request, or its response (last; a stream ends with it).
         * False once the client has gone: nothing more reaches it.
         */
        boolean send(McpSchema.JSONRPCMessage message);

        /**
         * Completes when the client cancelled the request (closed its HTTP stream, or on stdio sent
         * notifications/cancelled): its wait stops, and nothing more is sent for it.
         */
        CompletableFuture<Void> cancelled();
    }
}
