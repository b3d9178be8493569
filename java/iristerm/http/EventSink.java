package iristerm.http;

import java.util.concurrent.CompletableFuture;

/**
 * Where the messages of one event stream go, in order, until it ends: an HTTP answer
 * ({@link EventStream}) or a stream that outlives its connections ({@link ResumableStream}).
 */
public interface EventSink {

    /** Queues a {@code message} event; false if the stream has ended or is gone (the event is dropped). */
    boolean send(String id, String data);

    /** Ends the stream after everything queued so far. Idempotent. */
    void end();

    /** Completes when the stream has ended, normally or because the client went away. */
    CompletableFuture<Void> closed();
}
