package iristerm.hosted;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.http.EventStream;
import iristerm.http.Reply;
import iristerm.http.SseFormat;
import iristerm.http.StreamableExchange;

/**
 * One request from Terminal.REST. Its answer leaves only when the bridge call returns, so an
 * event stream is collected and becomes one complete {@code text/event-stream} body when it ends.
 */
final class BufferedExchange implements StreamableExchange {

    private final String method;
    private final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final byte[] body;
    private final String identity;
    private final CompletableFuture<Reply> reply = new CompletableFuture<>();

    /** @param body null for none (GET, DELETE) */
    BufferedExchange(String method, Map<String, String> headers, byte[] body, String identity) {
        this.method = method;
        this.headers.putAll(headers);
        this.body = body;
        this.identity = identity;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String header(String name) {
        return headers.get(name);
    }

    @Override
    public String identity() {
        return identity;
    }

    @Override
    public void readBody(int limit, Consumer<byte[]> then, Runnable tooLarge) {
        byte[] bytes = body == null ? new byte[0] : body;
        if (bytes.length > limit) {
            tooLarge.run();
        } else {
            then.accept(bytes);
        }
    }

    @Override
    public void respond(Reply answer) {
        reply.complete(answer);
    }

    @Override
    public EventStream openEventStream() {
        return new Collected();
    }

    @Override
    public boolean streams() {
        return false;
    }

    /** The answer, once complete; waits at most {@code timeout} for work that finishes elsewhere. */
    Reply await(Duration timeout) throws TimeoutException {
        try {
            return reply.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Reply.error(503, ErrorCodes.INTERNAL_ERROR, "Interrupted while waiting for the answer");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** An event stream that becomes the answer's body when it ends. */
    private final class Collected implements EventStream {

        private final StringBuilder events = new StringBuilder();
        private final CompletableFuture<Void> closed = new CompletableFuture<>();
        private boolean ended;

        @Override
        public synchronized boolean send(String id, String data) {
            if (ended) {
                return false;
            }
            events.append(SseFormat.event(id, data));
            return true;
        }

        /**
         * Never called: only a stream a client can resume is primed, and this exchange does not stream
         * ({@link BufferedExchange#streams()}), so the core makes none of its streams resumable; a call is a bug, said loudly.
         */
        @Override
        public boolean prime(String id, Duration retry) {
            throw new UnsupportedOperationException("the bridge does not stream, so no stream of it is primed");
        }

        @Override
        public void start() {
            // nothing reaches the client before the bridge call returns
        }

        @Override
        public void end() {
            finish(() -> new Reply(200, Map.of(Reply.CONTENT_TYPE, SseFormat.CONTENT_TYPE, "Cache-Control", "no-cache"),
                    events.toString()));
        }

        @Override
        public void abort() {
            finish(() -> Reply.error(503, ErrorCodes.INTERNAL_ERROR, "Server is shutting down"));
        }

        private void finish(Supplier<Reply> answer) {
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
                reply.complete(answer.get());
            }
            closed.complete(null);
        }

        @Override
        public CompletableFuture<Void> closed() {
            return closed;
        }
    }
}
