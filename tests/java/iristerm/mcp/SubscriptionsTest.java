package iristerm.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.modern.ModernLane;
import iristerm.modern.Protocol;
import iristerm.session.SessionException;
import iristerm.session.SessionManager;

/** subscriptions/listen is bounded per identity and over all identities, however many listens arrive at once. */
@Timeout(60)
class SubscriptionsTest {
    @TempDir
    Path dataDir;
    private SessionManager sessions;

    @BeforeEach
    void start() {
        sessions = new SessionManager(new SessionManager.Config(dataDir, 1 << 16, 8, Duration.ofMinutes(5), 10, 500));
    }

    @AfterEach
    void stop() {
        sessions.close();
    }

    @Test
    void theServerWideCapRefusesInPlainWordsAndAnEndedSubscriptionFreesItsPlace() {
        try (Subscriptions subs = subscriptions(2, 3)) {
            Out a1 = listen(subs, "a", 1);
            assertTrue(acknowledged(a1) && acknowledged(listen(subs, "a", 2)));
            says(listen(subs, "a", 3), "too many subscriptions: 2 are open for you");
            assertTrue(acknowledged(listen(subs, "b", 4)));
            Out full = listen(subs, "c", 5);
            says(full, "too many subscriptions on this server: 3 are open");
            a1.cancelled.complete(null);
            assertTrue(acknowledged(listen(subs, "c", 6)), "the cancelled subscription kept its place");
        }
    }

    @Test
    void listensArrivingTogetherGetNoMoreThanTheCap() throws Exception {
        int cap = 8;
        int tries = 64;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try (Subscriptions subs = subscriptions(cap, 1000)) {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Out>> all = new ArrayList<>();
            for (int i = 0; i < tries; i++) {
                int id = i;
                all.add(pool.submit(() -> {
                    go.await();
                    return listen(subs, "same", id);
                }));
            }
            go.countDown();
            int acknowledged = 0;
            for (Future<Out> f : all) {
                acknowledged += acknowledged(f.get(30, TimeUnit.SECONDS)) ? 1 : 0;
            }
            assertEquals(cap, acknowledged);
        } finally {
            pool.shutdownNow();
        }
    }

    private Subscriptions subscriptions(int perIdentity, int total) {
        return new Subscriptions(sessions, (identity, uri) -> {
            throw new SessionException("no transcripts here");
        }, perIdentity, total);
    }

    private static Out listen(Subscriptions subs, String identity, int id) {
        Out out = new Out();
        subs.listen(identity, new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, Protocol.METHOD_LISTEN, id,
                Map.of("notifications", Map.of())), out);
        return out;
    }

    private static boolean acknowledged(Out out) {
        return out.sent.stream().anyMatch(m -> m instanceof McpSchema.JSONRPCNotification n
                && Protocol.NOTIFICATION_ACKNOWLEDGED.equals(n.method()));
    }

    private static void says(Out out, String words) {
        String message = out.sent.stream().filter(m -> m instanceof McpSchema.JSONRPCResponse r && r.error() != null)
                .map(m -> ((McpSchema.JSONRPCResponse) m).error().message()).findFirst().orElse("(no error)");
        assertTrue(message.contains(words), () -> "'" + message + "' does not say " + words);
    }

    /** A listen's stream: what was sent on it, and its cancellation. */
    private static final class Out implements ModernLane.Outbox {
        final List<McpSchema.JSONRPCMessage> sent = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> cancelled = new CompletableFuture<>();

        @Override
        public boolean send(McpSchema.JSONRPCMessage message) {
            sent.add(message);
            return true;
        }

        @Override
        public CompletableFuture<Void> cancelled() {
            return cancelled;
        }
    }
}
