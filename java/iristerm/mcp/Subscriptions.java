package iristerm.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.json.Json;
import iristerm.modern.ModernLane.Outbox;
import iristerm.modern.Protocol;
import iristerm.session.Session;
import iristerm.session.SessionChanges;
import iristerm.session.SessionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * {@code subscriptions/listen} (MCP 2026-07-28): a client names transcript resources of its own
 * sessions and is told, with {@code notifications/resources/updated}, when one of them gets output
 * or its session exits; it then reads what it wants with session_read or the resource. The
 * spec-shaped successor of session_open's {@code notify}, and one stream can watch many sessions.
 *
 * <p>One thread watches for all subscriptions: it waits on the sessions' change counter and then
 * compares each watched session with what its subscriber was last told, so a burst of output is
 * one notification per pass, never a queue. The thread starts with the first subscription and ends
 * with {@link #close}, which also answers every open subscription (its graceful end).
 */
final class Subscriptions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Subscriptions.class);
    /** how long the watcher waits for a change before looking at its subscriptions again */
    private static final long WAIT_MILLIS = 1000;
    /** open subscriptions one identity may hold (one stream can watch all of its sessions) */
    static final int MAX_PER_IDENTITY = 32;
    /**
     * open subscriptions of all identities together: each holds an open connection (HTTP) and its
     * place in every pass of the watcher, and identities are as many as the tokens file names
     */
    static final int MAX_OPEN = 256;

    private final SessionChanges changes;
    /** the caller's session a transcript URI names; throws when it is not the caller's or not there */
    private final BiFunction<String, String, Session> transcripts;
    private final Set<Listen> open = ConcurrentHashMap.newKeySet();
    private final int maxPerIdentity;
    private final int maxOpen;
    private Thread watcher;
    private volatile boolean closed;

    Subscriptions(SessionManager sessions, BiFunction<String, String, Session> transcripts) {
        this(sessions, transcripts, MAX_PER_IDENTITY, MAX_OPEN);
    }

    Subscriptions(SessionManager sessions, BiFunction<String, String, Session> transcripts, int maxPerIdentity,
            int maxOpen) {
        this.changes = sessions.changes();
        this.transcripts = transcripts;
        this.maxPerIdentity = maxPerIdentity;
        this.maxOpen = maxOpen;
    }

    /** Opens a subscription: acknowledges the filter it honours, then sends until cancelled or closed. */
    void listen(String identity, McpSchema.JSONRPCRequest request, Outbox out) {
        JsonNode params = request.params() instanceof JsonNode n ? n : Json.MAPPER.valueToTree(request.params());
        JsonNode filter = params == null ? null : params.get("notifications");
        JsonNode uris = filter == null ? null : filter.get("resourceSubscriptions");
        if (filter == null || !filter.isObject() || (uris != null && !uris.isArray())) {
            out.send(McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                    ErrorCodes.INVALID_PARAMS, "subscriptions/listen needs params.notifications, an object; this server "
                    + "honours {\"resourceSubscriptions\": [\"" + ServerAssembly.TRANSCRIPT_TEMPLATE + "\", …]}", null)));
            return;
        }
        Listen listen = new Listen(identity, request.id(), out);
        List<String> honoured = new ArrayList<>();
        for (JsonNode uri : uris == null ? List.<JsonNode>of() : uris) {
            if (!uri.isString() || honoured.contains(uri.asString())) {
                continue;
            }
            try {
                listen.watch(uri.asString(), transcripts.apply(identity, uri.asString()));
                honoured.add(uri.asString());
            } catch (RuntimeException e) {
                // not a transcript of the caller's: left out of the acknowledgement, as the protocol says
                LOG.debug("subscription {} leaves out {}: {}", request.id(), uri.asString(), e.getMessage());
            }
        }
        // lists never change on this server: those filters are not honoured, so not acknowledged
        Map<String, Object> ack = new LinkedHashMap<>();
        ack.put("_meta", listen.meta());
        ack.put("notifications", Map.of("resourceSubscriptions", honoured));
        // Registered before it is acknowledged, and holding its own lock until then: a close that
        // follows the acknowledgement (a shutdown the client starts on seeing it) always finds it open and
        // answers it after the acknowledgement, before the streams are ended; the watcher's first update
        // waits for the acknowledgement too. The caps are checked where the listen is added, so that
        // listens arriving together cannot all pass them.
        synchronized (listen) {
            String full;
            synchronized (this) {
                if (closed) {
                    listen.end();
                    return;
                }
                full = full(identity);
                if (full == null) {
                    open.add(listen);
                    if (watcher == null) {
                        watcher = new Thread(this::watch, "subscriptions");
                        watcher.setDaemon(true);
                        watcher.start();
                    }
                }
            }
            if (full != null) {
                out.send(McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                        ErrorCodes.INVALID_REQUEST, full, null)));
                return;
            }
            if (!out.send(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                    Protocol.NOTIFICATION_ACKNOWLEDGED, ack))) {
                open.remove(listen);
                return;
            }
        }
        out.cancelled().thenRun(() -> open.remove(listen));
    }

    /** Must hold this object's lock. Why one more subscription of {@code identity} is refused, or null. */
    private String full(String identity) {
        if (open.stream().filter(l -> l.identity.equals(identity)).count() >= maxPerIdentity) {
            return "too many subscriptions: " + maxPerIdentity + " are open for you already; one subscription can "
                    + "watch all of your sessions, and closing its stream ends it";
        }
        if (open.size() >= maxOpen) {
            return "too many subscriptions on this server: " + maxOpen + " are open (all clients together), the most "
                    + "it keeps; retry once some have ended, and watch all of your sessions with one subscription";
        }
        return null;
    }

    private void watch() {
        long seen = changes.version();
        try {
            while (!closed) {
                seen = changes.awaitChange(seen, WAIT_MILLIS);
                for (Listen l : open) {
                    if (!l.tell()) {
                        open.remove(l);
                    }
                }
            }
        } catch (InterruptedException e) {
            // close(): the subscriptions are answered there
        }
    }

    /** Ends every subscription with its final answer and stops the watcher; later listens end at once. Idempotent. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = watcher;
        }
        if (t != null) {
            t.interrupt();
        }
        for (Listen l : open) {
            l.end();
        }
        open.clear();
    }

    /** One subscription: the sessions it watches and what it last told about each. */
    private static final class Listen {
        private final String identity;
        private final Object id;
        private final Outbox out;
        private final List<Watched> watched = new ArrayList<>();

        Listen(String identity, Object id, Outbox out) {
            this.identity = identity;
            this.id = id;
            this.out = out;
        }

        Map<String, Object> meta() {
            return Map.of(Protocol.META_SUBSCRIPTION, id);
        }

        void watch(String uri, Session s) {
            watched.add(new Watched(uri, s, s.bytes(), s.isExited()));
        }

        /** Tells of every watched session that wrote or exited since; false once the client is gone. */
        synchronized boolean tell() {
            for (int i = 0; i < watched.size(); i++) {
                Watched w = watched.get(i);
                long bytes = w.session().bytes();
                boolean exited = w.session().isExited();
                if (bytes == w.bytes() && exited == w.exited()) {
                    continue;
                }
                watched.set(i, new Watched(w.uri(), w.session(), bytes, exited));
                Map<String, Object> params = new LinkedHashMap<>();
                params.put("_meta", meta());
                params.put("uri", w.uri());
                if (!out.send(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                        McpSchema.METHOD_NOTIFICATION_RESOURCES_UPDATED, params))) {
                    return false;
                }
            }
            return true;
        }

        /** The graceful end: the answer to the listen request. */
        synchronized void end() {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("resultType", "complete");
            result.put("_meta", meta());
            out.send(McpSchema.JSONRPCResponse.result(id, result));
        }
    }

    private record Watched(String uri, Session session, long bytes, boolean exited) {
    }
}
