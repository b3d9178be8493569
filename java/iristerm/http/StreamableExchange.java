package iristerm.http;

import java.util.function.Consumer;

/**
 * One request to the MCP endpoint and the means to answer it, as the server that received it
 * provides them. {@link StreamableCore} decides everything the protocol says; an exchange only
 * moves bytes, so Undertow (streaming) and the IRIS-hosted bridge (one answer per call) share it.
 *
 * <p>Exactly one of {@link #respond} or {@link #openEventStream} answers a request.
 */
public interface StreamableExchange {

    /** The HTTP method, e.g. {@code POST}. */
    String method();

    /** The first value of a request header, matched without regard to case; null when absent. */
    String header(String name);

    /** Who the authentication in front of the endpoint says is calling; owns the MCP sessions it opens. */
    String identity();

    /**
     * Reads the whole request body and hands it to {@code body}, or runs {@code tooLarge} once it
     * is known to exceed {@code limit} bytes. Either may run later, on another thread.
     */
    void readBody(int limit, Consumer<byte[]> body, Runnable tooLarge);

    /** Answers completely. Ignored when an answer has already begun. */
    void respond(Reply reply);

    /** Starts a {@code text/event-stream} answer with status 200. */
    EventStream openEventStream();

    /**
     * Whether events reach the client while the answer is open. Without that a GET listening
     * stream could never deliver anything, so it is refused with 405, as the specification allows.
     */
    boolean streams();
}
