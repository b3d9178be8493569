package iristerm.http;

import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One memory budget for the events every MCP session keeps for clients that resume a stream
 * ({@link EventLog}), over all sessions of all identities. Each session's own bounds apply first;
 * over them all, this one. When the total passes it, the identity holding the most loses its oldest
 * events first, so one identity filling its sessions costs the others nothing while it holds more
 * than they do.
 *
 * <p>Lock order: a log's lock is taken under this object's lock, never the other way round (logs
 * report their bytes through atomics and call {@link #enforce} after releasing their own lock).
 */
final class HeldBytes {

    private final long max;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, Account> accounts = new ConcurrentHashMap<>();

    /** What one identity holds, and the logs that hold it. */
    final class Account {
        private final AtomicLong bytes = new AtomicLong();
        private final Set<EventLog> logs = ConcurrentHashMap.newKeySet();

        void add(long delta) {
            bytes.addAndGet(delta);
            total.addAndGet(delta);
        }

        void hold(EventLog log) {
            logs.add(log);
        }

        void release(EventLog log) {
            logs.remove(log);
        }

        long bytes() {
            return bytes.get();
        }

        /** A number that orders events by when they were held, across every log of the server. */
        long nextSequence() {
            return sequence.incrementAndGet();
        }

        /** Brings the server back under its budget, if this account's growth took it over. */
        void enforce() {
            HeldBytes.this.enforce();
        }
    }

    /** The default budget: a quarter of the heap the JVM may grow to. */
    static long defaultMax() {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    /** @param max bytes held for all clients together */
    HeldBytes(long max) {
        if (max < 1) {
            throw new IllegalArgumentException("the held-bytes budget must be positive");
        }
        this.max = max;
    }

    long max() {
        return max;
    }

    long total() {
        return total.get();
    }

    Account account(String identity) {
        return accounts.computeIfAbsent(identity, id -> new Account());
    }

    /** Drops the oldest events of the identity holding the most until the total is within the budget again. */
    void enforce() {
        if (total.get() <= max) {
            return;
        }
        synchronized (this) {
            while (total.get() > max) {
                EventLog oldest = accounts.values().stream()
                        .filter(a -> !a.logs.isEmpty())
                        .max(Comparator.comparingLong(Account::bytes))
                        .flatMap(a -> a.logs.stream().min(Comparator.comparingLong(EventLog::oldestSequence)))
                        .orElse(null);
                if (oldest == null || !oldest.dropOldest()) {
                    return;
                }
            }
        }
    }
}
