package iristerm.mcp;

import iristerm.json.Json;
import iristerm.iris.IrisApi;
import iristerm.iris.IrisEngine;
import iristerm.iris.IrisMethod;
import iristerm.session.AnsiCleaner;
import iristerm.session.OutputLog;
import iristerm.session.ReadReason;
import iristerm.session.ReadRequest;
import iristerm.session.Session;
import iristerm.session.SessionException;
import iristerm.session.SessionMeta;
import iristerm.session.SessionState;
import iristerm.session.Until;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static iristerm.iris.IrisFields.*;

/**
 * iris_execute and iris_sql, and the iris kind of session_open. With no IRIS configured every one
 * of them answers with how to configure it.
 */
final class IrisTools implements IrisSessions {
    private static final Logger LOG = LoggerFactory.getLogger(IrisTools.class);
    private static final String NOT_CONFIGURED = "no IRIS is configured for this server; start it with IRIS_HOSTNAME "
            + "(and IRIS_PORT, IRIS_NAMESPACE, IRIS_USERNAME, IRIS_PASSWORD) or --iris-host to use iris sessions";

    /** the name of the session iris_execute uses when none is given; how it is found again after a restart */
    static final String DEFAULT_NAME = "default";
    /** a taken-up session's earlier output is fetched in at most this many reads (256 K characters each) */
    private static final int MAX_CATCH_UP_FETCHES = 64;

    private final ServerContext ctx;
    private final IrisApi api;
    /** each identity's default iris session, used by iris_execute without a session */
    private final Map<String, String> defaults = new ConcurrentHashMap<>();
    /** per identity: its default session and the taking up of its sessions happen once, even when calls race */
    private final Map<String, Object> identityLocks = new ConcurrentHashMap<>();
    /** identities whose sessions left alive in IRIS by an earlier run of this server have been taken up */
    private final Set<String> takenUp = ConcurrentHashMap.newKeySet();

    IrisTools(ServerContext ctx, IrisApi api) {
        this.ctx = ctx;
        this.api = api;
    }

    List<ToolSpec> all() {
        return List.of(execute(), sql());
    }

    private IrisApi api() {
        if (api == null) {
            throw new SessionException(NOT_CONFIGURED);
        }
        return api;
    }

    private Object lockOf(String identity) {
        return identityLocks.computeIfAbsent(identity, k -> new Object());
    }

    // ---- sessions ----------------------------------------------------------------------------

    @Override
    public Session open(Caller c, Args a) {
        return open(c, a.string("namespace"), a.string("name"));
    }

    private Session open(Caller c, String namespace, String name) {
        IrisApi iris = api();
        String identity = c.identity();
        // before IRIS starts a job: a refusal afterwards would leave the job running there
        ctx.sessions().checkCapacity(identity);
        ObjectNode req = IrisApi.request().put(AGENT, identity);
        String client = clientName(c);
        if (client != null) {
            req.put(CLIENT, client);
        }
        if (namespace != null) {
            req.put(NAMESPACE, namespace);
        }
        if (name != null) {
            req.put(NAME, name);
        }
        req.put("idle_timeout_s", ctx.sessions().config().idleTimeout().toSeconds());
        JsonNode opened = iris.call(IrisMethod.OPEN, req);
        String ns = opened.path(NAMESPACE).asString(namespace);
        try {
            return attach(identity, opened, name != null ? name : "iris-" + ns, ns);
        } catch (RuntimeException e) {
            iris.call(IrisMethod.CLOSE, IrisApi.request().put(SESSION, opened.path(SESSION).asString()).put("force", true));
            throw e;
        }
    }

    /** The MCP client's own name (clientInfo.name of its initialize), or null when the transport has none. */
    private static String clientName(Caller c) {
        if (c.exchange() == null || c.exchange().getClientInfo() == null) {
            return null;
        }
        String name = c.exchange().getClientInfo().name();
        return name == null || name.isBlank() ? null : name;
    }

    private Session attach(String identity, JsonNode opened, String name, String namespace) {
        SessionMeta template = new SessionMeta(null, "iris", name, identity, "iris:" + opened.path(SESSION).asString(),
                List.of(), null, namespace, null, null, 0);
        // the transcript of an iris session is IRIS's own (its output globals); nothing is kept on disk here
        return ctx.sessions().open(identity, template, false, sink -> new IrisEngine(api, opened, sink));
    }

    /**
     * The tools, each first taking up the caller's sessions that an earlier run of this server left
     * alive in IRIS (IRIS owns them). Done per identity on its own first call, so that in hosted mode
     * the List runs as that IRIS user, on that user's gateway thread.
     */
    List<ToolSpec> takingUpFirst(List<ToolSpec> tools) {
        return tools.stream().map(t -> t.withHandler((c, a) -> {
            takeUp(c.identity());
            return t.handler().call(c, a);
        })).toList();
    }

    /**
     * Attaches the live sessions this identity opened through this server's IRIS user (a row's agent
     * is the identity, its owner the IRIS user Ping names) and makes the latest one named
     * {@link #DEFAULT_NAME} its default again. A failure leaves it to the next call.
     */
    private void takeUp(String identity) {
        if (api == null || takenUp.contains(identity)) {
            return;
        }
        synchronized (lockOf(identity)) {
            if (takenUp.contains(identity)) {
                return;
            }
            try {
                String irisUser = api.call(IrisMethod.PING, IrisApi.request()).path(USER).asString("");
                Set<String> attached = new HashSet<>();
                for (Session s : ctx.sessions().list(identity)) {
                    attached.add(s.meta().command());
                }
                JsonNode defaultRow = null;
                String defaultId = null;
                JsonNode listed = api.call(IrisMethod.LIST, IrisApi.request());
                // a registry shared by instances lists their sessions too; calls for them reach this one
                String here = listed.path(INSTANCE).asString("");
                for (JsonNode row : listed.path(SESSIONS)) {
                    if (!identity.equals(row.path(AGENT).asString("")) || !irisUser.equals(row.path(OWNER).asString(""))
                            || "exited".equals(row.path(STATE).asString())
                            || !here.equals(row.path(INSTANCE).asString(here))
                            || attached.contains("iris:" + row.path(SESSION).asString())) {
                        continue;
                    }
                    String name = row.path(NAME).asString("iris");
                    Session s = attach(identity, row, name, row.path(NAMESPACE).asString(""));
                    catchUp(s);
                    // created is "YYYY-MM-DD HH:MM:SS", so text order is time order
                    if (DEFAULT_NAME.equals(name) && (defaultRow == null
                            || row.path(CREATED).asString("").compareTo(defaultRow.path(CREATED).asString("")) >= 0)) {
                        defaultRow = row;
                        defaultId = s.id();
                    }
                }
                if (defaultId != null) {
                    defaults.putIfAbsent(identity, defaultId);
                }
                takenUp.add(identity);
            } catch (RuntimeException e) {
                LOG.warn("sessions of {} left in IRIS by an earlier run not taken up yet: {}", identity, e.getMessage());
            }
        }
    }

    /**
     * Fetches the output and events a taken-up session had before this run, so that the next
     * command's wait starts after them (an old end-of-command event is no prompt for it); the default
     * reader goes on from there, as the agent of the earlier run had read it ({@code all} still shows it).
     */
    private static void catchUp(Session s) {
        if (!(s.engine() instanceof IrisEngine engine)) {
            return;
        }
        for (int i = 0; i < MAX_CATCH_UP_FETCHES; i++) {
            long before = s.log().end();
            engine.pull(0);
            if (s.log().end() == before) {
                break;
            }
        }
        s.skipTo(ReadRequest.DEFAULT_READER, s.log().end());
    }

    /** One default session per identity, even when its first calls race. */
    private Session defaultSession(Caller c, String namespace) {
        synchronized (lockOf(c.identity())) {
            return defaultSessionLocked(c, namespace);
        }
    }

    private Session defaultSessionLocked(Caller c, String namespace) {
        String id = defaults.get(c.identity());
        if (id != null) {
            try {
                Session s = ctx.sessions().get(c.identity(), id);
                if (!s.isExited()) {
                    return s;
                }
            } catch (SessionException gone) {
                // fall through to a new one
            }
        }
        Session s = open(c, namespace, DEFAULT_NAME);
        defaults.put(c.identity(), s.id());
        return s;
    }

    // ---- iris_execute ------------------------------------------------------------------------

    private ToolSpec execute() {
        return new ToolSpec("iris_execute", "Run ObjectScript", ToolSpec.Hints.RUNS_CODE, """
                Run ObjectScript in your persistent IRIS terminal session (created on first use; variables, \
                locks, transactions and namespace persist between calls). Answers when the command ends (status \
                ok or error, with the error decomposed), when it stops in a READ (status reading: answer with \
                session_send), or at timeout_ms (status running: follow with session_read or interrupt with \
                session_signal INT). Several lines run as one unit.""", """
                {"type": "object", "properties": {
                  "code": {"type": "string", "description": "ObjectScript command line(s), e.g. write $zversion"},
                  "session": {"type": "string", "description": "an iris session id (default: your own default session)"},
                  "namespace": {"type": "string", "description": "switch the session to this namespace first (it stays there)"},
                  "timeout_ms": {"type": "integer", "minimum": 0, "default": 30000},
                  "max_bytes": {"type": "integer", "minimum": 1, "default": 32768},
                  "secret": {"type": "boolean", "description": "keep the code out of the audit log and transcripts"}
                }, "required": ["code"], "additionalProperties": false}""", """
                {"type": "object", "properties": {
                  "session": {"type": "string"},
                  "status": {"type": "string", "enum": ["ok", "error", "reading", "running"]},
                  "output": {"type": "string"},
                  "output_bytes": {"type": "integer", "description": "size of the whole output; more than output when truncated"},
                  "error": {"type": "object", "properties": {
                    "code": {"type": "string"}, "text": {"type": "string"}, "location": {"type": "string"},
                    "source": {"type": "string"}, "info": {"type": "string"}}},
                  "namespace": {"type": "string"},
                  "tlevel": {"type": "integer"},
                  "elapsed_ms": {"type": "integer"},
                  "hint": {"type": "string"}
                }, "required": ["session", "status", "output"]}""", this::runExecute);
    }

    private Answer runExecute(Caller c, Args a) {
        IrisApi iris = api();
        String code = a.requiredString("code");
        if (code.getBytes(StandardCharsets.UTF_8).length > ctx.limits().maxInputBytes()) {
            throw new SessionException("'code' is larger than the input limit of " + ctx.limits().maxInputBytes()
                    + " bytes; put long code in a class or routine and call it");
        }
        String namespace = a.string("namespace");
        long timeout = a.integer("timeout_ms", 30_000, 0, ctx.limits().maxWaitMillis());
        int max = (int) a.integer("max_bytes", ctx.limits().defaultReadBytes(), 1, ctx.limits().maxReadBytes());
        Session s = a.has("session") ? ctx.sessions().get(c.identity(), a.string("session"))
                : defaultSession(c, namespace);
        if (!(s.engine() instanceof IrisEngine engine)) {
            throw new SessionException("session " + s.id() + " is a " + s.meta().kind()
                    + " session; iris_execute needs an iris session (session_send writes to any session)");
        }
        if (s.isExited()) {
            throw new SessionException("iris session " + s.id() + " has exited; run iris_execute without a session "
                    + "to get a new default one, or session_open {\"kind\": \"iris\"}");
        }
        SessionState before = engine.state();
        if (before == SessionState.waiting_input) {
            throw new SessionException("iris session " + s.id() + " is waiting in a READ; answer it with session_send "
                    + "or interrupt it with session_signal INT before running more code");
        }
        if (before == SessionState.running) {
            throw new SessionException("iris session " + s.id() + " is still running a command; follow it with "
                    + "session_read until {\"prompt\": true}, or interrupt it with session_signal INT");
        }
        String unit = namespace != null && !namespace.equals(engine.namespace())
                ? "set $namespace=\"" + namespace.replace("\"", "\"\"") + "\"\n" + code : code;
        long started = System.nanoTime();
        long mark = s.log().end();
        long seq = engine.execute(unit, a.bool("secret", false));
        s.touch();
        try (CallProgress.Watch w = c.progress().watch(s)) {
            s.await(new Until(null, null, true, false), mark, timeout);
        }
        long elapsed = (System.nanoTime() - started) / 1_000_000;

        IrisEngine.Done done = engine.done(seq);
        IrisEngine.Reading reading = engine.reading();
        // without a done event the command's output is whatever followed its echoed line
        long from = afterEcho(s.log(), mark);
        long to = s.log().end();
        String status;
        Map<String, Object> error = null;
        if (done != null) {
            status = done.error() == null ? "ok" : "error";
            // offsets of a command whose output outgrew the offset map are unknown (-1)
            if (done.outStart() >= 0 && done.outEnd() >= done.outStart()) {
                from = done.outStart();
                to = done.outEnd();
            }
            elapsed = done.elapsedMs();
            if (done.error() != null) {
                IrisEngine.CommandError e = done.error();
                error = Results.map("code", e.code(), "text", e.text(), "location", e.location(),
                        "source", e.source(), "info", e.info());
            }
        } else if (reading != null && reading.seq() == seq) {
            status = "reading";
            to = reading.at();
        } else {
            status = s.isExited() ? "ok" : "running";
        }
        OutputLog.Slice slice = s.log().read(from, (int) Math.min(Math.max(0, to - from), max));
        s.skipTo(ReadRequest.DEFAULT_READER, slice.from() + slice.bytes().length);
        String output = AnsiCleaner.clean(new String(slice.bytes(), StandardCharsets.UTF_8));
        long total = Math.max(0, to - from);
        String hint = switch (status) {
            case "reading" -> "the code waits in a READ: answer with session_send {\"session\": \"" + s.id()
                    + "\", \"text\": \"…\", \"wait_ms\": 10000, \"until\": {\"prompt\": true}}";
            case "running" -> "still running: session_read {\"session\": \"" + s.id()
                    + "\", \"wait_ms\": 30000, \"until\": {\"prompt\": true}} or session_signal INT";
            default -> total > slice.bytes().length ? "output truncated to max_bytes; the rest is in the session log "
                    + "(session_read from the default reader)" : null;
        };
        if (s.isExited()) {
            hint = "the session ended (HALT or closed); the next iris_execute opens a new one";
        }
        Map<String, Object> out = Results.map("session", s.id(), "status", status, "output", output,
                "output_bytes", total, "error", error,
                "namespace", done != null ? done.namespace() : engine.namespace(),
                "tlevel", done != null ? done.tlevel() : engine.tlevel(), "elapsed_ms", elapsed, "hint", hint);
        StringBuilder text = new StringBuilder(output);
        if (error != null) {
            text.append(text.isEmpty() || output.endsWith("\n") ? "" : "\n").append(done.error().text());
        }
        text.append(text.isEmpty() || text.charAt(text.length() - 1) == '\n' ? "" : "\n")
                .append('[').append(status).append(' ').append(out.get("namespace"))
                .append(" tlevel=").append(out.get("tlevel")).append(']');
        if (hint != null) {
            text.append('\n').append(hint);
        }
        return new Answer(out, text.toString());
    }

    /** Past the prompt and echoed command the engine writes before a command's own output. */
    private static long afterEcho(OutputLog log, long mark) {
        OutputLog.Slice head = log.read(mark, 64 * 1024);
        byte[] b = head.bytes();
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '\n') {
                return head.from() + i + 1;
            }
        }
        return head.from() + b.length;
    }

    // ---- iris_sql ----------------------------------------------------------------------------

    private ToolSpec sql() {
        return new ToolSpec("iris_sql", "Run SQL in IRIS", ToolSpec.Hints.RUNS_CODE, """
                Run one SQL statement in IRIS with positional ? parameters. Returns columns (name, type), rows \
                (at most max_rows; truncated says if there were more), and SQLCODE with its message.""", """
                {"type": "object", "properties": {
                  "query": {"type": "string"},
                  "params": {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}},
                  "namespace": {"type": "string", "description": "default: the session's namespace, or the server's"},
                  "session": {"type": "string", "description": "run in this iris session's current namespace"},
                  "max_rows": {"type": "integer", "minimum": 1, "maximum": 100000, "default": 100}
                }, "required": ["query"], "additionalProperties": false}""", """
                {"type": "object", "properties": {
                  "columns": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "type": {"type": "string"}}}},
                  "rows": {"type": "array", "items": {"type": "array"}},
                  "row_count": {"type": "integer"},
                  "truncated": {"type": "boolean"},
                  "sqlcode": {"type": "integer"},
                  "message": {"type": "string"}
                }, "required": ["sqlcode"]}""", this::runSql);
    }

    private Answer runSql(Caller c, Args a) {
        IrisApi iris = api();
        ObjectNode req = IrisApi.request().put("query", a.requiredString("query"))
                .put("max_rows", a.integer("max_rows", 100, 1, 100_000));
        ArrayNode params = req.putArray("params");
        for (Object p : a.list("params")) {
            if (p == null) {
                params.addNull();
            } else if (p instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
                params.add(n.longValue());
            } else if (p instanceof Number n) {
                params.add(n.doubleValue());
            } else if (p instanceof Boolean b) {
                params.add(b);
            } else {
                params.add(String.valueOf(p));
            }
        }
        String namespace = a.string("namespace");
        if (namespace == null && a.has("session")) {
            Session s = ctx.sessions().get(c.identity(), a.string("session"));
            if (s.engine() instanceof IrisEngine e) {
                namespace = e.namespace();
            }
        }
        if (namespace != null) {
            req.put(NAMESPACE, namespace);
        }
        JsonNode r = iris.call(IrisMethod.SQL, req);
        List<Map<String, Object>> columns = new ArrayList<>();
        for (JsonNode col : r.path(COLUMNS)) {
            columns.add(Results.map("name", col.path(NAME).asString(""), "type", col.path(TYPE).asString("")));
        }
        List<Object> rows = Json.MAPPER.convertValue(r.path(ROWS), List.class);
        long sqlcode = r.path(SQLCODE).asLong(0);
        Map<String, Object> out = new LinkedHashMap<>(Results.map("columns", columns, "rows", rows,
                "row_count", r.path(ROW_COUNT).asLong(rows == null ? 0 : rows.size()),
                "truncated", r.path(TRUNCATED).asBoolean(false), "sqlcode", sqlcode,
                "message", r.path(MESSAGE).asString(null)));
        StringBuilder text = new StringBuilder();
        if (sqlcode < 0) {
            text.append("SQLCODE ").append(sqlcode).append(": ").append(out.get("message"));
            return Answer.failed(out, text.toString());
        }
        for (Map<String, Object> col : columns) {
            text.append(col.get("name")).append('\t');
        }
        text.append('\n');
        if (rows != null) {
            for (Object row : rows) {
                text.append(row).append('\n');
            }
        }
        text.append('[').append(out.get("row_count")).append(" rows")
                .append(Boolean.TRUE.equals(out.get("truncated")) ? ", truncated" : "").append(']');
        return new Answer(out, text.toString());
    }
}
