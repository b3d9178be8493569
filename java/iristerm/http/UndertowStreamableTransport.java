package iristerm.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.ProtocolVersions;
import io.undertow.io.Receiver;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import io.undertow.util.SameThreadExecutor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP transport (specification 2025-11-25) as an Undertow handler for the
 * SDK's streamable server. It expects to sit behind authentication, which leaves the caller's
 * identity in the {@link #IDENTITY} attachment; that identity owns the MCP sessions it opens
 * and reaches tool handlers as {@code exchange.transportContext().get("identity")}.
 *
 * <p>POST carries one JSON-RPC message: {@code initialize} is answered as
 * {@code application/json} with a new {@code Mcp-Session-Id}; other requests as an SSE stream
 * that carries the request's notifications and ends with its response; notifications and
 * responses get 202. GET opens the session's listening stream for server-initiated messages;
 * DELETE ends the session. Sessions nobody uses are closed after an idle timeout.
 *
 * <p>Undertow IO threads only hand requests over: everything that may run SDK or tool code runs
 * on a worker thread, and streams are written without blocking anyone.
 */
public final class UndertowStreamableTransport implements McpStreamableServerTransportProvider, HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(UndertowStreamableTransport.class);

    /** Exchange attachment where the authentication layer leaves the caller's identity. */
    public static final AttachmentKey<String> IDENTITY = AttachmentKey.create(String.class);

    /** Key of the caller's identity in the {@link McpTransportContext} tool handlers receive. */
    public static final String CONTEXT_IDENTITY = "identity";

    /** JSON-RPC error code for an unknown, expired or foreign session (the one the TypeScript SDK uses). */
    static final int SESSION_NOT_FOUND = -32001;

    private static final HttpString SESSION_ID = new HttpString(HttpHeaders.MCP_SESSION_ID);
    private static final HttpString PROTOCOL_VERSION = new HttpString(HttpHeaders.PROTOCOL_VERSION);
    private static final String EVENT_STREAM = "text/event-stream";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    private static final List<String> PROTOCOL_VERSIONS = List.of(ProtocolVersions.MCP_2024_11_05,
            ProtocolVersions.MCP_2025_03_26, ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);

    /** A live MCP session, the identity that opened it, and when it was last used (clock nanos). */
    private record Session(McpStreamableServerSession mcp, String owner, AtomicLong lastUsed) {
    }

    private final McpJsonMapper json;
    private final int maxBodyBytes;
    private final Duration keepAlive;
    private final long idleNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final Set<SseStream> streams = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService sweeper;
    private volatile McpStreamableServerSession.Factory sessionFactory;
    private volatile boolean closing;

    /**
     * @param json               mapper for JSON-RPC messages (passed explicitly: never ServiceLoader)
     * @param maxBodyBytes       largest POST body accepted; larger ones get 413
     * @param keepAlive          interval of the SSE comment sent on idle streams
     * @param sessionIdleTimeout a session with no open stream and no request for this long is closed
     */
    public UndertowStreamableTransport(McpJsonMapper json, int maxBodyBytes, Duration keepAlive,
            Duration sessionIdleTimeout) {
        this(json, maxBodyBytes, keepAlive, sessionIdleTimeout, System::nanoTime);
    }

    UndertowStreamableTransport(McpJsonMapper json, int maxBodyBytes, Duration keepAlive,
            Duration sessionIdleTimeout, LongSupplier nanoClock) {
        if (maxBodyBytes <= 0 || keepAlive.isNegative() || keepAlive.isZero() || sessionIdleTimeout.isNegative()
                || sessionIdleTimeout.isZero()) {
            throw new IllegalArgumentException("body cap, keep-alive and session idle timeout must be positive");
        }
        this.json = json;
        this.maxBodyBytes = maxBodyBytes;
        this.keepAlive = keepAlive;
        this.idleNanos = sessionIdleTimeout.toNanos();
        this.nanoClock = nanoClock;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "mcp-session-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        // A quarter of the timeout keeps overshoot small; the bounds avoid busy or sleepy sweeping.
        long period = Math.min(Math.max(sessionIdleTimeout.toMillis() / 4, 10), 60_000);
        sweeper.scheduleWithFixedDelay(this::sweepIdleSessions, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public List<String> protocolVersions() {
        return PROTOCOL_VERSIONS;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
        this.sessionFactory = sessionFactory;
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Flux.fromIterable(sessions.values())
                .flatMap(session -> session.mcp().sendNotification(method, params).onErrorResume(e -> {
                    log.warn("Notification {} to session {} failed: {}", method, session.mcp().getId(), e.toString());
                    return Mono.empty();
                }))
                .then();
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return Mono.defer(() -> {
            Session session = sessions.get(sessionId);
            if (session == null) {
                log.debug("Notification {} for unknown session {} dropped", method, sessionId);
                return Mono.empty();
            }
            return session.mcp().sendNotification(method, params);
        });
    }

    /**
     * Refuses new requests, closes every session (ending its streams), then waits a bounded time
     * for all responses to finish and drops the connections of those that did not.
     */
    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closing = true;
            sweeper.shutdownNow();
            List<Session> open = new ArrayList<>(sessions.values());
            sessions.clear();
            return Flux.fromIterable(open)
                    .flatMap(session -> session.mcp().closeGracefully().timeout(CLOSE_TIMEOUT).onErrorResume(e -> {
                        log.warn("Closing session {} failed: {}", session.mcp().getId(), e.toString());
                        return Mono.empty();
                    }))
                    .then(Mono.defer(() -> {
                        streams.forEach(SseStream::end);
                        return Mono.fromFuture(streamsClosed());
                    }))
                    .timeout(CLOSE_TIMEOUT)
                    .onErrorResume(TimeoutException.class, e -> {
                        log.warn("{} SSE streams did not end in {}; dropping their connections", streams.size(),
                                CLOSE_TIMEOUT);
                        streams.forEach(SseStream::abort);
                        return Mono.empty();
                    });
        });
    }

    /** Completes when every SSE stream open at the time of the call has ended. */
    CompletableFuture<Void> streamsClosed() {
        return CompletableFuture.allOf(streams.stream().map(SseStream::closed).toArray(CompletableFuture[]::new));
    }

    /** Closes sessions that have no open stream and have seen no request for the idle timeout. */
    void sweepIdleSessions() {
        long now = nanoClock.getAsLong();
        sessions.forEach((id, session) -> {
            if (!session.mcp().hasOpenStream() && now - session.lastUsed().get() > idleNanos
                    && sessions.remove(id, session)) {
                log.info("Closing MCP session {} of '{}': idle for more than {} s", id, session.owner(),
                        TimeUnit.NANOSECONDS.toSeconds(idleNanos));
                session.mcp().closeGracefully().timeout(CLOSE_TIMEOUT).subscribe(null,
                        e -> log.warn("Closing idle session {} failed: {}", id, e.toString()));
            }
        });
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        if (exchange.isInIoThread()) {
            exchange.dispatch(this);
            return;
        }
        String identity = exchange.getAttachment(IDENTITY);
        if (identity == null) {
            log.error("Request reached the MCP transport without an identity; it must sit behind authentication");
            Responses.error(exchange, 500, ErrorCodes.INTERNAL_ERROR, "Server misconfigured: no identity");
            return;
        }
        if (closing || sessionFactory == null) {
            Responses.error(exchange, 503, ErrorCodes.INTERNAL_ERROR,
                    closing ? "Server is shutting down" : "MCP server not ready");
            return;
        }
        HttpString method = exchange.getRequestMethod();
        if (Methods.POST.equals(method)) {
            post(exchange, identity);
        } else if (Methods.GET.equals(method)) {
            get(exchange, identity);
        } else if (Methods.DELETE.equals(method)) {
            delete(exchange, identity);
        } else {
            exchange.getResponseHeaders().put(Headers.ALLOW, "GET, POST, DELETE");
            Responses.error(exchange, 405, ErrorCodes.INVALID_REQUEST,
                    "Method " + method + " not allowed; use POST, GET or DELETE");
        }
    }

    /** The POST body, once received; answers anything unexpected with a JSON error rather than a bare 500. */
    private void onPostBody(HttpServerExchange exchange, String identity, byte[] body) {
        try {
            handlePost(exchange, identity, body);
        } catch (RuntimeException e) {
            log.warn("POST from {} failed: {}", exchange.getSourceAddress(), e.toString(), e);
            if (!exchange.isResponseStarted()) {
                Responses.error(exchange, 500, ErrorCodes.INTERNAL_ERROR, "Internal error: " + rootMessage(e));
            }
        }
    }

    private void post(HttpServerExchange exchange, String identity) {
        String contentType = exchange.getRequestHeaders().getFirst(Headers.CONTENT_TYPE);
        if (contentType == null
                || !contentType.split(";", 2)[0].strip().equalsIgnoreCase(Responses.APPLICATION_JSON)) {
            Responses.error(exchange, 415, ErrorCodes.INVALID_REQUEST,
                    "Content-Type must be application/json, was " + contentType);
            return;
        }
        // The receiver reads without blocking, refuses a declared or actual length over the cap
        // before Undertow would drop the connection, and may call back later on the IO thread.
        Receiver receiver = exchange.getRequestReceiver();
        receiver.setMaxBufferSize(maxBodyBytes);
        receiver.receiveFullBytes((ex, body) -> {
            if (ex.isInIoThread()) {
                ex.dispatch((HttpHandler) e -> onPostBody(e, identity, body));
            } else {
                onPostBody(ex, identity, body);
            }
        }, (ex, error) -> {
            if (error instanceof Receiver.RequestToLargeException) {
                // the unread rest of the body makes the connection unusable for another request
                ex.setPersistent(false);
                Responses.error(ex, 413, ErrorCodes.INVALID_REQUEST,
                        "Request body exceeds the limit of " + maxBodyBytes + " bytes");
            } else {
                log.debug("Reading request body from {} failed: {}", ex.getSourceAddress(), error.toString());
                ex.endExchange();
            }
        });
    }

    private void handlePost(HttpServerExchange exchange, String identity, byte[] body) {
        McpSchema.JSONRPCMessage message;
        try {
            String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(body)).toString();
            String start = text.stripLeading();
            if (!start.startsWith("{")) {
                Responses.error(exchange, 400, ErrorCodes.INVALID_REQUEST, start.startsWith("[")
                        ? "JSON-RPC batches are not supported; send one message per request"
                        : "Request body must be one JSON-RPC message (a JSON object)");
                return;
            }
            message = McpSchema.deserializeJsonRpcMessage(json, text);
        } catch (CharacterCodingException e) {
            Responses.error(exchange, 400, ErrorCodes.PARSE_ERROR, "Request body is not valid UTF-8");
            return;
        } catch (IOException e) {
            Responses.error(exchange, 400, ErrorCodes.PARSE_ERROR, "Malformed JSON: " + rootMessage(e));
            return;
        } catch (IllegalArgumentException e) {
            Responses.error(exchange, 400, ErrorCodes.INVALID_REQUEST, "Not a JSON-RPC 2.0 message: " + e.getMessage());
            return;
        }
        String accept = exchange.getRequestHeaders().getFirst(Headers.ACCEPT);
        boolean acceptsBoth = accepts(accept, Responses.APPLICATION_JSON) && accepts(accept, EVENT_STREAM);
        if (!acceptsBoth) {
            Responses.error(exchange, 400, ErrorCodes.INVALID_REQUEST,
                    "Accept header must list both application/json and text/event-stream");
            return;
        }
        if (message instanceof McpSchema.JSONRPCRequest request
                && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initialize(exchange, identity, request);
            return;
        }
        Session session = sessionOf(exchange, identity);
        if (session == null) {
            return;
        }
        McpTransportContext context = contextOf(identity);
        if (message instanceof McpSchema.JSONRPCRequest request) {
            whenDispatched(exchange, () -> {
                SseStream sse = openStream(exchange, session);
                McpStreamableServerSession.McpStreamableServerSessionStream stream = session.mcp()
                        .responseStream(new StreamTransport(sse, true));
                sse.closed().thenRun(stream::close);
                sse.sendHeaders();
                stream.handle(request)
                        .contextWrite(c -> c.put(McpTransportContext.KEY, context))
                        .subscribe(null, e -> failRequest(sse, request, e), sse::end);
            });
        } else if (message instanceof McpSchema.JSONRPCNotification notification) {
            respondWhenDone(exchange, session.mcp().accept(notification), context, 202);
        } else if (message instanceof McpSchema.JSONRPCResponse response) {
            respondWhenDone(exchange, session.mcp().accept(response), context, 202);
        }
    }

    /**
     * Ends a request's stream with a JSON-RPC error when the SDK failed without answering, so the
     * client gets a precise error instead of waiting for its timeout.
     */
    private void failRequest(SseStream sse, McpSchema.JSONRPCRequest request, Throwable e) {
        McpSchema.JSONRPCResponse.JSONRPCError error;
        if (e instanceof McpError mcpError && mcpError.getJsonRpcError() != null) {
            error = mcpError.getJsonRpcError();
        } else if (e instanceof IllegalArgumentException) {
            // the SDK could not read the request's params
            error = new McpSchema.JSONRPCResponse.JSONRPCError(ErrorCodes.INVALID_PARAMS, rootMessage(e));
        } else {
            log.warn("Request {} {} failed: {}", request.method(), request.id(), e.toString());
            error = new McpSchema.JSONRPCResponse.JSONRPCError(ErrorCodes.INTERNAL_ERROR, rootMessage(e));
        }
        try {
            sse.sendEvent(null, json.writeValueAsString(McpSchema.JSONRPCResponse.error(request.id(), error)));
        } catch (IOException serialization) {
            log.warn("Could not serialize the error for request {}: {}", request.id(), serialization.toString());
        }
        sse.end();
    }

    private void initialize(HttpServerExchange exchange, String identity, McpSchema.JSONRPCRequest request) {
        McpSchema.InitializeRequest params;
        try {
            params = json.convertValue(request.params(), new TypeRef<McpSchema.InitializeRequest>() {
            });
        } catch (IllegalArgumentException e) {
            Responses.error(exchange, 400, ErrorCodes.INVALID_PARAMS, "Invalid initialize params: " + rootMessage(e));
            return;
        }
        if (params == null) {
            Responses.error(exchange, 400, ErrorCodes.INVALID_PARAMS, "initialize requires params");
            return;
        }
        McpStreamableServerSession.McpStreamableServerSessionInit init = sessionFactory.startSession(params);
        McpStreamableServerSession mcp = init.session();
        sessions.put(mcp.getId(), new Session(mcp, identity, new AtomicLong(nanoClock.getAsLong())));
        whenDispatched(exchange, () -> init.initResult()
                .contextWrite(c -> c.put(McpTransportContext.KEY, contextOf(identity)))
                .subscribe(result -> {
                    String body;
                    try {
                        body = json.writeValueAsString(McpSchema.JSONRPCResponse.result(request.id(), result));
                    } catch (IOException e) {
                        failInitialize(exchange, mcp, e);
                        return;
                    }
                    exchange.getResponseHeaders().put(SESSION_ID, mcp.getId());
                    Responses.json(exchange, 200, body);
                }, e -> failInitialize(exchange, mcp, e)));
    }

    private void failInitialize(HttpServerExchange exchange, McpStreamableServerSession mcp, Throwable e) {
        log.warn("Initializing MCP session failed: {}", e.toString());
        sessions.remove(mcp.getId());
        mcp.close();
        Responses.error(exchange, 500, ErrorCodes.INTERNAL_ERROR, "Failed to initialize session: " + rootMessage(e));
    }

    private void get(HttpServerExchange exchange, String identity) {
        if (!accepts(exchange.getRequestHeaders().getFirst(Headers.ACCEPT), EVENT_STREAM)) {
            Responses.error(exchange, 400, ErrorCodes.INVALID_REQUEST, "Accept header must list text/event-stream");
            return;
        }
        Session session = sessionOf(exchange, identity);
        if (session == null) {
            return;
        }
        // Last-Event-ID is not honoured: SDK 2.1.0 keeps no event history to replay from.
        whenDispatched(exchange, () -> {
            SseStream sse = openStream(exchange, session);
            McpStreamableServerSession.McpStreamableServerSessionStream listening = session.mcp()
                    .listeningStream(new StreamTransport(sse, false));
            sse.closed().thenRun(listening::close);
            // only now: a client that has the headers may rely on server messages reaching it
            sse.sendHeaders();
        });
    }

    private void delete(HttpServerExchange exchange, String identity) {
        Session session = sessionOf(exchange, identity);
        if (session == null) {
            return;
        }
        sessions.remove(session.mcp().getId(), session);
        respondWhenDone(exchange, session.mcp().delete().timeout(CLOSE_TIMEOUT), contextOf(identity), 200);
    }

    /**
     * The session a non-initialize request names, or null after answering 400 (no id, bad
     * protocol version) or 404 (unknown, expired, or opened by another identity: a session id
     * must not let one identity act as another).
     */
    private Session sessionOf(HttpServerExchange exchange, String identity) {
        String version = exchange.getRequestHeaders().getFirst(PROTOCOL_VERSION);
        if (version != null && !PROTOCOL_VERSIONS.contains(version)) {
            Responses.error(exchange, 400, ErrorCodes.INVALID_REQUEST,
                    "Unsupported MCP-Protocol-Version " + version + "; supported: " + PROTOCOL_VERSIONS);
            return null;
        }
        String id = exchange.getRequestHeaders().getFirst(SESSION_ID);
        if (id == null || id.isBlank()) {
            Responses.error(exchange, 400, ErrorCodes.INVALID_REQUEST,
                    "Mcp-Session-Id header required; start a session with initialize");
            return null;
        }
        Session session = sessions.get(id);
        if (session == null || !session.owner().equals(identity)) {
            Responses.error(exchange, 404, SESSION_NOT_FOUND, "Session not found: " + id);
            return null;
        }
        session.lastUsed().set(nanoClock.getAsLong());
        return session;
    }

    /**
     * Opens an SSE response and tracks it until it ends. Its end callbacks (here and the SDK
     * stream closes registered by callers) may run on the IO thread: they only release state and
     * fail pending server-to-client requests, none of them blocks.
     */
    private SseStream openStream(HttpServerExchange exchange, Session session) {
        SseStream sse = SseStream.open(exchange, keepAlive);
        streams.add(sse);
        sse.closed().thenRun(() -> {
            streams.remove(sse);
            session.lastUsed().set(nanoClock.getAsLong());
        });
        if (closing) {
            sse.end();
        }
        return sse;
    }

    /** Answers {@code status} with no body once {@code work} completes, or an error if it fails. */
    private static void respondWhenDone(HttpServerExchange exchange, Mono<Void> work, McpTransportContext context,
            int status) {
        whenDispatched(exchange, () -> work.contextWrite(c -> c.put(McpTransportContext.KEY, context))
                .subscribe(null, e -> {
                    // McpError means the client's message was wrong (e.g. a response to an unknown id).
                    boolean clientError = e instanceof McpError;
                    if (!clientError) {
                        log.warn("Handling {} {} failed: {}", exchange.getRequestMethod(),
                                exchange.getRequestPath(), e.toString());
                    }
                    Responses.error(exchange, clientError ? 400 : 500,
                            clientError ? ErrorCodes.INVALID_REQUEST : ErrorCodes.INTERNAL_ERROR, rootMessage(e));
                }, () -> Responses.empty(exchange, status)));
    }

    /**
     * Runs {@code task} on this worker thread once the handler has returned, with the exchange
     * kept open: Undertow would otherwise end it when the handler returns, before async work
     * completes.
     */
    private static void whenDispatched(HttpServerExchange exchange, Runnable task) {
        exchange.dispatch(SameThreadExecutor.INSTANCE, task);
    }

    private static McpTransportContext contextOf(String identity) {
        return McpTransportContext.create(Map.of(CONTEXT_IDENTITY, identity));
    }

    private static boolean accepts(String accept, String mediaType) {
        if (accept == null) {
            return false;
        }
        String lower = accept.toLowerCase(Locale.ROOT);
        return lower.contains(mediaType) || lower.contains("*/*");
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }

    /**
     * The SDK's view of one SSE stream: JSON-RPC messages in, {@code message} events out.
     *
     * <p>A request's stream ignores the SDK's graceful close and is ended when the SDK's handling
     * of the request terminates: the SDK closes before passing on an error it did not answer
     * itself, and the stream must stay open for the error response (see failRequest).
     */
    private final class StreamTransport implements McpStreamableServerTransport {

        private final SseStream sse;
        private final boolean requestStream;

        StreamTransport(SseStream sse, boolean requestStream) {
            this.sse = sse;
            this.requestStream = requestStream;
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return sendMessage(message, null);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
            return Mono.fromCallable(() -> json.writeValueAsString(message))
                    .doOnNext(text -> {
                        if (!sse.sendEvent(messageId, text)) {
                            // content not logged: it may carry terminal output the user wants private
                            log.debug("SSE stream already closed; dropped a message");
                        }
                    })
                    .then();
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return json.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return requestStream ? Mono.empty() : Mono.fromRunnable(sse::end);
        }

        @Override
        public void close() {
            sse.end();
        }
    }
}
