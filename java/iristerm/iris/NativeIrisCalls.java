package iristerm.iris;

import com.intersystems.jdbc.IRIS;
import com.intersystems.jdbc.IRISConnection;
import com.intersystems.jdbc.IRISDataSource;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Standalone mode: the Native API over the superserver port. Calls do not share one connection
 * (an Open waits in IRIS until its job has started): each borrows one from a small pool that grows
 * on demand up to {@link IrisConfig#maxConnections()}. A connection that fails is dropped and a fresh one made;
 * calls that change nothing in IRIS are retried once on it.
 */
public final class NativeIrisCalls implements IrisCalls {
    private static final long BORROW_WAIT_SECONDS = 30;

    private final IrisConfig config;
    private final Semaphore permits;
    private final Deque<IRIS> idle = new ArrayDeque<>();
    private volatile boolean closed;

    public NativeIrisCalls(IrisConfig config) {
        this.config = config;
        this.permits = new Semaphore(config.maxConnections());
        release(connect());
    }

    @Override
    public String describe() {
        return config.toString();
    }

    /**
     * {@code --iris-link HOST[:PORT]} when given; else the local address of the route to the IRIS
     * host (what the Native API connection's local end is, which the intersystems-jdbc API does not
     * expose): a connected UDP socket picks it without sending anything. The link is plain TCP, so a
     * default that is not loopback (IRIS on another machine) is refused: only an explicit
     * {@code --iris-link} accepts a link across the network.
     */
    @Override
    public InetSocketAddress linkAddress() {
        return linkAddress(config);
    }

    static InetSocketAddress linkAddress(IrisConfig config) {
        if (config.link() != null && !config.link().isBlank()) {
            return parseLink(config.link());
        }
        InetAddress local;
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(InetAddress.getByName(config.host()), config.port());
            local = probe.getLocalAddress();
        } catch (IOException | RuntimeException e) {
            throw new IrisUnavailableException("cannot find this machine's address on the route to IRIS at "
                    + config.host() + " (" + e.getMessage() + "); give the address IRIS reaches this server at with "
                    + "--iris-link HOST[:PORT] (env IRIS_TERMINAL_IRIS_LINK)", e);
        }
        if (local.isAnyLocalAddress() || local.isLoopbackAddress()) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        }
        throw new IrisUnavailableException("IRIS at " + config.host() + " is on another machine: its session jobs "
                + "would connect back to " + local.getHostAddress() + " over plain TCP, which anyone on the path "
                + "could read or inject commands into. Give --iris-link HOST[:PORT] (env IRIS_TERMINAL_IRIS_LINK) "
                + "with the address IRIS should reach this server at to accept that, or run the server on the IRIS "
                + "host", null);
    }

    /** "HOST", "HOST:PORT", "[v6]:PORT"; port 0 (or none) lets the system choose. */
    static InetSocketAddress parseLink(String link) {
        String host = link.strip();
        int port = 0;
        int colon = host.lastIndexOf(':');
        boolean bracketed = host.startsWith("[");
        if (colon >= 0 && (bracketed ? host.lastIndexOf(']') < colon : host.indexOf(':') == colon)) {
            try {
                port = Integer.parseInt(host.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            host = host.substring(0, colon);
        }
        if (bracketed && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || port < 0 || port > 65535) {
            throw new IllegalArgumentException("--iris-link '" + link + "' is not HOST[:PORT] (a port 0-65535)");
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    @Override
    public String call(IrisMethod method, String requestJson) {
        IRIS iris = borrow();
        try {
            try {
                String answer = iris.classMethodString(IrisMethod.CLASS, method.method(), requestJson);
                release(iris);
                return answer;
            } catch (RuntimeException first) {
                discard(iris);
                if (!method.idempotent()) {
                    throw unavailable("the call " + method.method() + " failed (" + first.getMessage()
                            + "); it was not repeated because it may have taken effect", first);
                }
                IRIS fresh = connect();
                try {
                    String answer = fresh.classMethodString(IrisMethod.CLASS, method.method(), requestJson);
                    release(fresh);
                    return answer;
                } catch (RuntimeException second) {
                    discard(fresh);
                    throw second;
                }
            }
        } catch (RuntimeException e) {
            throw e instanceof IrisUnavailableException u ? u : unavailable("IRIS call failed: " + e.getMessage(), e);
        } finally {
            permits.release();
        }
    }

    /** Runs {@code work} with a connection of the pool (for calls outside the Terminal.Session API). */
    public <T> T withConnection(java.util.function.Function<IRIS, T> work) {
        IRIS iris = borrow();
        try {
            T result = work.apply(iris);
            release(iris);
            return result;
        } catch (RuntimeException e) {
            discard(iris);
            throw e;
        } finally {
            permits.release();
        }
    }

    private IRIS borrow() {
        if (closed) {
            throw unavailable("the connection pool is closed (the server is shutting down)", null);
        }
        try {
            if (!permits.tryAcquire(BORROW_WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw unavailable("all " + config.maxConnections() + " IRIS connections stayed busy for "
                        + BORROW_WAIT_SECONDS + " s; raise --iris-connections", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("interrupted while waiting for an IRIS connection", e);
        }
        synchronized (idle) {
            IRIS iris = idle.pollFirst();
            if (iris != null) {
                return iris;
            }
        }
        try {
            return connect();
        } catch (RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    private void release(IRIS iris) {
        synchronized (idle) {
            if (!closed) {
                idle.addFirst(iris);
                return;
            }
        }
        discard(iris);
    }

    private static void discard(IRIS iris) {
        try {
            iris.close();
        } catch (Exception e) {
            // the connection is already broken; nothing else to release
        }
    }

    private IRIS connect() {
        try {
            IRISDataSource ds = new IRISDataSource();
            ds.setServerName(config.host());
            ds.setPortNumber(config.port());
            ds.setDatabaseName(config.namespace());
            ds.setUser(config.user());
            ds.setPassword(config.password());
            IRISConnection conn = (IRISConnection) ds.getConnection();
            return IRIS.createIRIS(conn);
        } catch (SQLException e) {
            throw unavailable("cannot connect to IRIS at " + config.host() + ":" + config.port() + " namespace "
                    + config.namespace() + " as user '" + config.user() + "': " + e.getMessage()
                    + " — check IRIS_HOSTNAME/IRIS_PORT (superserver), IRIS_USERNAME and IRIS_PASSWORD", e);
        }
    }

    private IrisUnavailableException unavailable(String message, Throwable cause) {
        return new IrisUnavailableException(message, cause);
    }

    @Override
    public void close() {
        closed = true;
        synchronized (idle) {
            for (IRIS iris : idle) {
                discard(iris);
            }
            idle.clear();
        }
    }
}
