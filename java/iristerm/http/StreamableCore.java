package iristerm.http;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
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
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.ProtocolVersions;
import iristerm.jsonrpc.Refusal;
import iristerm.jsonrpc.RequestParams;
import iristerm.jsonrpc.UnknownTool;
import iristerm.mcp.Caller;
import iristerm.modern.Era;
import iristerm.modern.ModernCapable;
import iristerm.modern.ModernLane;
import iristerm.modern.Protocol;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP transport (specification 2025-11-25) for the SDK's streamable server,
 * independent of the HTTP server that carries it: adapters hand it {@link StreamableExchange}s
 * and it answers them. It expects to sit behind authentication, whose identity owns the MCP
 * sessions it opens and reaches tool handlers as {@code exchange.transportContext().get("identity")}.
 *
 * <p>POST carries one JSON-RPC message: {@code initialize} is answered as
 * {@code application/json} with a new {@code Mcp-Session-Id}; other requests as an event stream
 * that carries the request's notifications and ends with its response; notifications and
 * responses get 202. GET opens the session's listening stream for server-initiated messages (405
 * where the exchange cannot stream); DELETE ends the session. An identity may hold a bounded
 * number of sessions; sessions nobody uses are closed after an idle timeout. At shutdown, requests
 * still running after a short grace are answered with an error rather than left unanswered.
 *
 * <p>Without {@link CallLanes}, a request is handled on the thread that calls {@link #handle}, or on
 * the thread that completes the SDK's work: with a server built for immediate execution, to its end
 * on the caller's thread, which the IRIS-hosted bridge relies on. With them (the standalone server),
 * a request that the SDK answers runs on a thread of its identity's lanes, so that no identity's
 * calls wait for another's and session_close and session_signal never wait behind other calls.
 *
 * <p>Where the exchange streams (Undertow), streams are resumable (2025-11-25, SEP-1699): every
 * event has an id naming the MCP session's log, the stream and the position on it; each stream
 * starts with a priming event (an id, empty data and a {@code retry} interval) for clients that
 * negotiated 2025-11-25 or later; a dropped connection leaves its stream running, and a GET with
 * {@code Last-Event-ID} continues that stream with the events after the id, then the rest. The
 * events are replayed from a per-session buffer of the last {@value SessionStreams#BUFFER_EVENTS}
 * events, at most {@value SessionStreams#BUFFER_BYTES} bytes; an id whose following events have
 * left it, or that this session never issued, is refused with 400 rather than resumed with a gap.
 * A tool may free its request's connection early through {@link #CONTEXT_CLOSE_SSE_STREAM}.
 *
 * <p>Beside those sessions, once given a {@link ModernLane}, the same endpoint serves MCP
 * 2026-07-28 POSTs statelessly ({@link ModernPosts}): which era a POST belongs to is decided by
 * how it opens ({@link Era}), before any session is looked up. Every error answering a POST
 * whose body could be read carries the request's id.
 */
public final class StreamableCore implements McpStreamableServerTransportProvider, ModernCapable {

    private static final Logger log = LoggerFactory.getLogger(StreamableCore.class);

    /** Key of the caller's identity in the {@link McpTransportContext} tool handlers receive. */
    public static final String CONTEXT_IDENTITY = Caller.IDENTITY_KEY;

    /**
     * Key of a {@link Runnable} in the transport context of a request on a resumable stream: it
     * closes the request's connection (after the priming event), and the client resumes with
     * {@code Last-Event-ID} (SEP-1699 polling), so a long wait holds no connection. It does nothing
     * for a client that was not primed (older than 2025-11-25), which would not know to resume; it
     * is absent where the exchange does not stream (IRIS-hosted).
     */
    public static final String CONTEXT_CLOSE_SSE_STREAM = "iristerm.closeSseStream";

    /** How long a client should wait before reconnecting a stream, as priming events tell it. */
    static final Duration RECONNECT_DELAY = Duration.ofSeconds(1);

    /** JSON-RPC error code for an unknown, expired or foreign session (the one the TypeScript SDK uses). */
    public static final int SESSION_NOT_FOUND = -32001;

    /** MCP sessions one identity may hold when the caller sets no cap. */
    public static final int DEFAULT_MAX_SESSIONS_PER_IDENTITY = 256;

    private static final String EVENT_STREAM = "text/event-stream";
    private static final String LAST_EVENT_ID = "Last-Event-ID";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /** How long shutdown lets running requests finish before answering them with an error. */
    private static final Duration REQUEST_GRACE = Duration.ofSeconds(2);
    private static final List<String> PROTOCOL_VERSIONS = List.of(ProtocolVersions.MCP_2024_11_05,
            ProtocolVersions.MCP_2025_03_26, ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);

    private final McpJsonMapper json;
    private final int maxBodyBytes;
    private final Duration sessionIdleTimeout;
    private final McpSessions sessions;
    /** the threads requests run on; null: the thread that hands them in (IRIS-hosted) */
    private final CallLanes lanes;
    private final Set<EventStream> streams = ConcurrentHashMap.newKeySet();
    private final Set<RequestStream> requests = ConcurrentHashMap.newKeySet();
    private volatile McpStreamableServerSession.Factory sessionFactory;
    private volatile ModernPosts modern;
    /** the tools the server offers (in both eras; none known: the SDK answers calls of unknown ones) */
    private volatile List<String> tools;
    private volatile boolean mirroredHeadersRequired = true;
    private volatile boolean closing;

    /** A core allowing {@link #DEFAULT_MAX_SESSIONS_PER_IDENTITY} sessions per identity. */
    public StreamableCore(McpJsonMapper json, int maxBodyBytes, Duration sessionIdleTimeout, LongSupplier nanoClock) {
        this(json, maxBodyBytes, DEFAULT_MAX_SESSIONS_PER_IDENTITY, sessionIdleTimeout, nanoClock);
    }

    /**
     * @param json                   mapper for JSON-RPC messages (passed explicitly: never ServiceLoader)
     * @param maxBodyBytes           largest POST body accepted; larger ones get 413
     * @param maxSessionsPerIdentity open MCP sessions one identity may hold; initialize beyond is refused
     * @param sessionIdleTimeout     a session no connection carries, with no request for this long, is closed
     * @param nanoClock              time source of the idle timeout
     */
    public StreamableCore(McpJsonMapper json, int maxBodyBytes, int maxSessionsPerIdentity,
            Duration sessionIdleTimeout, LongSupplier nanoClock) {
        this(json, maxBodyBytes, maxSessionsPerIdentity, sessionIdleTimeout, nanoClock, null,
                new HeldBytes(HeldBytes.defaultMax()));
    }

    /**
     * As above, running each request on its identity's {@code lanes} (which the core closes when it
     * closes), the sessions' resumable events counted against {@code held}.
     */
    StreamableCore(McpJsonMapper json, int maxBodyBytes, int maxSessionsPerIdentity,
            Duration sessionIdleTimeout, LongSupplier nanoClock, CallLanes lanes, HeldBytes held) {
        if (maxBodyBytes <= 0 || sessionIdleTimeout.isNegative() || sessionIdleTimeout.isZero()) {
            throw new IllegalArgumentException("body cap and session idle timeout must be positive");
        }
        this.json = json;
        this.maxBodyBytes = maxBodyBytes;
        this.sessionIdleTimeout = sessionIdleTimeout;
        this.lanes = lanes;
        this.sessions = new McpSessions(maxSessionsPerIdentity, sessionIdleTimeout, nanoClock, CLOSE_TIMEOUT,
                RECONNECT_DELAY, held);
    }

    @Override
    public List<String> protocolVersions() {
        return PROTOCOL_VERSIONS;
    }

    @Override
    public void serveModern(ModernLane lane) {
        this.modern = new ModernPosts(lane, json, this::track, mirroredHeadersRequired, lanes);
        this.tools = lane.tools();
    }

    /**
     * For an endpoint behind a gateway that does not pass on the {@code Mcp-Method} and
     * {@code Mcp-Name} headers of MCP 2026-07-28: their absence is then no mismatch (their presence
     * is still checked). Call before the server is built on this core.
     */
    public void mirroredHeadersMayBeMissing() {
        mirroredHeadersRequired = false;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
        this.sessionFactory = sessionFactory;
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Flux.fromIterable(sessions.all())
                .flatMap(session -> session.mcp().sendNotification(method, params).onErrorResume(e -> {
                    log.warn("Notification {} to session {} failed: {}", method, session.mcp().getId(),
                            LogText.brief(e));
                    return Mono.empty();
                }))
                .then();
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return Mono.defer(() -> {
            McpSessions.Entry session = sessions.get(sessionId);
            if (session == null) {
                log.debug("Notification {} for unknown session {} dropped", method, sessionId);
                return Mono.empty();
            }
            return session.mcp().sendNotification(method, params);
        });
    }

    /**
     * Refuses new requests, lets running ones finish for a short grace and answers the rest with a
     * "shutting down" error, ends the subscriptions of MCP 2026-07-28 with their answers, closes
     * every session (ending its streams), then waits a bounded time for all responses to finish and
     * drops those that did not.
     */
    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closing = true;
            // subscriptions never settle by themselves: their final answers go first, before any wait below
            ModernPosts subscriptionsLane = modern;
            if (subscriptionsLane != null) {
                subscriptionsLane.closing();
            }
            return Mono.fromFuture(CompletableFuture.allOf(
                            requests.stream().map(RequestStream::settled).toArray(CompletableFuture[]::new)))
                    .timeout(REQUEST_GRACE)
                    .onErrorResume(TimeoutException.class, e -> Mono.empty())
                    .then(Mono.defer(() -> {
                        requests.forEach(StreamableCore::failShuttingDown);
                        if (lanes != null) {
                            lanes.close();
                        }
                        return closeSessionsAndStreams();
                    }));
        });
    }

    private Mono<Void> closeSessionsAndStreams() {
        return Flux.fromIterable(sessions.drain())
                .flatMap(session -> session.mcp().closeGracefully().timeout(CLOSE_TIMEOUT).onErrorResume(e -> {
                    log.warn("Closing session {} failed: {}", session.mcp().getId(), LogText.brief(e));
                    return Mono.empty();
                }))
                .then(Mono.defer(() -> {
                    streams.forEach(EventStream::end);
                    return Mono.fromFuture(streamsClosed());
                }))
                .timeout(CLOSE_TIMEOUT)
                .onErrorResume(TimeoutException.class, e -> {
                    log.warn("{} event streams did not end in {}; dropping them", streams.size(), CLOSE_TIMEOUT);
                    streams.forEach(EventStream::abort);
                    return Mono.empty();
                });
    }

    /** Completes when every event stream open at the time of the call has ended. */
    CompletableFuture<Void> streamsClosed() {
        return CompletableFuture.allOf(streams.stream().map(EventStream::closed).toArray(CompletableFuture[]::new));
    }

    /** Closes sessions that no connection carries and that have seen no request for the idle timeout. */
    void sweepIdleSessions() {
        sessions.sweepIdle();
    }

    /** Answers one request, now or once the SDK has finished with it. */
    public void handle(StreamableExchange exchange) {
        String identity = exchange.identity();
        if (identity == null || identity.isBlank()) {
            log.error("Request reached the MCP transport without an identity; it must sit behind authentication");
            exchange.respond(Reply.error(500, ErrorCodes.INTERNAL_ERROR, "Server misconfigured: no identity"));
            return;
        }
        if (closing || sessionFactory == null) {
            exchange.respond(Reply.error(503, ErrorCodes.INTERNAL_ERROR,
                    closing ? "Server is shutting down" : "MCP server not ready"));
            return;
        }
        String method = exchange.method() == null ? "" : exchange.method().toUpperCase(Locale.ROOT);
        switch (method) {
            case "POST" -> post(exchange, identity);
            case "GET" -> get(exchange, identity);
            case "DELETE" -> delete(exchange, identity);
            default -> exchange.respond(Reply.error(405, ErrorCodes.INVALID_REQUEST,
                    "Method " + LogText.brief(exchange.method()) + " not allowed; use POST, GET or DELETE")
                    .with("Allow", "GET, POST, DELETE"));
        }
    }

    private void post(StreamableExchange exchange, String identity) {
        String contentType = exchange.header(Reply.CONTENT_TYPE);
        if (contentType == null || !contentType.split(";", 2)[0].strip().equalsIgnoreCase(Reply.APPLICATION_JSON)) {
            exchange.respond(Reply.error(415, ErrorCodes.INVALID_REQUEST,
                    "Content-Type must be application/json, was " + LogText.brief(contentType)));
            return;
        }
        exchange.readBody(maxBodyBytes, body -> {
            try {
                handlePost(exchange, identity, body);
            } catch (RuntimeException e) {
                // answered as JSON rather than left to the server's bare 500; a server fault, so with its trace
                log.warn("POST from '{}' failed: {}", identity, LogText.brief(e), e);
                exchange.respond(Reply.error(500, ErrorCodes.INTERNAL_ERROR, "Internal error: " + rootMessage(e)));
            }
        }, () -> exchange.respond(Reply.error(413, ErrorCodes.INVALID_REQUEST,
                "Request body exceeds the limit of " + maxBodyBytes + " bytes")));
    }

    private void handlePost(StreamableExchange exchange, String identity, byte[] body) {
        PostedMessage posted = PostedMessage.parse(body);
        if (posted.refusal() != null) {
            exchange.respond(posted.refusal());
            return;
        }
        McpSchema.JSONRPCMessage message = posted.message();
        Object id = message instanceof McpSchema.JSONRPCRequest r ? r.id() : null;
        String accept = exchange.header("Accept");
        if (!AcceptHeader.accepts(accept, Reply.APPLICATION_JSON) || !AcceptHeader.accepts(accept, EVENT_STREAM)) {
            exchange.respond(Reply.error(400, ErrorCodes.INVALID_REQUEST,
                    "Accept header must list both application/json and text/event-stream", id));
            return;
        }
        ModernPosts lane = modern;
        if (lane != null) {
            Era.Route route = Era.of(message, exchange.header(HttpHeaders.PROTOCOL_VERSION));
            if (route.modern()) {
                lane.handle(exchange, identity, message, route);
                return;
            }
        }
        if (message instanceof McpSchema.JSONRPCRequest request
                && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            initialize(exchange, identity, request);
            return;
        }
        McpSessions.Entry session = sessionOf(exchange, identity, id);
        if (session == null) {
            return;
        }
        McpTransportContext context = contextOf(identity);
        if (message instanceof McpSchema.JSONRPCRequest read) {
            RequestParams.Checked checked = RequestParams.check(read);
            if (checked.refusal() != null) {
                // the answer to this request, so 200 like any other
                exchange.respond(Reply.json(200, checked.refusal().toJson()));
                return;
            }
            McpSchema.JSONRPCRequest request = checked.request();
            List<String> known = tools;
            Refusal unknownTool = known == null ? null : UnknownTool.of(request, known);
            EventStream connection = openStream(exchange, session);
            EventSink events = connection;
            if (exchange.streams()) {
                ResumableStream resumable = session.streams().open(connection);
                events = resumable;
                context = McpTransportContext.create(Map.of(CONTEXT_IDENTITY, identity,
                        CONTEXT_CLOSE_SSE_STREAM, (Runnable) resumable::closeConnection));
            }
            RequestStream answer = new RequestStream(request, events, json);
            requests.add(answer);
            answer.events().closed().thenRun(() -> requests.remove(answer));
            if (closing) {
                // shutdown began after the check in handle(), and may have missed this request
                failShuttingDown(answer);
                return;
            }
            if (unknownTool != null) {
                // on the request's stream, as the SDK's own answer to it came (priming event first)
                answer.fail(new McpSchema.JSONRPCResponse.JSONRPCError(unknownTool.code(), unknownTool.message(), null));
                return;
            }
            McpStreamableServerSession.McpStreamableServerSessionStream stream = session.mcp()
                    .responseStream(new EventStreamTransport(json, answer));
            answer.events().closed().thenRun(stream::close);
            connection.start();
            McpTransportContext requestContext = context;
            Runnable run = () -> {
                try {
                    stream.handle(request)
                            .contextWrite(c -> c.put(McpTransportContext.KEY, requestContext))
                            .subscribe(null, e -> failRequest(answer, e), answer::end);
                } catch (OutOfMemoryError e) {
                    // Reactor passes the JVM's fatal errors on rather than to the subscriber: the answer
                    // could not be built, which the client must hear rather than wait for its timeout
                    failOutOfMemory(answer);
                }
            };
            if (lanes == null) {
                run.run();
                return;
            }
            try {
                lanes.laneFor(identity, request).execute(run);
            } catch (RejectedExecutionException e) {
                failShuttingDown(answer);
            }
        } else if (message instanceof McpSchema.JSONRPCNotification notification) {
            respondWhenDone(exchange, session.mcp().accept(notification), context, 202);
        } else if (message instanceof McpSchema.JSONRPCResponse response) {
            respondWhenDone(exchange, session.mcp().accept(response), context, 202);
        }
    }

    /** Answers a request whose answer did not fit in the memory the server had left. */
    private static void failOutOfMemory(RequestStream answer) {
        log.warn("Request {} {} ran out of memory", LogText.brief(answer.request().method()),
                LogText.brief(answer.request().id()));
        answer.fail(new McpSchema.JSONRPCResponse.JSONRPCError(ErrorCodes.INTERNAL_ERROR, "The server ran out of "
                + "memory while answering " + LogText.brief(answer.request().method()) + ". Ask for less at once (a "
                + "smaller max_bytes, or to_file for large output) or try again later.", null));
    }

    /** Answers a request the server will not complete because it is shutting down. */
    private static void failShuttingDown(RequestStream answer) {
        answer.fail(new McpSchema.JSONRPCResponse.JSONRPCError(ErrorCodes.INTERNAL_ERROR, "Server shutting down: "
                + LogText.brief(answer.request().method()) + " was not completed. Connect again once the server "
                + "is back and repeat the request.", null));
    }

    /**
     * Ends a request's stream with a JSON-RPC error when the SDK failed without answering, so the
     * client gets a precise error instead of waiting for its timeout.
     */
    private void failRequest(RequestStream answer, Throwable e) {
        if (rootCause(e) instanceof OutOfMemoryError) {
            failOutOfMemory(answer);
            return;
        }
        McpSchema.JSONRPCResponse.JSONRPCError error;
        if (e instanceof McpError mcpError && mcpError.getJsonRpcError() != null) {
            error = mcpError.getJsonRpcError();
        } else if (e instanceof IllegalArgumentException) {
            // the SDK could not read the request's params
            error = new McpSchema.JSONRPCResponse.JSONRPCError(ErrorCodes.INVALID_PARAMS, rootMessage(e));
        } else {
            McpSchema.JSONRPCRequest request = answer.request();
            log.warn("Request {} {} failed: {}", LogText.brief(request.method()), LogText.brief(request.id()),
                    LogText.brief(e));
            error = new McpSchema.JSONRPCResponse.JSONRPCError(ErrorCodes.INTERNAL_ERROR, rootMessage(e));
        }
        answer.fail(error);
    }

    private void initialize(StreamableExchange exchange, String identity, McpSchema.JSONRPCRequest posted) {
        RequestParams.Checked checked = RequestParams.check(posted);
        if (checked.refusal() != null) {
            exchange.respond(Reply.json(400, checked.refusal().toJson()));
            return;
        }
        McpSchema.JSONRPCRequest request = checked.request();
        McpSchema.InitializeRequest params = json.convertValue(request.params(),
                new TypeRef<McpSchema.InitializeRequest>() {
                });
        McpSessions.Opened opened = sessions.open(identity, () -> sessionFactory.startSession(params));
        if (opened == null) {
            exchange.respond(Reply.error(429, ErrorCodes.INVALID_REQUEST, "Too many MCP sessions: identity '"
                    + identity + "' already holds " + sessions.maxPerOwner() + ", the most allowed. End sessions "
                    + "you no longer use (HTTP DELETE with their Mcp-Session-Id header; closing an MCP client does "
                    + "that), or wait: sessions unused for " + sessionIdleTimeout.toSeconds()
                    + " s are closed.", request.id()));
            return;
        }
        McpSessions.Entry session = opened.entry();
        opened.initResult()
                .contextWrite(c -> c.put(McpTransportContext.KEY, contextOf(identity)))
                .subscribe(result -> {
                    String body;
                    try {
                        body = json.writeValueAsString(McpSchema.JSONRPCResponse.result(request.id(), result));
                    } catch (IOException e) {
                        failInitialize(exchange, session, request.id(), e);
                        return;
                    }
                    session.streams().negotiated(result.protocolVersion());
                    exchange.respond(Reply.json(200, body).with(HttpHeaders.MCP_SESSION_ID, session.mcp().getId()));
                }, e -> failInitialize(exchange, session, request.id(), e));
    }

    private void failInitialize(StreamableExchange exchange, McpSessions.Entry session, Object requestId, Throwable e) {
        log.warn("Initializing MCP session failed: {}", LogText.brief(e));
        sessions.remove(session);
        session.mcp().close();
        exchange.respond(Reply.error(500, ErrorCodes.INTERNAL_ERROR, "Failed to initialize session: " + rootMessage(e),
                requestId));
    }

    private void get(StreamableExchange exchange, String identity) {
        if (!exchange.streams()) {
            exchange.respond(Reply.error(405, ErrorCodes.INVALID_REQUEST,
                    "This endpoint offers no server-to-client stream (GET); answers and their notifications "
                            + "come with each POST").with("Allow", "POST, DELETE"));
            return;
        }
        if (!AcceptHeader.accepts(exchange.header("Accept"), EVENT_STREAM)) {
            exchange.respond(Reply.error(400, ErrorCodes.INVALID_REQUEST, "Accept header must list text/event-stream"));
            return;
        }
        McpSessions.Entry session = sessionOf(exchange, identity, null);
        if (session == null) {
            return;
        }
        String lastEventId = exchange.header(LAST_EVENT_ID);
        EventLog.Position resumeFrom = null;
        // an empty id is what an EventSource that has seen no id holds: nothing to resume
        if (lastEventId != null && !lastEventId.isBlank()) {
            EventLog.Lookup where = session.streams().locate(lastEventId);
            if (where instanceof EventLog.Refused refused) {
                exchange.respond(Reply.error(400, ErrorCodes.INVALID_REQUEST, "Cannot resume: " + refused.why()
                        + ". Open a new stream with a GET without Last-Event-ID."));
                return;
            }
            resumeFrom = (EventLog.Position) where;
        }
        EventStream connection = openStream(exchange, session);
        if (closing) {
            // shutdown began after the check in handle(), and may have missed this stream
            connection.end();
            return;
        }
        if (resumeFrom != null) {
            session.streams().resume(resumeFrom, connection);
        } else {
            ResumableStream events = session.streams().open(connection);
            McpStreamableServerSession.McpStreamableServerSessionStream listening = session.mcp()
                    .listeningStream(new EventStreamTransport(json, events));
            events.closed().thenRun(listening::close);
        }
        // only now: a client that has the headers may rely on server messages reaching it
        connection.start();
    }

    private void delete(StreamableExchange exchange, String identity) {
        McpSessions.Entry session = sessionOf(exchange, identity, null);
        if (session == null) {
            return;
        }
        sessions.remove(session);
        respondWhenDone(exchange, session.mcp().delete().timeout(CLOSE_TIMEOUT), contextOf(identity), 200);
    }

    /**
     * The session a non-initialize message names, or null after answering 400 (no id, bad
     * protocol version), 404 (unknown, expired, or opened by another identity), or 405 (a GET or
     * DELETE of MCP 2026-07-28, which has neither). {@code requestId} is echoed in the error: the
     * POSTed request's id, null for GET and DELETE.
     */
    private McpSessions.Entry sessionOf(StreamableExchange exchange, String identity, Object requestId) {
        String version = exchange.header(HttpHeaders.PROTOCOL_VERSION);
        String id = exchange.header(HttpHeaders.MCP_SESSION_ID);
        boolean noSession = id == null || id.isBlank();
        if (noSession && requestId == null && Protocol.isModern(version) && modern != null) {
            exchange.respond(Reply.error(405, ErrorCodes.INVALID_REQUEST, "Protocol " + LogText.brief(version)
                    + " has no " + exchange.method() + " on the MCP endpoint; POST subscriptions/listen for a stream "
                    + "of notifications").with("Allow", "POST"));
            return null;
        }
        if (version != null && !PROTOCOL_VERSIONS.contains(version)) {
            exchange.respond(Reply.error(400, ErrorCodes.INVALID_REQUEST, "Unsupported MCP-Protocol-Version "
                    + LogText.brief(version) + "; supported: " + PROTOCOL_VERSIONS, requestId));
            return null;
        }
        if (noSession) {
            exchange.respond(Reply.error(400, ErrorCodes.INVALID_REQUEST,
                    "Mcp-Session-Id header required; start a session with initialize", requestId));
            return null;
        }
        McpSessions.Entry session = sessions.find(id, identity);
        if (session == null) {
            exchange.respond(Reply.error(404, SESSION_NOT_FOUND, "Session not found: " + LogText.brief(id),
                    requestId));
        }
        return session;
    }

    /**
     * Opens an event stream and tracks it until it ends. Its end callbacks (here and the SDK
     * stream closes registered by callers) may run on an IO thread: they only release state and
     * fail pending server-to-client requests, none of them blocks.
     */
    private EventStream openStream(StreamableExchange exchange, McpSessions.Entry session) {
        EventStream events = exchange.openEventStream();
        track(events);
        session.streams().carriedBy(events);
        events.closed().thenRun(() -> sessions.touch(session));
        return events;
    }

    /** Keeps an event stream until it ends, so shutdown can end it. */
    private void track(EventStream events) {
        streams.add(events);
        events.closed().thenRun(() -> streams.remove(events));
    }

    /** Answers {@code status} with no body once {@code work} completes, or an error if it fails. */
    private static void respondWhenDone(StreamableExchange exchange, Mono<Void> work, McpTransportContext context,
            int status) {
        work.contextWrite(c -> c.put(McpTransportContext.KEY, context)).subscribe(null, e -> {
            // McpError means the client's message was wrong (e.g. a response to an unknown id).
            boolean clientError = e instanceof McpError;
            if (!clientError) {
                log.warn("Handling {} failed: {}", exchange.method(), LogText.brief(e));
            }
            exchange.respond(Reply.error(clientError ? 400 : 500,
                    clientError ? ErrorCodes.INVALID_REQUEST : ErrorCodes.INTERNAL_ERROR, rootMessage(e)));
        }, () -> exchange.respond(Reply.empty(status)));
    }

    private static McpTransportContext contextOf(String identity) {
        return McpTransportContext.create(Map.of(CONTEXT_IDENTITY, identity));
    }

    static String rootMessage(Throwable e) {
        Throwable root = rootCause(e);
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }

    private static Throwable rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }
}
