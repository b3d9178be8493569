package iristerm.process;

import iristerm.session.Delivery;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a session's input writer tells its callers when the program ends around their input. */
class InputWriterTest {
    /** A program's input that takes each write only once the test lets it (or fails it). */
    private static final class HeldInput extends OutputStream {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean fail;
        final AtomicInteger writes = new AtomicInteger();

        @Override
        public void write(int b) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            writes.incrementAndGet();
            entered.countDown();
            try {
                if (!release.await(10, TimeUnit.SECONDS)) {
                    throw new IOException("the test never released the write");
                }
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            if (fail) {
                throw new IOException("Broken pipe");
            }
        }
    }

    private static CompletableFuture<Delivery> send(InputWriter w, String text) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return w.write(text.getBytes(StandardCharsets.UTF_8), 10_000);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    /**
     * The program read the line and ended at once (a line that makes it exit): the engine closes while the write
     * is still on its way back, and the caller must hear that its input went in, not that the program ended
     * before reading it (HttpSessionsIT saw that under load).
     */
    @Test
    void aLineTheProgramReadBeforeItEndedIsDelivered() throws Exception {
        HeldInput in = new HeldInput();
        InputWriter w = new InputWriter(in, "input-test");
        CompletableFuture<Delivery> sent = send(w, "x\n");
        assertTrue(in.entered.await(10, TimeUnit.SECONDS));
        w.close();
        in.release.countDown();
        Delivery d = sent.get(10, TimeUnit.SECONDS);
        assertEquals(2, d.written(), d::toString);
        assertEquals(0, d.queued(), d::toString);
    }

    /**
     * The engine closes while a line goes in and another waits behind it: the line in flight is delivered, the one
     * behind it is never written, and the next input learns that the program ended before reading it.
     */
    @Test
    void whatWaitsBehindALineInFlightIsDroppedWhenTheProgramEnds() throws Exception {
        HeldInput in = new HeldInput();
        InputWriter w = new InputWriter(in, "input-test");
        CompletableFuture<Delivery> first = send(w, "x\n");
        assertTrue(in.entered.await(10, TimeUnit.SECONDS));
        // its own bound: the writer is busy with the first line, so this one stays queued
        Delivery queued = w.write("y\n".getBytes(StandardCharsets.UTF_8), 100);
        assertEquals(2, queued.queued(), queued::toString);
        w.close();
        in.release.countDown();
        assertEquals(2, first.get(10, TimeUnit.SECONDS).written());
        IOException later = assertThrows(IOException.class, () -> w.write("z\n".getBytes(StandardCharsets.UTF_8), 1000));
        assertTrue(later.getMessage().contains("ended before it read"), later.getMessage());
        assertEquals(1, in.writes.get(), "the queued line was never written");
    }

    /** A write that fails because the program ended is the caller's failure, as is anything still queued behind it. */
    @Test
    void inputTheProgramNeverReadFailsItsCallers() throws Exception {
        HeldInput in = new HeldInput();
        InputWriter w = new InputWriter(in, "input-test");
        CompletableFuture<Delivery> first = send(w, "a\n");
        assertTrue(in.entered.await(10, TimeUnit.SECONDS));
        in.fail = true;
        w.close();
        in.release.countDown();
        ExecutionException e = assertThrows(ExecutionException.class, () -> first.get(10, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause().getCause());
        assertThrows(IOException.class, () -> w.write("b\n".getBytes(StandardCharsets.UTF_8), 1000),
                "after the end, input is refused at once");
    }
}
