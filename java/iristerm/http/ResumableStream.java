package iristerm.http;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One logical event stream of an MCP session (a request's answer, or the listening stream) that
 * outlives the HTTP connections carrying it: every event goes into the session's {@link EventLog}
 * and, when a connection is attached, to that connection. A connection that drops only detaches;
 * a client that reconnects with {@code Last-Event-ID} gets the events it missed, then the rest.
 *
 * <p>Events are logged and written under this object's lock, and so are replay and attachment, so
 * a reconnecting client sees every event once, in order: none is both replayed and written live.
 */
final class ResumableStream implements EventSink {

    private final EventLog log;
    private final long number;
    private final Duration retry;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    // guarded by this
    private EventStream connection;
    private boolean ended;

    /**
     * @param retry how long a client should wait before reconnecting, sent with the priming event;
     *              null for a client too old to understand priming (no priming event then)
     */
    ResumableStream(EventLog log, Duration retry) {
        this.log = log;
        this.number = log.openStream();
        this.retry = retry;
    }

    long number() {
        return number;
    }

    /**
     * Makes {@code next} this stream's connection, replacing (and ending) any other: first a
     * priming event (an id and no data, so the client has a position to resume from even before
     * the first message), then the events after {@code position} (-1 for all), then what follows.
     * On a stream that has ended, {@code next} gets the events after {@code position} and ends.
     * Should those have left the buffer since the caller checked, {@code next} is dropped (a connection the
     * stream has stays), and the client's next attempt is refused with the reason.
     */
    synchronized void attach(EventStream next, long position) {
        boolean primed = retry != null && !ended;
        if (!log.replay(number, position, next, () -> {
            if (primed) {
                next.prime(log.mark(number), retry);
            }
        })) {
            return;
        }
        if (ended) {
            next.end();
            return;
        }
        if (connection != null) {
            connection.end();
        }
        connection = next;
        next.closed().thenRun(() -> detach(next));
    }

    /**
     * Ends the current connection, leaving the stream open: the client reconnects (after the
     * priming event's retry interval) with {@code Last-Event-ID} and gets what came meanwhile.
     * Only for a client that was primed, which is the only kind that knows to reconnect.
     */
    synchronized boolean closeConnection() {
        if (retry == null || connection == null || ended) {
            return false;
        }
        connection.end();
        connection = null;
        return true;
    }

    private synchronized void detach(EventStream gone) {
        if (connection == gone) {
            connection = null;
        }
    }

    /** Logs a message event under a position of this stream; the SDK's own id is replaced by it. */
    @Override
    public synchronized boolean send(String sdkId, String data) {
        if (ended) {
            return false;
        }
        EventLog.Event event = log.append(number, data);
        if (connection != null) {
            connection.send(event.id(), event.data());
        }
        return true;
    }

    @Override
    public void end() {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            log.end(number);
            if (connection != null) {
                connection.end();
                connection = null;
            }
        }
        closed.complete(null);
    }

    /** Completes when the stream has ended, not when a connection carrying it drops. */
    @Override
    public CompletableFuture<Void> closed() {
        return closed;
    }
}
