package iristerm.hosted;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.http.Reply;
import iristerm.http.StreamableCore;
import iristerm.iris.IrisApi;
import iristerm.iris.IrisCalls;
import iristerm.iris.IrisFields;
import iristerm.iris.IrisMethod;
import iristerm.json.Json;
import iristerm.mcp.Limits;
import iristerm.mcp.ServerAssembly;
import iristerm.mcp.ServerContext;
import iristerm.process.Orphans;
import iristerm.session.SessionManager;
import iristerm.ui.BufferedUi;
import iristerm.ui.UiApi;
import iristerm.ui.Viewer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The MCP server of the IRIS-hosted deployment: the one assembly, built for immediate execution on
 * the streamable core, answering Terminal.REST's requests one bridge call at a time.
 *
 * <p><b>Same thread.</b> IRIS can be called back only on the gateway thread it called in on. The
 * core hands the request to the SDK on the calling thread, and with immediate execution the SDK
 * runs the tool handler there while subscribing, so a request is finished, its answer collected,
 * when {@link StreamableCore#handle} returns; nothing here starts or waits for another thread.
 *
 * <p><b>Time.</b> The Web Gateway gives up after 60 s. Every wait a tool may ask for is capped at
 * {@link #MAX_WAIT_MS}, which bounds the work on the calling thread; an answer that would still
 * come from elsewhere is given up at {@link #CALL_BOUND} with a 504.
 */
final class HostedServer implements AutoCloseable {


    static final long MAX_WAIT_MS = 45_000;
    static final Duration CALL_BOUND = Duration.ofSeconds(50);
    /** Terminal.REST's MAXBODY: the body crosses the gateway as one ObjectScript string. */
    static final int MAX_BODY_BYTES = 3_000_000;
    /** The answer crosses back as one ObjectScript string, which holds at most 3,641,144 characters. */
    static final int MAX_ANSWER_CHARS = 3_600_000;
    /** Kept well below the answer limit: output is JSON-escaped twice (result, then answer) and sent twice (text and structured). */
    static final int MAX_READ_BYTES = 512 * 1024;
    private static final Duration MCP_SESSION_IDLE = Duration.ofMinutes(30);
    /** how long a session's processes (or an earlier bridge's leftovers) get after TERM before KILL */
    private static final long GRACE_MILLIS = 2000;
    /** Sessions of an unauthenticated caller; never used, as the core refuses requests without a user. */
    private static final String NO_IDENTITY = "(none)";

    private final HostedConfig config;
    private final SessionManager sessions;
    private final IrisCalls iris;
    private final StreamableCore core;
    private final ServerAssembly assembly;
    private final McpSyncServer mcp;
    private final IrisPrivileges privileges;
    private final BufferedUi ui;

    private HostedServer(HostedConfig config, SessionManager sessions, IrisCalls iris, StreamableCore core,
            ServerAssembly assembly, McpSyncServer mcp, IrisPrivileges privileges) {
        this.config = config;
        this.sessions = sessions;
        this.iris = iris;
        this.core = core;
        this.assembly = assembly;
        this.mcp = mcp;
        this.privileges = privileges;
        this.ui = new BufferedUi(new UiApi(assembly, sessions), sessions.changes());
    }

    /** Builds the server; IRIS is called only later, on the gateway thread of each request. */
    static HostedServer start(HostedConfig config, IrisCalls iris, IrisPrivileges privileges) {
        // first: the log file, when the JVM arguments put it in the data directory, can only open once it exists
        DataDirectory.prepare(config.dataDir(), System.getProperty("user.name"));
        // the first JVM: the log's directory exists only now
        DataDirectory.takeLog();
        // No session output and no to_file files on disk: every agent's IRIS process (its session job included)
        // runs as the OS user and group this JVM writes as, and could read another user's (hosted review H-10).
        SessionManager sessions = new SessionManager(new SessionManager.Config(config.dataDir(), 8 << 20, 64,
                Duration.ofMinutes(30), 200, GRACE_MILLIS).withoutTranscripts());
        try {
            // what sessions of a bridge that died without ending them (the JVM killed) left running
            Orphans.endAside(sessions.orphanMarkers(), GRACE_MILLIS);
            Limits limits = new Limits(32 * 1024, MAX_READ_BYTES, 1 << 20, MAX_WAIT_MS, 2000, null);
            ServerContext ctx = new ServerContext(sessions, limits, NO_IDENTITY,
                    new HostedProcessPolicy(config.processEnabled(), privileges));
            ServerAssembly assembly = new ServerAssembly(ctx, new IrisApi(iris, config.sessionNamespace()));
            StreamableCore core = new StreamableCore(Json.MCP, MAX_BODY_BYTES, MCP_SESSION_IDLE, System::nanoTime);
            // Terminal.REST passes on a fixed list of headers (its HEADERS parameter); classes installed before
            // this jar may not pass Mcp-Method and Mcp-Name yet, and their absence must not refuse every request
            core.mirroredHeadersMayBeMissing();
            McpSyncServer mcp = assembly.build(core, true);
            log().info("IRIS-hosted MCP server ready (data in {}, process engine {}, iris sessions start in {})",
                    config.dataDir(),
                    config.processEnabled() ? "enabled for holders of " + HostedProcessPolicy.RESOURCE + ":USE" : "off",
                    config.sessionNamespace() != null ? config.sessionNamespace() : "the endpoint's namespace");
            return new HostedServer(config, sessions, iris, core, assembly, mcp, privileges);
        } catch (RuntimeException e) {
            sessions.close();
            throw e;
        }
    }

    /**
     * Looked up at each use, not when the class loads: slf4j-simple opens its log file once, with its
     * first logger, and that file may live in the data directory {@link #start} first creates.
     */
    private static Logger log() {
        return LoggerFactory.getLogger(HostedServer.class);
    }

    /** One request as Terminal.REST passes it, for the IRIS user of the calling process; returns the answer JSON. Never throws. */
    String handle(String method, String headersJson, String body) {
        String irisUser = "(not yet known)";
        long deadline = System.nanoTime() + CALL_BOUND.toNanos();
        try {
            Map<String, String> headers = headers(headersJson);
            String origin = headers.get("Origin");
            if (!config.allowsOrigin(origin)) {
                return answer(Reply.error(403, ErrorCodes.INVALID_REQUEST, "Origin not allowed: " + origin
                        + ". An administrator can allow a browser origin with -D" + HostedConfig.ORIGINS_PROPERTY
                        + "=<origin>[,...] on the External Java Server."));
            }
            irisUser = callingUser();
            BufferedExchange exchange = new BufferedExchange(method, headers,
                    body == null ? null : body.getBytes(StandardCharsets.UTF_8), irisUser);
            core.handle(exchange);
            return answer(exchange.await(Duration.ofNanos(deadline - System.nanoTime())));
        } catch (BadHeaders e) {
            return answer(Reply.error(400, ErrorCodes.INVALID_REQUEST, e.getMessage()));
        } catch (UnknownCaller e) {
            return answer(e.reply);
        } catch (TimeoutException e) {
            log().warn("{} request of {} not answered within {} s", method, irisUser, CALL_BOUND.toSeconds());
            return answer(Reply.error(504, ErrorCodes.INTERNAL_ERROR, "The request was not answered within "
                    + CALL_BOUND.toSeconds() + " s; use shorter waits (wait_ms, timeout_ms) and read on with session_read."));
        } catch (RuntimeException e) {
            log().error("{} request of {} failed", method, irisUser, e);
            return answer(Reply.error(500, ErrorCodes.INTERNAL_ERROR, "IRIS Terminal: internal error in the Java bridge ("
                    + e + "). An administrator should read the External Java Server's log."));
        }
    }

    /**
     * One request to the browser view (Terminal.REST's ui/ routes) for {@code irisUser}, whom IRIS's web
     * application authenticated: holders of %Admin_Secure:USE (who could grant themselves any
     * database anyway) see and act on every session, others on their own.
     *
     * @param path  the URL below the web application, from {@code /ui} on
     * @param query the raw query string, or empty
     */
    String ui(String method, String path, String query, String headersJson) {
        String irisUser = "(not yet known)";
        try {
            Map<String, String> headers = headers(headersJson);
            irisUser = callingUser();
            Viewer viewer = new Viewer(irisUser, privileges.holds("%Admin_Secure", "USE"));
            return answer(ui.handle(viewer, method, path, query, headers.get("Origin"), headers.get("Host")));
        } catch (BadHeaders e) {
            return answer(Reply.error(400, ErrorCodes.INVALID_REQUEST, e.getMessage()));
        } catch (UnknownCaller e) {
            return answer(e.reply);
        } catch (RuntimeException e) {
            log().error("{} {} of {} failed", method, path, irisUser, e);
            return answer(Reply.error(500, ErrorCodes.INTERNAL_ERROR, "IRIS Terminal: internal error in the Java bridge ("
                    + e + "). An administrator should read the External Java Server's log."));
        }
    }

    /**
     * $USERNAME of the IRIS process this request came from, asked through its own connection on this
     * gateway thread for every request: that process is the one IRIS's web application authenticated, and the
     * connection of the next request may belong to another user, so nothing of this answer is kept. Terminal.REST
     * passes no user: nothing that can reach the bridge can name one.
     */
    private String callingUser() {
        String user;
        try {
            user = new IrisApi(iris).call(IrisMethod.PING, IrisApi.request()).path(IrisFields.USER).asString("");
        } catch (RuntimeException e) {
            log().warn("could not ask IRIS who is calling: {}", e.toString());
            throw new UnknownCaller(Reply.error(503, ErrorCodes.INTERNAL_ERROR, "IRIS Terminal: the Java bridge could not "
                    + "ask IRIS which user is calling (" + e.getMessage() + "). An administrator should read the "
                    + "External Java Server's log."));
        }
        if (user.isEmpty()) {
            throw new UnknownCaller(Reply.error(403, ErrorCodes.INVALID_REQUEST, "IRIS Terminal: the calling IRIS "
                    + "process has no user; the bridge serves only requests of users IRIS's web application authenticated."));
        }
        return user;
    }

    /** The caller could not be established: the answer says why. */
    private static final class UnknownCaller extends RuntimeException {
        final Reply reply;

        UnknownCaller(Reply reply) {
            super(null, null, false, false);
            this.reply = reply;
        }
    }

    /** The headers Terminal.REST passed, as a JSON object of strings. */
    private static Map<String, String> headers(String json) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (json == null || json.isBlank()) {
            return headers;
        }
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(json);
        } catch (RuntimeException e) {
            node = null;
        }
        if (node == null || !node.isObject()) {
            throw new BadHeaders("The request headers passed to the bridge are not a JSON object; "
                    + "the Terminal classes in IRIS do not match this jar (##class(Terminal.Installer).Status()).");
        }
        node.properties().forEach(e -> headers.put(e.getKey(), e.getValue().asString("")));
        return headers;
    }

    /** Terminal.REST passed headers that are not a JSON object: a jar and classes of different versions. */
    private static final class BadHeaders extends RuntimeException {
        BadHeaders(String message) {
            super(message);
        }
    }

    /** {@code {"status":n,"headers":{..},"body":".."}}, the form Terminal.REST writes back. */
    static String answer(Reply reply) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("status", reply.status());
        ObjectNode headers = root.putObject("headers");
        reply.headers().forEach(headers::put);
        root.put("body", reply.body() == null ? "" : reply.body());
        String text = Json.MAPPER.writeValueAsString(root);
        if (text.length() <= MAX_ANSWER_CHARS) {
            return text;
        }
        log().warn("answer of {} characters is too large for IRIS; replaced by an error", text.length());
        return answer(Reply.error(500, ErrorCodes.INTERNAL_ERROR, "The answer (" + text.length()
                + " characters) is larger than IRIS can pass on; ask for less at a time (a smaller max_bytes, "
                + "read in pages)."));
    }

    /**
     * Ends the MCP sessions and the terminal sessions' engines. OS processes end; an IRIS session's
     * job is told {@code bye} and its link closed (off a gateway thread nothing may call IRIS to
     * interrupt or terminate it): it ends at its next use of the link.
     */
    @Override
    public void close() {
        try {
            mcp.closeGracefully();
        } catch (RuntimeException e) {
            log().warn("closing the MCP server failed: {}", e.toString());
        }
        core.closeGracefully().block();
        // its progress thread would otherwise outlive every replaced server until the JVM ends
        assembly.close();
        sessions.close();
        iris.close();
    }
}
