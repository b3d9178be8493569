package iristerm.http;

import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * One memory budget for everything the server holds for clients that they have not taken yet: the
 * events every MCP session keeps for clients that resume a stream ({@link EventLog}), and the bytes
 * of every open connection (an event stream of either era, the browser view's streams) queued but
 * not yet written to its socket ({@link Connection}). Each session's and connection's own bounds
 * apply first; over them all, this one. When the total passes it, the connection that has gone
 * longest without writing anything is dropped if that is {@link #STALL_MILLIS} or more (its client
 * stopped reading); else the identity holding the most events loses its oldest; and only when no
 * events are left, that connection is dropped all the same. A client that reads has its connection
 * written all the time, so a client that stops reading is dropped before any client that reads
 * loses anything.
 *
 * <p>Lock order: a log's or a connection's lock is taken under this object's lock, never the other
 * way round (logs and connections report their bytes through atomics and call {@link #enforce} after
 * releasing their own lock).
 */
public final class HeldBytes {
    /** a connection with bytes to send that wrote none for this long is stalled: its client is not reading */
    static final long STALL_MILLIS = 1000;
    private static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(STALL_MILLIS);

    private final long max;
    /** System.nanoTime, or a test's clock */
    private final LongSupplier nanos;
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, Account> accounts = new ConcurrentHashMap<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();

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

    /**
     * The bytes one connection has been given to send and has not written yet. Its owner reports
     * them as they are queued and written, and closes it when the connection ends.
     */
    public final class Connection {
        private final Runnable drop;
        private long bytes;
        /** when it last wrote, or began to hold bytes after holding none (System.nanoTime) */
        private long progressAt = nanos.getAsLong();
        private boolean closed;

        private Connection(Runnable drop) {
            this.drop = drop;
        }

        /**
         * {@code n} more bytes wait to be written. False when the connection is dropped (now, as it holds
         * the most over the budget, or before): the bytes are not held, and nothing more should be sent.
         */
        public boolean queued(long n) {
            synchronized (this) {
                if (closed) {
                    return false;
                }
                if (bytes == 0) {
                    progressAt = nanos.getAsLong();
                }
                bytes += n;
                total.addAndGet(n);
            }
            enforce();
            synchronized (this) {
                return !closed;
            }
        }

        /** {@code n} of the queued bytes reached the socket. */
        public synchronized void written(long n) {
            if (!closed && n > 0) {
                progressAt = nanos.getAsLong();
                long freed = Math.min(n, bytes);
                bytes -= freed;
                total.addAndGet(-freed);
            }
        }

        /** The connection ended: what it still held is given back. Idempotent. */
        public synchronized void close() {
            if (!closed) {
                closed = true;
                total.addAndGet(-bytes);
                bytes = 0;
                connections.remove(this);
            }
        }

        synchronized long bytes() {
            return bytes;
        }

        synchronized long progressAt() {
            return progressAt;
        }

        /** Gives its bytes back and has its owner cut the connection. */
        private void dropForBudget() {
            close();
            drop.run();
        }
    }

    /** The default budget: a quarter of the heap the JVM may grow to. */
    public static long defaultMax() {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    /** @param max bytes held for all clients together */
    public HeldBytes(long max) {
        this(max, System::nanoTime);
    }

    HeldBytes(long max, LongSupplier nanos) {
        if (max < 1) {
            throw new IllegalArgumentException("the held-bytes budget must be positive");
        }
        this.max = max;
        this.nanos = nanos;
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

    /**
     * Counts an open connection's unwritten bytes against the budget from now until it is closed;
     * {@code drop} cuts the connection (on any thread) when it holds the most over the budget.
     */
    public Connection connection(Runnable drop) {
        Connection c = new Connection(drop);
        connections.add(c);
        return c;
    }

    /** Until the total is within the budget again, has whoever comes first in the class comment's order give way. */
    void enforce() {
        if (total.get() <= max) {
            return;
        }
        synchronized (this) {
            while (total.get() > max) {
                Connection idlest = connections.stream().filter(c -> c.bytes() > 0)
                        .min(Comparator.comparingLong(Connection::progressAt)).orElse(null);
                if (idlest != null && nanos.getAsLong() - idlest.progressAt() >= STALL_NANOS) {
                    idlest.dropForBudget();
                    continue;
                }
                EventLog oldest = accounts.values().stream()
                        .filter(a -> !a.logs.isEmpty())
                        .max(Comparator.comparingLong(Account::bytes))
                        .flatMap(a -> a.logs.stream().min(Comparator.comparingLong(EventLog::oldestSequence)))
                        .orElse(null);
                if (oldest != null && oldest.dropOldest()) {
                    continue;
                }
                if (idlest == null) {
                    return;
                }
                idlest.dropForBudget();
            }
        }
    }
}
