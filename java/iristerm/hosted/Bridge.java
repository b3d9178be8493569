package iristerm.hosted;

import java.util.function.Function;

import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.doctor.Doctor;
import iristerm.http.Reply;
import iristerm.iris.IrisApi;
import iristerm.iris.IrisCalls;
import iristerm.iris.IrisMethod;
import iristerm.iris.ReentrantIrisCalls;
import iristerm.mcp.Version;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * What Terminal.Gateway invokes through the External Java Server: only strings cross.
 *
 * <p>The MCP server is a JVM singleton, built lazily by the first request: every
 * {@code $system.external.getJavaGateway()} is a new connection (and a new gateway thread), so
 * nothing may live in a connection, and requests from many CSP processes arrive concurrently.
 */
public final class Bridge {

    static {
        // first of all in this JVM, before any logger would open the log file by name
        DataDirectory.takeLog();
        // and before anything of a user's reaches it
        ClosedMemory.close();
    }

    private static final Object LOCK = new Object();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static volatile HostedServer server;
    private static boolean shutdownHook;

    private Bridge() {
    }

    /**
     * One HTTP request to the MCP endpoint, on the gateway thread IRIS called in on (tools call
     * back into IRIS on it).
     *
     * @param method      POST, GET or DELETE
     * @param headersJson the MCP request headers as a JSON object, e.g. {@code {"Mcp-Session-Id":"…"}}
     * @param body        the request body (POST), or null
     * @return {@code {"status":n,"headers":{"Content-Type":"…",…},"body":"…"}}; the request is for the IRIS
     *         user of the calling process ($USERNAME, asked of IRIS), who owns the sessions it opens
     */
    public static String handle(String method, String headersJson, String body) {
        return withServer(server -> server.handle(method, headersJson, body));
    }

    /** The request answered by the server, or, when the server does not start, a 503 saying so. */
    private static String withServer(Function<HostedServer, String> request) {
        HostedServer current;
        try {
            current = server();
        } catch (RuntimeException e) {
            // looked up only now, never at class load: the log file may be in the data directory the server creates
            LoggerFactory.getLogger(Bridge.class).error("the IRIS-hosted MCP server did not start", e);
            return HostedServer.answer(Reply.error(503, ErrorCodes.INTERNAL_ERROR,
                    "IRIS Terminal: the MCP server in the Java bridge did not start (" + e.getMessage()
                            + "). An administrator should read the External Java Server's log; the next request "
                            + "tries again."));
        }
        return request.apply(current);
    }

    /**
     * One request to the browser view (Terminal.REST's ui/ routes), answered whole like {@link #handle}: the
     * page, its files, and its API, which follows output with bounded long-poll requests.
     *
     * @param method      GET or POST
     * @param path        the URL below the web application, from {@code /ui} on
     * @param query       the raw query string, or empty
     * @param headersJson {@code {"Origin":"…","Host":"…"}} as the request had them
     * @return {@code {"status":n,"headers":{…},"body":"…"}}, for the IRIS user of the calling process
     */
    public static String ui(String method, String path, String query, String headersJson) {
        return withServer(server -> server.ui(method, path, query, headersJson));
    }

    /**
     * The doctor's checks over the reentrant connection, on the gateway thread IRIS called in on (as
     * {@link #handle} runs its tools), for Terminal.Gateway.Doctor().
     *
     * @return {@code {"ok":bool,"checks":[{"check","ok","seen","fix"}]}}
     */
    public static String doctor() {
        return Doctor.run(new Doctor.Setting(ReentrantIrisCalls::new, "do ##class(Terminal.Installer).Install()")).json();
    }

    /**
     * For Terminal.Installer.Check(): which jar this is, the Terminal classes version it was built for,
     * and one call back into IRIS (Terminal.Session.Ping) through the reentrant connection of the gateway
     * thread IRIS called in on, answered with what IRIS saw there.
     *
     * @return {@code {"jar","classes","thread","ping":{"user","namespace","version",…}}}, with
     *         {@code "error"} (the reason) instead of {@code "ping"} when the call back failed
     */
    public static String probe() {
        return probe(new ReentrantIrisCalls());
    }

    /** {@link #probe()} through {@code iris}: the tests' fake gateway, or the real reentrant connection. */
    static String probe(IrisCalls iris) {
        ObjectNode answer = JSON.createObjectNode()
                .put("jar", Version.current())
                .put("classes", Doctor.CLASSES_VERSION)
                .put("thread", Thread.currentThread().getName());
        try {
            answer.set("ping", new IrisApi(iris).call(IrisMethod.PING, IrisApi.request()));
        } catch (RuntimeException e) {
            // the reason is the answer: Check prints it as what it saw
            answer.put("error", e.getMessage() == null ? "the call failed without a message" : e.getMessage());
        }
        return JSON.writeValueAsString(answer);
    }

    /** The jar's version, for Terminal.Installer.Status(). */
    public static String version() {
        return Version.current();
    }

    /** The singleton, built on first use; a failed build is not kept, so the next request tries again. */
    private static HostedServer server() {
        HostedServer current = server;
        if (current != null) {
            return current;
        }
        synchronized (LOCK) {
            if (server == null) {
                refuseRoot(System.getProperty("user.name"));
                server = HostedServer.start(HostedConfig.fromSystem(), new ReentrantIrisCalls(),
                        new GatewayPrivileges());
                closeAtShutdown();
            }
            return server;
        }
    }

    /**
     * A JVM that runs as root serves no request. IRIS starts the server as the OS user of the process that first
     * connects, so one started from a root terminal (an administrator's Check, say) is root's, and a server would
     * handle the data directory, which every agent's process may write, with root's rights (hosted review round
     * 4, R4-3). Requests are served again by the JVM IRIS starts for them once that one stops (Check stops the JVM
     * it started before its MCP line).
     */
    static void refuseRoot(String jvmUser) {
        if ("root".equals(jvmUser)) {
            throw new IllegalStateException("this External Java Server runs as root (started from a root terminal): "
                    + "it serves no agent. Stop it (do ##class(Terminal.Gateway).Stop()); IRIS starts the next one, as "
                    + "the instance's own user, for the next request");
        }
    }

    /**
     * Serves every following request with {@code replacement} (null: build the real one on next
     * use), closing the server before it. The tests' way to run the bridge against a fake IRIS.
     */
    static void serveWith(HostedServer replacement) {
        HostedServer previous;
        synchronized (LOCK) {
            previous = server;
            server = replacement;
            if (replacement != null) {
                closeAtShutdown();
            }
        }
        if (previous != null) {
            previous.close();
        }
    }

    /** OS processes would outlive the JVM otherwise. Caller holds LOCK. */
    private static void closeAtShutdown() {
        if (!shutdownHook) {
            shutdownHook = true;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                HostedServer last = server;
                if (last != null) {
                    last.close();
                }
            }, "iris-terminal-hosted-shutdown"));
        }
    }
}
