package iristerm.iris;

import iristerm.session.SessionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The link's door: only a hello with a ticket that is waiting gets in, once, in time, within its size;
 * the job Open started is the one that must say it. IRIS here is a stand-in whose Open hands the
 * request to the test, which plays the job over a real socket.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobLinkTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final long PID = 4242;

    private final JobLink link = new JobLink(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    /** every Open request, as the job would get its host, port and ticket */
    private final BlockingQueue<JsonNode> opens = new LinkedBlockingQueue<>();
    private final List<String> signals = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private final IrisApi api = new IrisApi(new IrisCalls() {
        @Override
        public String call(IrisMethod method, String requestJson) {
            if (method == IrisMethod.SIGNAL) {
                signals.add(requestJson);
                return "{\"sent\":1}";
            }
            opens.add(JSON.readTree(requestJson));
            return "{\"pid\":" + PID + ",\"namespace\":\"USER\"}";
        }

        @Override
        public String describe() {
            return "stand-in";
        }
    });

    @AfterEach
    void close() {
        sockets.forEach(JobLink::closeQuietly);
        link.close();
    }

    /** Starts a job through the link on another thread; the test plays the job. */
    private CompletableFuture<JobLink.Job> start() {
        return start(null);
    }

    /** The same for a caller whose job must run as IRIS user {@code owner} (hosted). */
    private CompletableFuture<JobLink.Job> start(String owner) {
        return CompletableFuture.supplyAsync(() -> link.start(api, null, owner));
    }

    private JsonNode open() throws InterruptedException {
        JsonNode o = opens.poll(10, TimeUnit.SECONDS);
        assertNotNull(o, "Open was not called");
        return o;
    }

    private Socket connect(JsonNode open) throws IOException {
        Socket s = new Socket(open.path("host").asString(), open.path("port").asInt());
        sockets.add(s);
        return s;
    }

    private static String hello(String ticket, long pid) {
        ObjectNode h = JSON.createObjectNode().put("ticket", ticket).put("pid", pid).put("user", "alice")
                .put("roles", "%Developer").put("namespace", "USER").put("iris", "v").put("instance", "h:IRIS")
                .put("mark", "0123456789ABCDEF");
        return JSON.writeValueAsString(h) + "\n";
    }

    private static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Whether the server closed the connection without a word (bounded). */
    private static boolean closedByServer(Socket s) throws IOException {
        s.setSoTimeout(15_000);
        InputStream in = s.getInputStream();
        try {
            return in.read() < 0;
        } catch (IOException reset) {
            return true;
        }
    }

    private static SessionException failure(CompletableFuture<JobLink.Job> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof SessionException, e.getCause().toString());
        return (SessionException) e.getCause();
    }

    @Test
    void theJobWithItsTicketAndPidGetsInAndItsFirstOutputFollowsTheHello() throws Exception {
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        String ticket = open.path("ticket").asString();
        assertTrue(ticket.matches("[A-Za-z0-9_-]{43}"), ticket);
        assertEquals("127.0.0.1", open.path("host").asString(), "the loopback literal, never a name that may resolve to ::1");
        Socket job = connect(open);
        send(job, hello(ticket, PID) + "USER>");
        try (JobLink.Job j = started.get(20, TimeUnit.SECONDS)) {
            assertEquals(PID, j.pid());
            assertEquals("0123456789ABCDEF", j.hello().mark(), "$ZHEX writes capitals: any case is a mark");
            assertEquals("USER>", new String(j.in().readNBytes(5), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aWrongTicketIsClosedAndTheRightOneStillGetsIn() throws Exception {
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        String ticket = open.path("ticket").asString();
        Socket stranger = connect(open);
        String wrong = (ticket.charAt(0) == 'A' ? "B" : "A") + ticket.substring(1);
        send(stranger, hello(wrong, PID));
        assertTrue(closedByServer(stranger), "a wrong ticket must be closed");
        send(connect(open), hello(ticket, PID));
        started.get(20, TimeUnit.SECONDS).close();
    }

    @Test
    void aTicketIsGoodForOneConnectionOnly() throws Exception {
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        String ticket = open.path("ticket").asString();
        send(connect(open), hello(ticket, PID));
        started.get(20, TimeUnit.SECONDS).close();
        Socket again = connect(open);
        send(again, hello(ticket, PID));
        assertTrue(closedByServer(again), "a used ticket must not open a second connection");
    }

    @Test
    void aTicketPastItsTenSecondsOpensNothingAndTheOpenFailsSayingWhatToCheck() throws Exception {
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        SessionException e = failure(started);
        assertTrue(e.getMessage().contains("did not connect back") && e.getMessage().contains("--iris-link"),
                e.getMessage());
        assertEquals(List.of(), signals, "a pid never seen on a link is never signalled (it may be another's by now)");
        Socket late = connect(open);
        send(late, hello(open.path("ticket").asString(), PID));
        assertTrue(closedByServer(late), "a late ticket must be closed");
    }

    @Test
    void aHelloLongerThan64KiBIsClosed() throws Exception {
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        Socket big = connect(open);
        String ticket = open.path("ticket").asString();
        // a valid hello, padded past the limit before its end of line
        String h = hello(ticket, PID);
        send(big, h.substring(0, h.length() - 2) + ",\"pad\":\"" + "x".repeat(LinkProtocol.MAX_HELLO_BYTES) + "\"}\n");
        assertTrue(closedByServer(big), "an over-long hello must be closed");
        send(connect(open), hello(ticket, PID));
        started.get(20, TimeUnit.SECONDS).close();
    }

    @Test
    void aJobThatRefusesToRunFailsTheOpenWithItsReason() throws Exception {
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        send(connect(open), "{\"ticket\":\"" + open.path("ticket").asString()
                + "\",\"refused\":\"IRISTerminal_Bridge is still held\"}\n");
        SessionException e = failure(started);
        assertTrue(e.getMessage().contains("IRISTerminal_Bridge is still held")
                && e.getMessage().contains("START_FAILED"), e.getMessage());
    }

    @Test
    void aHelloFromAnotherPidIsRefused() throws Exception {
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        Socket other = connect(open);
        send(other, hello(open.path("ticket").asString(), PID + 1));
        SessionException e = failure(started);
        assertTrue(e.getMessage().contains("not the one Open started"), e.getMessage());
        assertTrue(closedByServer(other));
        assertEquals(List.of(), signals, "neither pid is signalled: no link of either is open");
    }

    /** Hosted, the job runs as the IRIS user who opened the session, or nothing runs in it (E10). */
    @Test
    void aJobThatRunsAsAnotherUserThanTheOwnerIsClosedAndTheOpenRefused() throws Exception {
        CompletableFuture<JobLink.Job> started = start("bob");
        JsonNode open = open();
        Socket job = connect(open);
        send(job, hello(open.path("ticket").asString(), PID));
        SessionException e = failure(started);
        assertTrue(e.getMessage().contains("as user alice, not as bob") && e.getMessage().contains("START_FAILED"),
                e.getMessage());
        assertTrue(closedByServer(job));
        CompletableFuture<JobLink.Job> same = start("ALICE");
        JsonNode again = open();
        send(connect(again), hello(again.path("ticket").asString(), PID));
        same.get(20, TimeUnit.SECONDS).close();
    }

    /**
     * Any local process can connect to the link (every session job knows its port): connections that say
     * nothing must not keep a job out, however many there are (E2).
     */
    @Test
    void connectionsThatSayNothingDoNotKeepAJobOut() throws Exception {
        int idle = JobLink.MAX_HANDSHAKES + 36;
        for (int i = 0; i < idle; i++) {
            sockets.add(new Socket(InetAddress.getLoopbackAddress(), link.port()));
        }
        CompletableFuture<JobLink.Job> started = start();
        JsonNode open = open();
        long t0 = System.nanoTime();
        send(connect(open), hello(open.path("ticket").asString(), PID));
        try (JobLink.Job j = started.get(LinkProtocol.HELLO_MILLIS / 2, TimeUnit.MILLISECONDS)) {
            assertEquals(PID, j.pid());
        }
        System.out.printf("a job got in past %d idle connections in %d ms%n", idle,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    @Test
    void aConnectionThatSaysNothingIsClosedAfterTheHellosTimeNotTheTickets() throws Exception {
        Socket silent = new Socket(InetAddress.getLoopbackAddress(), link.port());
        sockets.add(silent);
        long t0 = System.nanoTime();
        assertTrue(closedByServer(silent));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < LinkProtocol.HELLO_READ_MILLIS + 1_500 && ms < LinkProtocol.HELLO_MILLIS,
                "a silent connection was closed after " + ms + " ms");
    }
}
