package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A blocking stream (the browser view's) whose client stopped reading: its blocked write counts
 * against the budget, and when it is the connection to drop, the drop ends the write.
 */
@Timeout(30)
class HeldOutputTest {

    @Test
    void aBlockedWriteIsHeldAndTheDropEndsIt() throws Exception {
        AtomicLong now = new AtomicLong();
        HeldBytes held = new HeldBytes(64 * 1024, now::get);
        // a socket whose reader reads nothing: its buffer takes 1 KiB, then writes block
        PipedInputStream socket = new PipedInputStream(1024);
        HeldOutput out = new HeldOutput(new PipedOutputStream(socket), held.connection(() -> {
            try {
                socket.close();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }));
        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
            try {
                out.write(new byte[40 * 1024]);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (held.total() < 40 * 1024 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(40 * 1024, held.total(), "the blocked write is not counted");

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(HeldBytes.STALL_MILLIS));
        assertTrue(held.connection(() -> { }).queued(30 * 1024), "a reading client's answer was refused");
        ExecutionException ended = assertThrows(ExecutionException.class,
                () -> write.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, ended.getCause().getCause(), ended::toString);
        assertEquals(30 * 1024, held.total());
        out.close();
        assertEquals(30 * 1024, held.total());
    }
}
