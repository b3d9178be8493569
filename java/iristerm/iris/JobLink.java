package iristerm.iris;

import iristerm.session.SessionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

import static iristerm.iris.LinkProtocol.HELLO_MILLIS;
import static iristerm.iris.LinkProtocol.HELLO_READ_MILLIS;
import static iristerm.iris.LinkProtocol.MAX_HELLO_BYTES;

/**
 * The one port per server where session jobs connect (docs/iris-contract.md, "The link"). For each
 * Open it mints a ticket; the job's first line, its hello, must carry a ticket that is still
 * waiting, within {@link LinkProtocol#HELLO_READ_MILLIS} of its connect and {@link LinkProtocol#MAX_HELLO_BYTES};
 * every other connection is closed unanswered. The port is known to every session job, so any local
 * process may connect: one thread reads every pending hello (a selector, no thread per connection), at
 * most {@value #MAX_HANDSHAKES} at once, and a new connection past that cap closes the oldest pending one,
 * never itself, so that connections which say nothing cannot keep a job out. {@link #close} ends it all.
 */
public final class JobLink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobLink.class);
    private static final JsonMapper JSON = LinkProtocol.JSON;
    /**
     * hellos read at once; a connection past that closes the oldest pending one. A job's connection is
     * lost only when this many newer ones arrive before its hello is read, so the cap is what a flood must
     * outrun a slow job by: descriptors are cheap, and each pending one lives at most HELLO_READ_MILLIS.
     */
    static final int MAX_HANDSHAKES = 1024;
    /**
     * connections accepted between two reads of the pending hellos: a burst of connections can then
     * push out only so many before a job that connected among them has its hello read
     */
    private static final int ACCEPTS_PER_ROUND = 16;
    /** the pause after an accept that failed (no file descriptor left, say) before the listener tries again */
    private static final long ACCEPT_RETRY_MILLIS = 100;
    private static final Pattern MARK = Pattern.compile("[0-9a-fA-F]{16}");
    private static final long CLOSE_WAIT_MILLIS = 2000;
    private static final long EVICTION_WARN_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ServerSocketChannel server;
    private final Selector selector;
    private final String host;
    private final int port;
    private final Thread doorman;
    private final SecureRandom random = new SecureRandom();
    private final List<Ticket> waiting = new CopyOnWriteArrayList<>();
    // the doorman thread's own: connections still saying hello, oldest first
    private final Map<SocketChannel, Pending> pending = new LinkedHashMap<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocate(8192);
    private long evicted;
    private long evictionWarnedAt = System.nanoTime() - EVICTION_WARN_NANOS;
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

    /** A connection still saying hello: what it sent so far, and when its time is up. */
    private static final class Pending {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELLO_READ_MILLIS);
        final ByteArrayOutputStream line = new ByteArrayOutputStream();
    }

    /** A hello that claimed {@code ticket}, handed over once its channel has left the selector. */
    private record Claimed(SocketChannel channel, byte[] after, Hello hello, Ticket ticket) {
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
        ServerSocketChannel channel = null;
        Selector sel = null;
        try {
            channel = ServerSocketChannel.open();
            channel.bind(bind, 50);
            channel.configureBlocking(false);
            sel = Selector.open();
            channel.register(sel, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            if (channel != null) {
                closeQuietly(channel);
            }
            if (sel != null) {
                closeQuietly(sel);
            }
            throw new SessionException("cannot listen for IRIS session jobs at " + bind + " (" + e.getMessage()
                    + "); give --iris-link an address of this machine (and a free port) that IRIS can reach");
        }
        this.server = channel;
        this.selector = sel;
        this.port = channel.socket().getLocalPort();
        // an address as IRIS should dial it: the literal (127.0.0.1, not "localhost", which may resolve to ::1)
        // unless --iris-link named a host
        this.host = where.isUnresolved() ? where.getHostString() : where.getAddress().getHostAddress();
        this.doorman = new Thread(this::serve, "iris-link-hello");
        doorman.setDaemon(true);
        doorman.start();
        LOG.info("listening for IRIS session jobs at {}:{}", host, port);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /**
     * Starts a session job: mints a ticket, calls Open (on the caller's thread, as hosted mode needs),
     * and waits for the job's hello, all within the Open's bound. A job that does not say hello in time
     * is not signalled: Java names only pids of jobs whose link it holds open (a pid it never saw on a
     * link may already be another process's); such a job halts when its own connect fails.
     *
     * @param owner the IRIS user the job must run as ({@link IrisApi#ownerUser}), or null: not compared
     */
    public Job start(IrisApi api, String namespace, String owner) {
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
            if (IrisApi.otherUser(owner, hello.user())) {
                closeQuietly(arrived.socket());
                throw new SessionException("IRIS started the session job as user " + hello.user() + ", not as "
                        + owner + " who opened the session; it was closed before anything ran in it. Report this to "
                        + "the administrator: each call into IRIS must run as its own caller [START_FAILED]");
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

    /** The doorman thread: accepts connections and reads their hellos until the link closes. */
    private void serve() {
        try {
            while (!closed) {
                selector.select(expire());
                boolean acceptable = false;
                List<Claimed> claimed = new ArrayList<>();
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey k = keys.next();
                    keys.remove();
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.isAcceptable()) {
                        acceptable = true;
                    } else if (k.isReadable()) {
                        read(k, claimed);
                    }
                }
                if (acceptable) {
                    acceptSome();
                }
                if (!claimed.isEmpty()) {
                    // the claimed channels' keys are cancelled: this takes them off the selector, so that they
                    // can turn blocking for their engines
                    selector.selectNow();
                    claimed.forEach(this::handOver);
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            if (!closed) {
                LOG.warn("the IRIS link stopped accepting: {}", e.getMessage());
            }
        } finally {
            pending.keySet().forEach(JobLink::closeQuietly);
            pending.clear();
            closeQuietly(server);
            closeQuietly(selector);
        }
    }

    /** Closes the pending connections whose time is up; milliseconds to the next deadline (0: none pending). */
    private long expire() {
        Iterator<Map.Entry<SocketChannel, Pending>> it = pending.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<SocketChannel, Pending> e = it.next();
            long left = e.getValue().deadline - System.nanoTime();
            if (left > 0) {
                // every connection has the same time from its accept: the oldest has the nearest deadline
                return Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
            }
            LOG.debug("closed a link connection from {}: no hello within {} ms", remote(e.getKey()), HELLO_READ_MILLIS);
            closeQuietly(e.getKey());
            it.remove();
        }
        return 0;
    }

    private void acceptSome() throws IOException {
        for (int i = 0; i < ACCEPTS_PER_ROUND; i++) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                throw e;
            } catch (IOException e) {
                // out of file descriptors, say: this connection is lost, the listener is not (it would be for good,
                // every later session refused); a pause keeps a connection that stays ready from spinning the loop
                LOG.warn("the IRIS link could not accept a connection: {}", e.getMessage());
                pauseAfterFailedAccept();
                return;
            }
            if (ch == null) {
                return;
            }
            if (pending.size() >= MAX_HANDSHAKES) {
                evictOldest();
            }
            try {
                ch.configureBlocking(false);
                ch.register(selector, SelectionKey.OP_READ);
                pending.put(ch, new Pending());
            } catch (IOException e) {
                closeQuietly(ch);
            }
        }
    }

    private static void pauseAfterFailedAccept() {
        try {
            Thread.sleep(ACCEPT_RETRY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void evictOldest() {
        Iterator<SocketChannel> it = pending.keySet().iterator();
        SocketChannel oldest = it.next();
        it.remove();
        closeQuietly(oldest);
        evicted++;
        long now = System.nanoTime();
        if (now - evictionWarnedAt >= EVICTION_WARN_NANOS) {
            LOG.warn("{} link connections have said no hello: {} were closed to make room for newer ones (some local "
                    + "process is holding connections to {}:{})", MAX_HANDSHAKES, evicted, host, port);
            evictionWarnedAt = now;
            evicted = 0;
        }
    }

    /** Reads what a pending connection sent; at the end of its first line, checks the hello and claims its ticket. */
    private void read(SelectionKey k, List<Claimed> claimed) {
        SocketChannel ch = (SocketChannel) k.channel();
        Pending p = pending.get(ch);
        readBuffer.clear();
        int n;
        try {
            n = ch.read(readBuffer);
        } catch (IOException e) {
            n = -1;
        }
        if (p == null || n < 0) {
            drop(ch);
            return;
        }
        readBuffer.flip();
        while (readBuffer.hasRemaining()) {
            byte b = readBuffer.get();
            if (b == '\n') {
                byte[] after = new byte[readBuffer.remaining()];
                readBuffer.get(after);
                pending.remove(ch);
                Hello hello = parse(p.line.toByteArray());
                Ticket ticket = hello == null ? null : claim(hello.ticket());
                if (ticket == null) {
                    LOG.warn("closed a link connection from {}: its first line is not a hello with a ticket that is "
                            + "waiting", remote(ch));
                    closeQuietly(ch);
                    return;
                }
                k.cancel();
                claimed.add(new Claimed(ch, after, hello, ticket));
                return;
            }
            if (p.line.size() >= MAX_HELLO_BYTES) {
                LOG.warn("closed a link connection from {}: its first line is longer than {} bytes", remote(ch),
                        MAX_HELLO_BYTES);
                drop(ch);
                return;
            }
            p.line.write(b);
        }
    }

    private void drop(SocketChannel ch) {
        pending.remove(ch);
        closeQuietly(ch);
    }

    /** The connection is the job's now: blocking, its stream starting right after the hello. */
    private void handOver(Claimed c) {
        try {
            c.channel().configureBlocking(true);
            Socket s = c.channel().socket();
            InputStream in = new SequenceInputStream(new ByteArrayInputStream(c.after()), s.getInputStream());
            if (!c.ticket().arrived.complete(new Arrived(s, in, c.hello()))) {
                closeQuietly(c.channel());
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("link connection from {} closed: {}", remote(c.channel()), e.toString());
            closeQuietly(c.channel());
            c.ticket().arrived.completeExceptionally(new SessionException("the session job's link broke as it said "
                    + "hello (" + e.getMessage() + ") [START_FAILED]"));
        }
    }

    private static Object remote(SocketChannel ch) {
        try {
            return ch.getRemoteAddress();
        } catch (IOException e) {
            return "(closed)";
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
        selector.wakeup();
        for (Ticket t : waiting) {
            t.arrived.completeExceptionally(new SessionException("the server is shutting down"));
        }
        try {
            doorman.join(CLOSE_WAIT_MILLIS);
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
