package iristerm.http;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The events one MCP session has sent on its event streams, kept so that a client that lost a
 * connection can resume a stream with {@code Last-Event-ID}: the last {@code maxEvents} events, at
 * most {@code maxBytes} of data, whichever bound is reached first (the oldest leave first).
 *
 * <p>An event id names the session's log, the stream and the position on it:
 * {@code <log>-<stream>-<position>}. The log part is random per session, so an id issued to
 * another session is recognised as foreign rather than read as one of this session's.
 */
final class EventLog {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** One event as sent: its stream, its position on that stream, its data, and when it was held (server-wide). */
    record Event(long stream, long position, String id, String data, int bytes, long sequence) {
    }

    /** Where a {@code Last-Event-ID} points, or why it cannot be resumed from. */
    sealed interface Lookup {
    }

    /** A position this log issued, with no event after it evicted (so far). */
    record Position(long stream, long position) implements Lookup {
    }

    /** An id that cannot be resumed from, and why. */
    sealed interface Refused extends Lookup {
        String why();
    }

    /** The id is not one this log issued: malformed, another session's, or a stream it never had. */
    record Unknown(String why) implements Refused {
    }

    /** Events after the given one have already left the buffer: resuming would skip them silently. */
    record Evicted(String why) implements Refused {
    }

    private final int maxEvents;
    private final long maxBytes;
    private final HeldBytes.Account account;
    private final String tag;
    private final Deque<Event> events = new ArrayDeque<>();
    /** Next position per stream still known; a stream is forgotten once it ended and none of its events is held. */
    private final Map<Long, Long> nextPosition = new HashMap<>();
    /** Streams whose position after which events were evicted: the last evicted position. */
    private final Map<Long, Long> lastEvicted = new HashMap<>();
    private final Set<Long> ended = new HashSet<>();
    private final Map<Long, Integer> held = new HashMap<>();
    private long nextStream;
    private long bytes;
    /** the session has ended: events still sent (a request finishing) are no longer held */
    private boolean released;

    /** A log bound by its own limits only. */
    EventLog(int maxEvents, long maxBytes) {
        this(maxEvents, maxBytes, new HeldBytes(Long.MAX_VALUE).account(""));
    }

    /** A log that also counts what it holds against {@code account}'s server-wide budget, until {@link #release}d. */
    EventLog(int maxEvents, long maxBytes, HeldBytes.Account account) {
        if (maxEvents < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("event buffer bounds must be positive");
        }
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
        this.account = account;
        account.hold(this);
        byte[] random = new byte[6];
        RANDOM.nextBytes(random);
        this.tag = HexFormat.of().formatHex(random);
    }

    /** A new stream number. */
    synchronized long openStream() {
        long stream = nextStream++;
        nextPosition.put(stream, 0L);
        return stream;
    }

    /** An id for the next position of {@code stream} that carries no data (a priming event). */
    synchronized String mark(long stream) {
        return idOf(stream, advance(stream));
    }

    /**
     * Records {@code data} as the next event of {@code stream}, evicting the oldest beyond the bounds;
     * then, outside this log's lock, the server-wide budget is enforced (see {@link HeldBytes}).
     */
    Event append(long stream, String data) {
        Event event = hold(stream, data);
        account.enforce();
        return event;
    }

    private synchronized Event hold(long stream, String data) {
        long position = advance(stream);
        Event event = new Event(stream, position, idOf(stream, position), data,
                data.getBytes(StandardCharsets.UTF_8).length, account.nextSequence());
        if (released) {
            return event;
        }
        events.addLast(event);
        held.merge(stream, 1, Integer::sum);
        bytes += event.bytes();
        account.add(event.bytes());
        while (events.size() > maxEvents || bytes > maxBytes) {
            evictOldest();
        }
        return event;
    }

    /** When the oldest held event was held (see {@link Event#sequence}); Long.MAX_VALUE when none is. */
    synchronized long oldestSequence() {
        Event oldest = events.peekFirst();
        return oldest == null ? Long.MAX_VALUE : oldest.sequence();
    }

    /** Evicts the oldest held event, for the server-wide budget; false when none is held. */
    synchronized boolean dropOldest() {
        if (events.isEmpty()) {
            return false;
        }
        evictOldest();
        return true;
    }

    /** The session has ended: every held event is given back to the budget. */
    synchronized void release() {
        released = true;
        while (!events.isEmpty()) {
            evictOldest();
        }
        account.release(this);
    }

    /** No more events will come on {@code stream}; it is forgotten once none of its events is held. */
    synchronized void end(long stream) {
        ended.add(stream);
        forgetIfDone(stream);
    }

    /** The stream and position {@code lastEventId} names, if the events after it can still be replayed. */
    synchronized Lookup locate(String lastEventId) {
        String[] parts = lastEventId.strip().split("-", -1);
        if (parts.length != 3 || !parts[0].equals(tag)) {
            return new Unknown("Last-Event-ID " + LogText.brief(lastEventId) + " was not issued in this MCP session");
        }
        long stream;
        long position;
        try {
            stream = Long.parseLong(parts[1]);
            position = Long.parseLong(parts[2]);
        } catch (NumberFormatException e) {
            return new Unknown("Last-Event-ID " + LogText.brief(lastEventId) + " is malformed");
        }
        Long next = nextPosition.get(stream);
        if (next == null && stream >= 0 && stream < nextStream && position >= 0) {
            return new Evicted("the stream of Last-Event-ID " + LogText.brief(lastEventId)
                    + " has ended and its events are no longer held");
        }
        if (next == null || position < 0 || position >= next) {
            return new Unknown("Last-Event-ID " + LogText.brief(lastEventId) + " was not issued in this MCP session");
        }
        if (evictedAfter(stream, position)) {
            return new Evicted("events after Last-Event-ID " + LogText.brief(lastEventId)
                    + " have left the buffer (it holds a session's last " + maxEvents + " events, at most "
                    + maxBytes + " bytes, and fewer when the server's memory budget for all clients is used up)");
        }
        return new Position(stream, position);
    }

    /** The held events of {@code stream} after {@code position}, in order; null if any of them was evicted. */
    synchronized List<Event> after(long stream, long position) {
        if (evictedAfter(stream, position)) {
            return null;
        }
        List<Event> missed = new ArrayList<>();
        for (Event event : events) {
            if (event.stream() == stream && event.position() > position) {
                missed.add(event);
            }
        }
        return missed;
    }

    /**
     * Sends {@code to} the held events of {@code stream} after {@code position}, in order, once {@code first}
     * has run (a priming event: only once the events are known to be held, or its id, past the gap, would let
     * the client's next attempt skip them unnoticed); false, with {@code to} aborted and {@code first} not run,
     * when some have left the buffer (the client's next attempt is refused with the reason). The events are
     * sent outside this log's lock: a slow connection holds up no other stream of the session.
     */
    boolean replay(long stream, long position, EventStream to, Runnable first) {
        List<Event> missed = after(stream, position);
        if (missed == null) {
            to.abort();
            return false;
        }
        first.run();
        missed.forEach(event -> to.send(event.id(), event.data()));
        return true;
    }

    /** Whether an event of {@code stream} after {@code position} has left the buffer. */
    private boolean evictedAfter(long stream, long position) {
        Long evicted = lastEvicted.get(stream);
        return evicted != null && evicted > position;
    }

    private long advance(long stream) {
        Long next = nextPosition.get(stream);
        if (next == null) {
            throw new IllegalStateException("stream " + stream + " is not open");
        }
        nextPosition.put(stream, next + 1);
        return next;
    }

    private void evictOldest() {
        Event oldest = events.removeFirst();
        bytes -= oldest.bytes();
        account.add(-oldest.bytes());
        lastEvicted.put(oldest.stream(), oldest.position());
        held.computeIfPresent(oldest.stream(), (stream, count) -> count == 1 ? null : count - 1);
        forgetIfDone(oldest.stream());
    }

    private void forgetIfDone(long stream) {
        if (ended.contains(stream) && !held.containsKey(stream)) {
            ended.remove(stream);
            nextPosition.remove(stream);
            lastEvicted.remove(stream);
        }
    }

    private String idOf(long stream, long position) {
        return tag + "-" + stream + "-" + position;
    }
}
