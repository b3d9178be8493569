package iristerm.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xnio.IoUtils;
import org.xnio.XnioExecutor;
import org.xnio.XnioIoThread;
import org.xnio.channels.StreamSinkChannel;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

/**
 * One {@code text/event-stream} response. Producers on any thread queue events; every channel
 * operation runs on the connection's IO thread, because XNIO channels are not thread-safe and
 * because a slow client must never block a producer (a tool, the keep-alive timer).
 *
 * <p>A periodic comment keeps proxies from timing the stream out and, as a write, is also how a
 * vanished client is noticed: HTTP/1.1 gives no other signal while the server is the one talking.
 *
 * <p>What is queued and not yet written counts against the server's {@link HeldBytes} budget too, which
 * drops this stream when it holds the most over that budget.
 */
final class SseStream implements EventStream {

    private static final Logger log = LoggerFactory.getLogger(SseStream.class);

    /** A client that stops reading is dropped once this much is queued for it, instead of filling the heap. */
    private static final long MAX_QUEUED_BYTES = 16L << 20;

    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);

    private final HttpServerExchange exchange;
    private final StreamSinkChannel sink;
    private final XnioIoThread io;
    private final Queue<ByteBuffer> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean pumpScheduled = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final XnioExecutor.Key keepAliveTimer;
    private final HeldBytes.Connection held;
    private volatile boolean ending;

    // IO thread only
    private ByteBuffer current;
    private boolean writesShutDown;

    private SseStream(HttpServerExchange exchange, Duration keepAlive, HeldBytes budget) {
        this.exchange = exchange;
        this.sink = exchange.getResponseChannel();
        this.io = sink.getIoThread();
        this.held = budget.connection(this::dropForBudget);
        sink.getWriteSetter().set(channel -> pump());
        keepAliveTimer = io.executeAtInterval(this::keepAlive, keepAlive.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Takes over {@code exchange} for an event-stream response. The caller must have dispatched
     * the exchange so that returning from the handler does not end it, and calls
     * {@link #start()} once whatever should exist before the client sees the stream does.
     */
    static SseStream open(HttpServerExchange exchange, Duration keepAlive, HeldBytes budget) {
        exchange.setStatusCode(200);
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, SseFormat.CONTENT_TYPE);
        exchange.getResponseHeaders().put(Headers.CACHE_CONTROL, "no-cache");
        return new SseStream(exchange, keepAlive, budget);
    }

    @Override
    public boolean prime(String id, Duration retry) {
        return enqueue(SseFormat.priming(id, retry).getBytes(StandardCharsets.UTF_8));
    }

    /** Sends the response headers now rather than with the first event. */
    @Override
    public void start() {
        schedulePump();
    }

    @Override
    public CompletableFuture<Void> closed() {
        return closed;
    }

    @Override
    public boolean send(String id, String data) {
        return enqueue(SseFormat.event(id, data).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void end() {
        if (!ending) {
            ending = true;
            schedulePump();
        }
    }

    /** Drops the connection without finishing the response. */
    @Override
    public void abort() {
        io.execute(() -> fail(null));
    }

    private void dropForBudget() {
        log.warn("Dropping SSE stream to {}: of all the server holds for clients it holds the most unsent data, over "
                + "the budget (--max-held-bytes)", exchange.getSourceAddress());
        abort();
    }

    private boolean enqueue(byte[] bytes) {
        if (ending || closed.isDone()) {
            return false;
        }
        // the budget's own count of this stream's unsent bytes is the one count there is
        long unsent = held.bytes();
        if (unsent + bytes.length > MAX_QUEUED_BYTES) {
            log.warn("Dropping SSE stream to {}: client is not reading ({} bytes queued)",
                    exchange.getSourceAddress(), unsent);
            abort();
            return false;
        }
        if (!held.queued(bytes.length)) {
            return false;
        }
        queue.add(ByteBuffer.wrap(bytes));
        schedulePump();
        return true;
    }

    private void schedulePump() {
        if (pumpScheduled.compareAndSet(false, true)) {
            io.execute(() -> {
                pumpScheduled.set(false);
                pump();
            });
        }
    }

    private void keepAlive() {
        if (current == null && queue.isEmpty()) {
            enqueue(KEEP_ALIVE);
        }
    }

    /** Writes what is queued; on a full socket buffer, resumes when the channel is writable again. */
    private void pump() {
        if (closed.isDone()) {
            return;
        }
        try {
            if (!writesShutDown) {
                // Reading `ending` before re-checking the queue makes everything queued before
                // end() visible, so the last events are never cut off by the shutdown.
                do {
                    while (current != null || (current = queue.poll()) != null) {
                        while (current.hasRemaining()) {
                            int written = sink.write(current);
                            if (written == 0) {
                                sink.resumeWrites();
                                return;
                            }
                            held.written(written);
                        }
                        current = null;
                    }
                } while (ending && !queue.isEmpty());
                if (ending) {
                    sink.shutdownWrites();
                    writesShutDown = true;
                }
            }
            if (!sink.flush()) {
                sink.resumeWrites();
                return;
            }
            sink.suspendWrites();
            if (writesShutDown) {
                keepAliveTimer.remove();
                held.close();
                closed.complete(null);
                exchange.endExchange();
            }
        } catch (IOException e) {
            fail(e);
        }
    }

    private void fail(IOException cause) {
        if (closed.isDone()) {
            return;
        }
        if (cause != null) {
            log.debug("SSE stream to {} lost: {}", exchange.getSourceAddress(), cause.toString());
        }
        keepAliveTimer.remove();
        held.close();
        queue.clear();
        current = null;
        closed.complete(null);
        IoUtils.safeClose(exchange.getConnection());
    }
}
