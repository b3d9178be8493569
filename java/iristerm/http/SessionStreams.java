package iristerm.http;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The event streams of one MCP session over a streaming server: their shared {@link EventLog},
 * the streams still open (by number, for a client resuming one), how many HTTP connections carry
 * them now, and whether the client is new enough to be sent priming events.
 */
final class SessionStreams {

    /** Events a session keeps for clients that resume a stream. */
    static final int BUFFER_EVENTS = 1000;
    /** Bytes of event data a session keeps for clients that resume a stream. */
    static final long BUFFER_BYTES = 4L << 20;
    /** First protocol version whose clients expect priming events (SEP-1699); older ones may fail on empty data. */
    private static final String PRIMING_SINCE = "2025-11-25";

    private final EventLog log;
    private final Map<Long, ResumableStream> open = new ConcurrentHashMap<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Duration retry;
    private volatile boolean primed;

    /**
     * @param retry   the reconnection delay sent with priming events
     * @param account the server-wide budget the held events count against (the session owner's share)
     */
    SessionStreams(Duration retry, HeldBytes.Account account) {
        this.retry = retry;
        this.log = new EventLog(BUFFER_EVENTS, BUFFER_BYTES, account);
    }

    /** The MCP session has ended: its held events are given back to the budget. */
    void release() {
        log.release();
    }

    /** Records the protocol version initialize agreed on; from 2025-11-25 on, streams are primed. */
    void negotiated(String protocolVersion) {
        primed = protocolVersion != null && protocolVersion.compareTo(PRIMING_SINCE) >= 0;
    }

    /** A new stream carried by {@code connection}, which gets the priming event if the client expects one. */
    ResumableStream open(EventStream connection) {
        ResumableStream stream = new ResumableStream(log, primed ? retry : null);
        open.put(stream.number(), stream);
        stream.closed().thenRun(() -> open.remove(stream.number()));
        stream.attach(connection, -1);
        return stream;
    }

    /** Where {@code lastEventId} points in this session's streams, or why it cannot be resumed from. */
    EventLog.Lookup locate(String lastEventId) {
        return log.locate(lastEventId);
    }

    /**
     * Continues the stream of {@code from} on {@code connection}: the events after it, then the
     * rest while the stream is open. A stream that has ended gets no more events, so its missed
     * ones are all there is and the connection ends after them.
     */
    void resume(EventLog.Position from, EventStream connection) {
        ResumableStream stream = open.get(from.stream());
        if (stream != null) {
            stream.attach(connection, from.position());
            return;
        }
        if (log.replay(from.stream(), from.position(), connection, () -> { })) {
            connection.end();
        }
    }

    /** Counts {@code connection} as live until it closes. */
    void carriedBy(EventStream connection) {
        connections.incrementAndGet();
        connection.closed().thenRun(connections::decrementAndGet);
    }

    /** Whether any HTTP connection carries one of these streams now. */
    boolean connected() {
        return connections.get() > 0;
    }
}
