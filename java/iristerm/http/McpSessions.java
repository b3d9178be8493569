package iristerm.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import reactor.core.publisher.Mono;

/**
 * The live MCP sessions of an endpoint, each bound to the identity that opened it, at most a
 * fixed number per identity, and the sweep that closes those nobody uses.
 */
final class McpSessions {

    private static final Logger log = LoggerFactory.getLogger(McpSessions.class);

    /** A live MCP session, the identity that opened it, when it was last used (clock nanos), and its event streams. */
    record Entry(McpStreamableServerSession mcp, String owner, AtomicLong lastUsed, SessionStreams streams) {
    }

    private final Map<String, Entry> sessions = new ConcurrentHashMap<>();
    /** Sessions per owner; changed only together with {@link #sessions}, under this object's lock. */
    private final Map<String, Integer> perOwner = new HashMap<>();
    private final int maxPerOwner;
    private final long idleNanos;
    private final LongSupplier nanoClock;
    private final Duration closeTimeout;
    private final Duration retry;
    private final HeldBytes held;
    private final ScheduledExecutorService sweeper;

    /**
     * @param retry the reconnection delay the sessions' priming events ask clients for
     * @param held  the server-wide budget the sessions' resumable events count against
     */
    McpSessions(int maxPerOwner, Duration idleTimeout, LongSupplier nanoClock, Duration closeTimeout, Duration retry,
            HeldBytes held) {
        if (maxPerOwner < 1) {
            throw new IllegalArgumentException("sessions per identity must be at least 1, was " + maxPerOwner);
        }
        this.maxPerOwner = maxPerOwner;
        this.idleNanos = idleTimeout.toNanos();
        this.nanoClock = nanoClock;
        this.closeTimeout = closeTimeout;
        this.retry = retry;
        this.held = held;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "mcp-session-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        // A quarter of the timeout keeps overshoot small; the bounds avoid busy or sleepy sweeping.
        long period = Math.min(Math.max(idleTimeout.toMillis() / 4, 10), 60_000);
        sweeper.scheduleWithFixedDelay(this::sweepIdle, period, period, TimeUnit.MILLISECONDS);
    }

    int maxPerOwner() {
        return maxPerOwner;
    }

    /** A session just added, and the initialize result it will produce. */
    record Opened(Entry entry, Mono<McpSchema.InitializeResult> initResult) {
    }

    /**
     * Starts a session for {@code owner} and adds it, or returns null without starting one when
     * the owner already has {@link #maxPerOwner()}. Starting only creates the SDK's session object
     * (its initialize result is lazy), so it may run under the lock that makes the count and the
     * addition one step.
     */
    synchronized Opened open(String owner, Supplier<McpStreamableServerSession.McpStreamableServerSessionInit> start) {
        if (perOwner.getOrDefault(owner, 0) >= maxPerOwner) {
            return null;
        }
        McpStreamableServerSession.McpStreamableServerSessionInit init = start.get();
        Entry entry = new Entry(init.session(), owner, new AtomicLong(nanoClock.getAsLong()),
                new SessionStreams(retry, held.account(owner)));
        sessions.put(init.session().getId(), entry);
        perOwner.merge(owner, 1, Integer::sum);
        return new Opened(entry, init.initResult());
    }

    /**
     * The session {@code id} if {@code identity} opened it, marked as used; null otherwise. A
     * foreign session is as unknown as a missing one: an id must not let one identity act as another.
     */
    Entry find(String id, String identity) {
        Entry entry = sessions.get(id);
        if (entry == null || !entry.owner().equals(identity)) {
            return null;
        }
        touch(entry);
        return entry;
    }

    void touch(Entry entry) {
        entry.lastUsed().set(nanoClock.getAsLong());
    }

    /** Removes {@code entry}; false if it was gone already. */
    synchronized boolean remove(Entry entry) {
        if (!sessions.remove(entry.mcp().getId(), entry)) {
            return false;
        }
        perOwner.computeIfPresent(entry.owner(), (owner, count) -> count == 1 ? null : count - 1);
        entry.streams().release();
        return true;
    }

    Collection<Entry> all() {
        return sessions.values();
    }

    Entry get(String id) {
        return sessions.get(id);
    }

    /** Stops sweeping and hands over every session, leaving none. */
    synchronized List<Entry> drain() {
        sweeper.shutdownNow();
        List<Entry> open = new ArrayList<>(sessions.values());
        open.forEach(entry -> entry.streams().release());
        sessions.clear();
        perOwner.clear();
        return open;
    }

    /**
     * Closes sessions that no HTTP connection carries and that have seen no request for the idle
     * timeout. A stream whose client went away may still be open, waiting for the client to
     * resume it; a client that does not come back within the timeout will not.
     */
    void sweepIdle() {
        long now = nanoClock.getAsLong();
        sessions.forEach((id, entry) -> {
            if (!entry.streams().connected() && now - entry.lastUsed().get() > idleNanos && remove(entry)) {
                log.info("Closing MCP session {} of '{}': idle for more than {} s", id, entry.owner(),
                        TimeUnit.NANOSECONDS.toSeconds(idleNanos));
                entry.mcp().closeGracefully().timeout(closeTimeout).subscribe(null,
                        e -> log.warn("Closing idle session {} failed: {}", id, e.toString()));
            }
        });
    }
}
