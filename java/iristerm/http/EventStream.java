package iristerm.http;

import java.time.Duration;

/**
 * A {@code text/event-stream} answer (status 200) as the core writes it: message events in order,
 * then the end. Over Undertow the events reach the client as they come; in the IRIS-hosted bridge
 * they are collected and sent as one body when the stream ends.
 */
public interface EventStream extends EventSink {

    /**
     * Queues a priming event: an id and empty data, which gives the client a position to resume
     * from, and the {@code retry} interval it should wait before reconnecting. Only streams of an exchange
     * that {@linkplain StreamableExchange#streams() streams} are primed: no other can be resumed.
     */
    boolean prime(String id, Duration retry);

    /** Lets the client see the answer now, before the first event. */
    void start();

    /** Drops the answer unfinished; for streams that will not end by themselves. */
    void abort();
}
