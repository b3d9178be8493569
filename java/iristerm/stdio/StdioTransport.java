package iristerm.stdio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import iristerm.jsonrpc.ControlCalls;
import iristerm.jsonrpc.InboundMessage;
import iristerm.jsonrpc.Plain;
import iristerm.jsonrpc.Refusal;
import iristerm.jsonrpc.RequestParams;
import iristerm.jsonrpc.UnknownTool;
import iristerm.modern.Era;
import iristerm.modern.ModernCapable;
import iristerm.modern.ModernError;
import iristerm.modern.ModernLane;
import iristerm.json.Json;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectWriter;

/**
 * MCP over newline-delimited JSON-RPC on a stream pair, for one client that spawned the server.
 * Unlike the SDK's stdio transport, no line ends the reading: a blank line is skipped, a line that
 * is not a message is answered with a JSON-RPC error, an over-long line is skipped to its newline
 * and answered too. The SDK's {@link McpServerSession} does the protocol of clients that open with
 * {@code initialize} (2025-11-25 and earlier); a request whose {@code params._meta} claims MCP
 * 2026-07-28 goes to the {@link ModernLane} instead, statelessly, at any time, beside that session.
 * Every request is answered at any time: a ping before {@code notifications/initialized} by the
 * transport itself, any other request before it with an error saying what to send first (the
 * SDK would hold such a request until the session is initialized, for ever if it never is).
 *
 * <p>{@link #serve} reads on the calling thread until the input ends, then waits (bounded) until
 * the requests in flight are answered. Each request runs on a thread of its own from a bounded
 * pool, from the SDK's handling to the written answer (the server is built for immediate execution
 * on this transport, so no second hand-over); notifications and responses are handled in the order
 * they were read, on the reading thread. Output is written one message per line, whole, by the
 * thread that sends it.
 */
public final class StdioTransport implements McpServerTransportProvider, ModernCapable {
    private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);

    /**
     * Encodes a message straight into stdout, leaving the stream open for the next one and its
     * flushing to the line's end (one write for a small message, not one for it and one for its newline).
     */
    private static final ObjectWriter LINES = Json.MAPPER.writer()
            .without(StreamWriteFeature.AUTO_CLOSE_TARGET).without(StreamWriteFeature.FLUSH_PASSED_TO_STREAM);

    private final InputStream in;
    private static final int CONTROL_THREADS = 4;

    private final OutputStream out;
    private final int maxLineBytes;
    /**
     * Runs the requests. As many threads as the SDK's own pool for blocking work would use, so the
     * same number of calls can wait at once; idle threads end after a minute.
     */
    private final ThreadPoolExecutor requests = new ThreadPoolExecutor(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE,
            Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
            new RequestThreads());
    /** session_close and session_signal run here, so they get through however many waits fill the pool above */
    private final ThreadPoolExecutor control = new ThreadPoolExecutor(CONTROL_THREADS, CONTROL_THREADS, 60,
            TimeUnit.SECONDS, new LinkedBlockingQueue<>(), new RequestThreads());
    /** answers not yet written for messages read so far */
    private final Set<CompletableFuture<Void>> inFlight = ConcurrentHashMap.newKeySet();
    /** held while a message is written, so lines never interleave */
    private final Object writing = new Object();
    private volatile McpServerSession session;
    private volatile ModernLane modern;
    /** the modern requests still running, by id, so notifications/cancelled can reach them */
    private final Map<Object, StdioOutbox> modernCalls = new ConcurrentHashMap<>();
    /** legacy handshake so far, as the reading thread has seen it (only that thread touches these) */
    private boolean initializeRead;
    private boolean initializedRead;
    private volatile boolean outputFailed;
    private volatile boolean closed;

    /**
     * @param maxLineBytes longest line read as a message; longer ones are refused
     */
    public StdioTransport(InputStream in, OutputStream out, int maxLineBytes) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("the line limit must be positive");
        }
        this.in = in;
        this.out = out;
        this.maxLineBytes = maxLineBytes;
        requests.allowCoreThreadTimeOut(true);
        control.allowCoreThreadTimeOut(true);
    }

    /** Where a request runs: close and signal apart from the rest. */
    private Executor executorFor(McpSchema.JSONRPCRequest request) {
        return ControlCalls.isControl(request) ? control : requests;
    }

    @Override
    public void serveModern(ModernLane lane) {
        this.modern = lane;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        this.session = sessionFactory.create(new SessionTransport());
    }

    /**
     * Reads messages until the input ends, then waits up to {@code drain} for the answers to the
     * requests read so far. Returns when both are done (or the wait is over).
     */
    public void serve(Duration drain) throws IOException {
        if (session == null) {
            throw new IllegalStateException("build the MCP server on this transport before serving");
        }
        LineReader lines = new LineReader(in, maxLineBytes);
        LineReader.Line line;
        while ((line = lines.next()) != null) {
            if (line.overlong()) {
                refuse(new Refusal(ErrorCodes.INVALID_REQUEST, "message of " + line.length()
                        + " bytes exceeds the limit of " + maxLineBytes + " bytes per line", null), "");
            } else if (!line.blank()) {
                accept(line.bytes());
            }
        }
        LOG.debug("stdin closed; waiting for {} answers in flight", inFlight.size());
        awaitInFlight(drain);
    }

    private void accept(byte[] bytes) {
        InboundMessage inbound = InboundMessage.parse(bytes);
        Refusal refusal = inbound.refusal();
        McpSchema.JSONRPCMessage message = inbound.message();
        ModernLane lane = modern;
        if (refusal == null && lane != null) {
            Era.Route route = Era.of(message, null);
            if (route.modern()) {
                acceptModern(lane, message, route.refusal());
                return;
            }
        }
        if (refusal == null && message instanceof McpSchema.JSONRPCRequest request) {
            refusal = beforeInitialized(request);
        }
        if (refusal == null && message instanceof McpSchema.JSONRPCRequest request) {
            RequestParams.Checked checked = RequestParams.check(request);
            refusal = checked.refusal();
            message = checked.request();
            if (refusal == null && lane != null) {
                refusal = UnknownTool.of(checked.request(), lane.tools());
            }
        }
        if (refusal != null) {
            refuse(refusal, preview(bytes));
            return;
        }
        if (message instanceof McpSchema.JSONRPCRequest r && !initializedRead && McpSchema.METHOD_PING.equals(r.method())) {
            // the SDK would hold it until the session is initialized; a ping needs no session
            track(send(McpSchema.JSONRPCResponse.result(r.id(), Map.of())));
            return;
        }
        if (message instanceof McpSchema.JSONRPCNotification n
                && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(n.method())) {
            initializedRead = true;
        }
        if (message instanceof McpSchema.JSONRPCRequest call) {
            McpSchema.JSONRPCMessage request = message;
            try {
                track(CompletableFuture.supplyAsync(() -> session.handle(request).toFuture(), executorFor(call))
                        .thenCompose(answered -> answered));
            } catch (RejectedExecutionException e) {
                // the server is shutting down: its output is closed too, so there is no one to answer
                LOG.debug("request read after shutdown began, not handled: {}", Plain.of(preview(bytes)));
            }
        } else {
            track(session.handle(message).toFuture());
        }
    }

    /**
     * Why a legacy request cannot be handled yet (null when it can): before notifications/initialized
     * only initialize and ping can be, and the SDK would hold any other request unanswered.
     */
    private Refusal beforeInitialized(McpSchema.JSONRPCRequest request) {
        if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initializeRead = true;
            return null;
        }
        if (initializedRead || McpSchema.METHOD_PING.equals(request.method())) {
            return null;
        }
        return new Refusal(ErrorCodes.INVALID_REQUEST, initializeRead
                ? request.method() + " came before notifications/initialized; send that notification after the "
                        + "answer to initialize, then the request again"
                : request.method() + " needs a protocol version: open with initialize (protocol 2025-11-25 and "
                        + "earlier), or put \"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\" and "
                        + "\"io.modelcontextprotocol/clientCapabilities\" in the request's params._meta "
                        + "(protocol 2026-07-28, no initialize)", request.id());
    }

    /**
     * A message of MCP 2026-07-28: a request runs on a request thread, statelessly; its answer
     * and notifications are written as any other message. notifications/cancelled ends the wait
     * of the request it names (and a subscription); other notifications need nothing.
     */
    private void acceptModern(ModernLane lane, McpSchema.JSONRPCMessage message, ModernError refused) {
        if (message instanceof McpSchema.JSONRPCNotification n) {
            if ("notifications/cancelled".equals(n.method())) {
                Object id = requestId(n.params());
                StdioOutbox call = id == null ? null : modernCalls.remove(id);
                if (call != null) {
                    call.cancelled().complete(null);
                }
            }
            return;
        }
        McpSchema.JSONRPCRequest request = (McpSchema.JSONRPCRequest) message;
        ModernError error = refused != null ? refused : lane.check(request);
        if (error != null) {
            track(send(error.toResponse(request.id())));
            return;
        }
        StdioOutbox out = new StdioOutbox(key(request.id()));
        modernCalls.put(out.id, out);
        try {
            track(CompletableFuture.runAsync(() -> lane.run(null, request, out), executorFor(request)));
        } catch (RejectedExecutionException e) {
            modernCalls.remove(out.id);
            LOG.debug("modern request read after shutdown began, not handled: {}", request.method());
        }
    }

    /** The requestId of notifications/cancelled, as {@link #key} makes it. */
    private static Object requestId(Object params) {
        JsonNode id = params == null ? null : Json.MAPPER.valueToTree(params).get("requestId");
        if (id == null) {
            return null;
        }
        return id.isIntegralNumber() ? (Object) id.longValue() : id.isString() ? id.asString() : null;
    }

    /** A request id as a map key: any integer as a long, whatever type it was read as. */
    private static Object key(Object id) {
        return id instanceof Number n ? (Object) n.longValue() : id;
    }

    /** Writes one message, whole, on a line of its own. */
    private CompletableFuture<Void> send(McpSchema.JSONRPCMessage message) {
        return write(stdout -> LINES.writeValue(stdout, message));
    }

    /** One modern request's messages on stdout: until its response, and never after a cancellation. */
    private final class StdioOutbox implements ModernLane.Outbox {
        private final Object id;
        private final CompletableFuture<Void> cancelled = new CompletableFuture<>();

        StdioOutbox(Object id) {
            this.id = id;
        }

        @Override
        public boolean send(McpSchema.JSONRPCMessage message) {
            if (cancelled.isDone()) {
                return false;
            }
            if (message instanceof McpSchema.JSONRPCResponse) {
                modernCalls.remove(id, this);
            }
            return !StdioTransport.this.send(message).isCompletedExceptionally();
        }

        @Override
        public CompletableFuture<Void> cancelled() {
            return cancelled;
        }
    }

    /** The start of a line read, for a log line. */
    private static String preview(byte[] line) {
        return new String(line, 0, Math.min(line.length, Plain.MAX_CHARS), StandardCharsets.UTF_8);
    }

    private void refuse(Refusal refusal, String line) {
        LOG.debug("refused a message ({} {}): {}", refusal.code(), refusal.message(), Plain.of(line));
        byte[] answer = refusal.toJson().getBytes(StandardCharsets.UTF_8);
        track(write(stdout -> stdout.write(answer)));
    }

    private void track(CompletableFuture<Void> answer) {
        inFlight.add(answer);
        answer.whenComplete((ok, e) -> {
            inFlight.remove(answer);
            if (e != null) {
                LOG.debug("a message could not be handled or answered: {}", e.toString());
            }
        });
    }

    private void awaitInFlight(Duration drain) {
        try {
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new))
                    .get(drain.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("{} requests still unanswered {} after stdin closed; closing anyway", inFlight.size(), drain);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            // each failure was logged where it happened; the others are complete
        }
    }

    /** One message's UTF-8 bytes (no newline), written into the stream it is given. */
    private interface Message {
        void writeTo(OutputStream stdout) throws IOException;
    }

    /**
     * Writes one line of output on the calling thread; the answer says whether it was written. A
     * message is encoded straight into stdout (a large answer is never held whole, and the client
     * reads its beginning while the rest is encoded). A client that does not read holds the writer
     * here rather than piling up answers.
     */
    private CompletableFuture<Void> write(Message message) {
        synchronized (writing) {
            if (closed || outputFailed) {
                return CompletableFuture.failedFuture(new IOException(closed ? "the stdio transport is closed"
                        : "stdout is closed"));
            }
            try {
                try {
                    message.writeTo(out);
                } catch (JacksonException e) {
                    // not a value JSON can hold (never one of this server's); whatever was written
                    // becomes a line of its own, so the next message still starts on a fresh one
                    out.write('\n');
                    out.flush();
                    LOG.error("a message could not be encoded; the client got a broken line instead", e);
                    return CompletableFuture.failedFuture(e);
                }
                out.write('\n');
                out.flush();
                return CompletableFuture.completedFuture(null);
            } catch (IOException e) {
                // the client stopped reading; later messages have nowhere to go either
                outputFailed = true;
                LOG.warn("writing to stdout failed ({}); no more messages can be sent", e.getMessage());
                return CompletableFuture.failedFuture(new IOException("stdout is closed", e));
            }
        }
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Mono.defer(() -> session == null ? Mono.empty() : session.sendNotification(method, params));
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return Mono.defer(() -> {
            McpServerSession s = session;
            if (s == null || !s.getId().equals(sessionId)) {
                LOG.debug("notification {} for unknown session {} dropped", method, sessionId);
                return Mono.empty();
            }
            return s.sendNotification(method, params);
        });
    }

    /**
     * Refuses further output once the message being written (if any) is out, and lets the request
     * threads end; a request still running is not waited for (serve waited for them, bounded).
     */
    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> {
            synchronized (writing) {
                closed = true;
            }
            requests.shutdown();
            control.shutdown();
        });
    }

    private static final class RequestThreads implements ThreadFactory {
        private final AtomicInteger next = new AtomicInteger(1);

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "stdio-request-" + next.getAndIncrement());
            t.setDaemon(true);
            return t;
        }
    }

    /** The one session's side of the transport: what the SDK session sends is written by the thread sending it. */
    private final class SessionTransport implements McpServerTransport {
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.defer(() -> Mono.fromFuture(send(message)));
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return Json.MCP.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return StdioTransport.this.closeGracefully();
        }
    }
}
