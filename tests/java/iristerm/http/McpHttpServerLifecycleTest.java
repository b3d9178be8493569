package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.modelcontextprotocol.client.McpSyncClient;

/** Streams and sessions ending: client disconnects, idle sessions, server shutdown. */
@Timeout(60)
class McpHttpServerLifecycleTest extends WithTestServer {

    private void assertServesNewClients() {
        try (McpSyncClient client = test.client(TestServer.BOB_TOKEN, log -> { })) {
            client.initialize();
            assertEquals("still here", TestServer.textOf(client.callTool(
                    TestServer.call("echo", "still here"))));
        }
    }

    /** After every stream of the session is gone, only the idle sweep can still hold on to it. */
    private void assertSessionHoldsNoStream(String session) throws Exception {
        test.clock.addAndGet(TestServer.IDLE.toNanos() + 1);
        test.server.transport().sweepIdleSessions();
        assertEquals(404, test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", session))
                .statusCode(), "session still had an open stream, so it was not swept");
    }

    @Test
    void clientVanishingMidToolCallReleasesItsStream() throws Exception {
        String session = test.initializeSession();
        CompletableFuture<Void> streamsEnded;
        try (TestServer.RawConnection raw = new TestServer.RawConnection(test.server.port())) {
            raw.send("POST", TestServer.CALL_BLOCK, test.headers(session));
            String head = raw.readHead();
            assertTrue(head.startsWith("HTTP/1.1 200") && head.contains("text/event-stream"), head);
            assertTrue(test.blockEntered.await(10, TimeUnit.SECONDS), "tool never started");
            streamsEnded = test.server.transport().streamsClosed();
            assertFalse(streamsEnded.isDone());
        }
        test.blockRelease.countDown();
        streamsEnded.get(10, TimeUnit.SECONDS);
        assertServesNewClients();
        assertSessionHoldsNoStream(session);
    }

    @Test
    void clientVanishingFromTheListeningStreamIsNoticedByTheKeepAlive() throws Exception {
        String session = test.initializeSession();
        CompletableFuture<Void> streamsEnded;
        try (TestServer.RawConnection raw = new TestServer.RawConnection(test.server.port())) {
            raw.send("GET", null, test.headers(session));
            String head = raw.readHead();
            assertTrue(head.startsWith("HTTP/1.1 200"), head);
            streamsEnded = test.server.transport().streamsClosed();
            assertFalse(streamsEnded.isDone());
        }
        streamsEnded.get(10, TimeUnit.SECONDS);
        assertServesNewClients();
        assertSessionHoldsNoStream(session);
    }

    @Test
    void idleSessionsAreSweptButActiveOnesStay() throws Exception {
        String idle = test.initializeSession();
        test.clock.addAndGet(TestServer.IDLE.toNanos() / 2);
        String recent = test.initializeSession();
        test.clock.addAndGet(TestServer.IDLE.toNanos() / 2 + 1);
        test.server.transport().sweepIdleSessions();
        assertEquals(404, test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", idle)).statusCode());
        assertEquals(200, test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", recent))
                .statusCode());
    }

    @Test
    void aSessionWithAnOpenListeningStreamIsNotSwept() throws Exception {
        String session = test.initializeSession();
        try (TestServer.RawConnection raw = new TestServer.RawConnection(test.server.port())) {
            raw.send("GET", null, test.headers(session));
            assertTrue(raw.readHead().startsWith("HTTP/1.1 200"));
            test.clock.addAndGet(TestServer.IDLE.toNanos() * 2);
            test.server.transport().sweepIdleSessions();
            assertEquals(200, test.send(test.request(TestServer.TOOLS_LIST).header("Mcp-Session-Id", session))
                    .statusCode());
        }
    }

    @Test
    void incompleteHeadersAreCutOffAtTheHeaderTimeout() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", test.server.port())) {
            socket.setSoTimeout((int) TestServer.WAIT.toMillis());
            long start = System.nanoTime();
            socket.getOutputStream().write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: appl"
                    .getBytes(StandardCharsets.US_ASCII));
            assertEquals(-1, socket.getInputStream().read(), "the server answered incomplete headers");
            Duration open = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(open.compareTo(TestServer.HEADER_TIMEOUT) >= 0 && open.compareTo(TestServer.CONNECTION_IDLE) < 0,
                    "closed after " + open + ", expected the header timeout " + TestServer.HEADER_TIMEOUT);
        }
    }

    @Test
    void aConnectionThatSendsNothingIsClosedWhenIdle() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", test.server.port())) {
            socket.setSoTimeout((int) TestServer.WAIT.toMillis());
            long start = System.nanoTime();
            assertEquals(-1, socket.getInputStream().read());
            Duration open = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(open.compareTo(TestServer.CONNECTION_IDLE) >= 0, "closed after " + open);
        }
    }

    @Test
    void stopEndsOpenStreamsAndIsIdempotent() throws Exception {
        String session = test.initializeSession();
        try (TestServer.RawConnection listening = new TestServer.RawConnection(test.server.port());
                TestServer.RawConnection calling = new TestServer.RawConnection(test.server.port())) {
            listening.send("GET", null, test.headers(session));
            assertTrue(listening.readHead().startsWith("HTTP/1.1 200"));
            calling.send("POST", TestServer.CALL_BLOCK, test.headers(session));
            assertTrue(calling.readHead().startsWith("HTTP/1.1 200"));
            assertTrue(test.blockEntered.await(10, TimeUnit.SECONDS));

            assertTimeoutPreemptively(Duration.ofSeconds(20), test.server::stop);
            test.server.stop();

            // both responses were finished (last chunk sent), not just cut off
            assertTrue(assertTimeoutPreemptively(Duration.ofSeconds(10), listening::readToEnd).endsWith("0\r\n\r\n"));
            String call = assertTimeoutPreemptively(Duration.ofSeconds(10), calling::readToEnd);
            assertTrue(call.endsWith("0\r\n\r\n"), call);
            // and the call still running was answered, with an error that says why
            assertTrue(call.contains("\"id\":3") && call.contains("\"code\":-32603")
                    && call.contains("Server shutting down"), call);
        }
        IOException refused = assertThrows(IOException.class, () -> test.send(test.request(TestServer.INITIALIZE)));
        assertTrue(refused instanceof ConnectException || refused.getCause() instanceof ConnectException,
                refused.toString());
    }
}
