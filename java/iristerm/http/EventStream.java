package iristerm.http;

import java.util.concurrent.CompletableFuture;

/**
 * A {@code text/event-stream} answer (status 200) as the core writes it: message events in order,
 * then the end. Over Undertow the events reach the client as they come; in the IRIS-hosted bridge
 * they are collected and sent as one body when the stream ends.
 */
public interface EventStream {

    /** Queues a {@code message} event; false if the stream has ended or is gone (the event is dropped). */
    boolean send(String id, String data);

    /** Lets the client see the answer now, before the first event. */
    void start();

    /** Ends the answer after everything queued so far. Idempotent. */
    void end();

    /** Drops the answer unfinished; for streams that will not end by themselves. */
    void abort();

    /** Completes when the answer has ended, normally or because the client went away. */
    CompletableFuture<Void> closed();
}
