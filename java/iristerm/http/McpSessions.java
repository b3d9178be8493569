package iristerm.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.spec.McpStreamableServerSession;

/**
 * The live MCP sessions of an endpoint, each bound to the identity that opened it, and the sweep
 * that closes those nobody uses.
 */
final class McpSessions {

    private static final Logger log = LoggerFactory.getLogger(McpSessions.class);

    /** A live MCP session, the identity that opened it, and when it was last used (clock nanos). */
    record Entry(McpStreamableServerSession mcp, String owner, AtomicLong lastUsed) {
    }

    private final Map<String, Entry> sessions = new ConcurrentHashMap<>();
    private final long idleNanos;
    private final LongSupplier nanoClock;
    private final Duration closeTimeout;
    private final ScheduledExecutorService sweeper;

    McpSessions(Duration idleTimeout, LongSupplier nanoClock, Duration closeTimeout) {
        this.idleNanos = idleTimeout.toNanos();
        this.nanoClock = nanoClock;
        this.closeTimeout = closeTimeout;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "mcp-session-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        // A quarter of the timeout keeps overshoot small; the bounds avoid busy or sleepy sweeping.
        long period = Math.min(Math.max(idleTimeout.toMillis() / 4, 10), 60_000);
        sweeper.scheduleWithFixedDelay(this::sweepIdle, period, period, TimeUnit.MILLISECONDS);
    }

    Entry add(McpStreamableServerSession mcp, String owner) {
        Entry entry = new Entry(mcp, owner, new AtomicLong(nanoClock.getAsLong()));
        sessions.put(mcp.getId(), entry);
        return entry;
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

    void remove(Entry entry) {
        sessions.remove(entry.mcp().getId(), entry);
    }

    Collection<Entry> all() {
        return sessions.values();
    }

    Entry get(String id) {
        return sessions.get(id);
    }

    /** Stops sweeping and hands over every session, leaving none. */
    List<Entry> drain() {
        sweeper.shutdownNow();
        List<Entry> open = new ArrayList<>(sessions.values());
        sessions.clear();
        return open;
    }

    /** Closes sessions that have no open stream and have seen no request for the idle timeout. */
    void sweepIdle() {
        long now = nanoClock.getAsLong();
        sessions.forEach((id, entry) -> {
            if (!entry.mcp().hasOpenStream() && now - entry.lastUsed().get() > idleNanos
                    && sessions.remove(id, entry)) {
                log.info("Closing MCP session {} of '{}': idle for more than {} s", id, entry.owner(),
                        TimeUnit.NANOSECONDS.toSeconds(idleNanos));
                entry.mcp().closeGracefully().timeout(closeTimeout).subscribe(null,
                        e -> log.warn("Closing idle session {} failed: {}", id, e.toString()));
            }
        });
    }
}
