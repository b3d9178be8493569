package iristerm.iris;

import iristerm.session.SessionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static iristerm.iris.LinkProtocol.HELLO_MILLIS;
import static iristerm.iris.LinkProtocol.MAX_HELLO_BYTES;

/**
 * The one port per server where session jobs connect (docs/iris-contract.md, "The link"). For each
 * Open it mints a ticket; the job's first line, its hello, must carry a ticket that is still
 * waiting, within {@link LinkProtocol#HELLO_MILLIS} and {@link LinkProtocol#MAX_HELLO_BYTES}; every
 * other connection is closed unanswered. Owns its accept thread and the threads that read hellos
 * (each bounded by the hello's time limit); {@link #close} ends them all.
 */
public final class JobLink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobLink.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** hellos read at once; more connections than that are closed at once (nothing legitimate needs more) */
    private static final int MAX_HANDSHAKES = 8;
    private static final Pattern MARK = Pattern.compile("[0-9a-fA-F]{16}");
    private static final long CLOSE_WAIT_MILLIS = 2000;

    private final ServerSocket server;
    private final String host;
    private final Thread acceptor;
    private final SecureRandom random = new SecureRandom();
    private final List<Ticket> waiting = new CopyOnWriteArrayList<>();
    private final Set<Socket> handshaking = ConcurrentHashMap.newKeySet();
    private final Semaphore handshakes = new Semaphore(MAX_HANDSHAKES);
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean closed;

    /** What the job said first. {@code refused} is set (and the rest may be missing) when it would not run. */
    public record Hello(String ticket, long pid, String user, String roles, String namespace, String iris,
                        String instance, String mark, String refused) {
    }

    /** A job that connected and said hello; its stream is positioned after the hello. Its owner closes it. */
    public record Job(Socket socket, InputStream in, Hello hello, long pid, String namespace) implements AutoCloseable {
        @Override
        public void close() {
            closeQuietly(socket);
        }
    }

    /** A connection whose hello named a waiting ticket. */
    private record Arrived(Socket socket, InputStream in, Hello hello) {
    }

    /**
     * Listens at {@code where} (port 0: a free one); the address given is also the one jobs are told
     * (as given, when unresolved: a host name from --iris-link).
     */
    public JobLink(InetSocketAddress where) {
        InetSocketAddress bind = where.isUnresolved() ? new InetSocketAddress(where.getHostString(), where.getPort())
                : where;
        if (bind.isUnresolved()) {
            throw new SessionException("cannot resolve the link address " + where.getHostString()
                    + "; give --iris-link an address of this machine that IRIS can reach");
        }
        try {
            this.server = new ServerSocket();
            server.bind(bind, 50);
        } catch (IOException e) {
            throw new SessionException("cannot listen for IRIS session jobs at " + bind + " (" + e.getMessage()
                    + "); give --iris-link an address of this machine (and a free port) that IRIS can reach");
        }
        // an address as IRIS should dial it: the literal (127.0.0.1, not "localhost", which may resolve to ::1)
        // unless --iris-link named a host
        this.host = where.isUnresolved() ? where.getHostString() : where.getAddress().getHostAddress();
        this.acceptor = new Thread(this::accept, "iris-link-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        LOG.info("listening for IRIS session jobs at {}:{}", host, port());
    }

    public String host() {
        return host;
    }

    public int port() {
        return server.getLocalPort();
    }

    /**
     * Starts a session job: mints a ticket, calls Open (on the caller's thread, as hosted mode needs),
     * and waits for the job's hello, all within the Open's bound. A job that does not say hello in time
     * is not signalled: Java names only pids of jobs whose link it holds open (a pid it never saw on a
     * link may already be another process's); such a job halts when its own connect fails.
     */
    public Job start(IrisApi api, String namespace) {
        try (Ticket ticket = new Ticket(newTicket(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELLO_MILLIS))) {
            waiting.add(ticket);
            ObjectNode req = IrisApi.request().put("host", host).put("port", port()).put("ticket", ticket.value);
            if (namespace != null) {
                req.put(IrisFields.NAMESPACE, namespace);
            }
            JsonNode opened = api.call(IrisMethod.OPEN, req);
            long pid = opened.path(IrisFields.PID).asLong(-1);
            Arrived arrived = ticket.await();
            ticket.taken = true;
            Hello hello = arrived.hello();
            if (hello.refused() != null) {
                closeQuietly(arrived.socket());
                throw new SessionException("IRIS started the session job, but it refused to run: " + hello.refused()
                        + " [START_FAILED]");
            }
            if (hello.pid() != pid || !MARK.matcher(hello.mark() == null ? "" : hello.mark()).matches()) {
                closeQuietly(arrived.socket());
                throw new SessionException("the job that connected with the ticket of this Open is not the one Open "
                        + "started (pid " + hello.pid() + ", Open answered " + pid + ") or sent no valid mark; "
                        + "check that the Terminal classes in IRIS match this server's version [START_FAILED]");
            }
            return new Job(arrived.socket(), arrived.in(), hello, pid,
                    opened.path(IrisFields.NAMESPACE).asString(hello.namespace()));
        }
    }

    /** 32 random bytes, base64url without padding (43 characters). */
    private String newTicket() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private void accept() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("the IRIS link stopped accepting: {}", e.getMessage());
                }
                return;
            }
            if (!handshakes.tryAcquire()) {
                LOG.warn("closed a link connection from {}: {} hellos are already being read",
                        s.getRemoteSocketAddress(), MAX_HANDSHAKES);
                closeQuietly(s);
                continue;
            }
            handshaking.add(s);
            Thread t = new Thread(() -> {
                try {
                    handshake(s);
                } finally {
                    handshaking.remove(s);
                    handshakes.release();
                }
            }, "iris-link-hello-" + connections.incrementAndGet());
            t.setDaemon(true);
            t.start();
            if (closed) {
                closeQuietly(s);
            }
        }
    }

    /** Reads the hello within its bounds and hands the connection to the ticket it names; else closes it. */
    private void handshake(Socket s) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELLO_MILLIS);
        try {
            InputStream in = new BufferedInputStream(s.getInputStream());
            byte[] line = readLine(s, in, deadline);
            if (line == null) {
                closeQuietly(s);
                return;
            }
            Hello hello = parse(line);
            Ticket ticket = hello == null ? null : claim(hello.ticket());
            if (ticket == null) {
                LOG.warn("closed a link connection from {}: its first line is not a hello with a ticket that is "
                        + "waiting", s.getRemoteSocketAddress());
                closeQuietly(s);
                return;
            }
            s.setSoTimeout(0);
            if (!ticket.arrived.complete(new Arrived(s, in, hello))) {
                closeQuietly(s);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("link connection from {} closed: {}", s.getRemoteSocketAddress(), e.toString());
            closeQuietly(s);
        }
    }

    /** The first line without its \n, or null when it is too long, too slow or missing. */
    private static byte[] readLine(Socket s, InputStream in, long deadline) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return null;
            }
            s.setSoTimeout((int) left);
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException e) {
                return null;
            }
            if (b < 0) {
                return null;
            }
            if (b == '\n') {
                return line.toByteArray();
            }
            if (line.size() >= MAX_HELLO_BYTES) {
                return null;
            }
            line.write(b);
        }
    }

    private static Hello parse(byte[] line) {
        JsonNode n;
        try {
            n = JSON.readTree(new String(line, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return null;
        }
        if (n == null || !n.isObject() || !n.path("ticket").isString()) {
            return null;
        }
        return new Hello(n.path("ticket").asString(), n.path("pid").asLong(-1), text(n, "user"), text(n, "roles"),
                text(n, "namespace"), text(n, "iris"), text(n, "instance"), text(n, "mark"),
                n.path("refused").isMissingNode() || n.path("refused").isNull() ? null : n.path("refused").asString(""));
    }

    private static String text(JsonNode n, String field) {
        return n.path(field).asString("");
    }

    /** The waiting ticket equal to {@code value} (compared in constant time), taken: a ticket is good once. */
    private Ticket claim(String value) {
        byte[] given = value.getBytes(StandardCharsets.UTF_8);
        Ticket found = null;
        for (Ticket t : waiting) {
            // every ticket is compared, found or not, so the time taken says nothing about which one matched
            if (MessageDigest.isEqual(given, t.bytes) && System.nanoTime() - t.deadline < 0) {
                found = t;
            }
        }
        return found != null && waiting.remove(found) ? found : null;
    }

    /** Stops listening and closes the connections still saying hello; jobs already handed over are their engines'. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        handshaking.forEach(JobLink::closeQuietly);
        for (Ticket t : waiting) {
            t.arrived.completeExceptionally(new SessionException("the server is shutting down"));
        }
        try {
            acceptor.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing is all that was wanted
        }
    }

    /** One Open's ticket, waiting in {@link #waiting} until a hello claims it or it is closed. */
    private final class Ticket implements AutoCloseable {
        final String value;
        final byte[] bytes;
        final long deadline;
        final CompletableFuture<Arrived> arrived = new CompletableFuture<>();
        /** the connection was handed on (to the session, or closed by start itself) */
        boolean taken;

        Ticket(String value, long deadline) {
            this.value = value;
            this.bytes = value.getBytes(StandardCharsets.UTF_8);
            this.deadline = deadline;
        }

        Arrived await() {
            try {
                return arrived.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new SessionException("IRIS started the session job, but it did not connect back to this server at "
                        + host + ":" + port() + " within " + HELLO_MILLIS / 1000 + " s; the IRIS host must reach that "
                        + "address (standalone: set it with --iris-link HOST[:PORT]) [START_FAILED]");
            } catch (ExecutionException e) {
                throw new SessionException(e.getCause().getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SessionException("interrupted while waiting for the session job to connect");
            }
        }

        /** Single use: once awaited (or given up), the ticket opens nothing more. */
        @Override
        public void close() {
            waiting.remove(this);
            if (!arrived.completeExceptionally(new SessionException("ticket given up")) && !taken) {
                // a hello that came while Open failed or the wait gave up: nobody will take that connection
                Arrived a = arrived.getNow(null);
                if (a != null) {
                    closeQuietly(a.socket());
                }
            }
        }
    }
}
