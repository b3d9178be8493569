package iristerm.ui;

import iristerm.http.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PollCapTest {
    @Test
    @Timeout(30)
    void anIdentitysPollsBeyondTheCapAreRefusedAtOnceAndAnotherIdentitysAreNot() throws Exception {
        PollCap cap = new PollCap(2);
        CountDownLatch waiting = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Reply>> held = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                held.add(pool.submit(() -> cap.within("alice", () -> {
                    waiting.countDown();
                    try {
                        release.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return Reply.json(200, "{}");
                })));
            }
            waiting.await(10, TimeUnit.SECONDS);
            Reply refused = cap.within("alice", () -> Reply.json(200, "{}"));
            assertEquals(429, refused.status());
            assertEquals(PollCap.RETRY_AFTER_SECONDS, refused.headers().get("Retry-After"));
            assertEquals(200, cap.within("bob", () -> Reply.json(200, "{}")).status());
            release.countDown();
            for (Future<Reply> f : held) {
                assertEquals(200, f.get(10, TimeUnit.SECONDS).status());
            }
            // the waits ended: alice may poll again
            assertEquals(200, cap.within("alice", () -> Reply.json(200, "{}")).status());
        } finally {
            pool.shutdownNow();
        }
    }
}
