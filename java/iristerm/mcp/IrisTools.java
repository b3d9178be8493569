package iristerm.mcp;

import iristerm.json.Json;
import iristerm.iris.IrisApi;
import iristerm.iris.IrisEngine;
import iristerm.iris.JobLink;
import iristerm.iris.LinkProtocol;
import iristerm.session.AnsiCleaner;
import iristerm.session.OutputLog;
import iristerm.session.ReadRequest;
import iristerm.session.Session;
import iristerm.session.SessionException;
import iristerm.session.SessionMeta;
import iristerm.session.Until;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * iris_execute and iris_sql, and the iris kind of session_open. An iris session is a job IRIS
 * starts for the caller that connects back over its own link ({@link JobLink}, one listener per
 * server, opened on first use). With no IRIS configured the server lists neither tool, and an iris session
 * answers how to configure IRIS.
 */
final class IrisTools implements IrisSessions, AutoCloseable {
    private static final String NOT_CONFIGURED = "no IRIS is configured for this server; start it with IRIS_HOSTNAME "
            + "(and IRIS_PORT, IRIS_NAMESPACE, IRIS_USERNAME, IRIS_PASSWORD) or --iris-host to use iris sessions";

    /** the name of the session iris_execute uses when none is given */
    static final String DEFAULT_NAME = "default";
    /** the name of the session iris_sql uses when none is given */
    static final String SQL_NAME = "sql";

    private final ServerContext ctx;
    private final IrisApi api;
    /** per identity and name: the sessions iris_execute and iris_sql use when none is given */
    private final Map<String, String> own = new ConcurrentHashMap<>();
    /** per identity: its own sessions are opened once, even when calls race */
    private final Map<String, ReentrantLock> identityLocks = new ConcurrentHashMap<>();
    private JobLink link;
    private boolean closed;

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

    /** The listener for the jobs' links, opened by the first iris session. */
    private synchronized JobLink link() {
        if (closed) {
            throw new SessionException("the server is shutting down; no new iris session can start");
        }
        if (link == null) {
            link = new JobLink(api().calls().linkAddress());
        }
        return link;
    }

    /** Stops listening for links; the sessions' own links belong to their engines. */
    @Override
    public synchronized void close() {
        closed = true;
        if (link != null) {
            link.close();
        }
    }

    /**
     * The tools, each run as a request's own work: in hosted mode IRIS may be called only from the
     * gateway thread of a request, and the iris engine asks whether it runs on one.
     */
    static List<ToolSpec> serving(List<ToolSpec> tools) {
        return tools.stream().map(t -> t.withHandler((c, a) -> IrisApi.serving(() -> t.handler().call(c, a)))).toList();
    }

    /**
     * Longest a call waits for another call of the same identity that is opening its own session: a hosted
     * request must answer inside the Web Gateway's 60 s, whatever else that identity does at the same time.
     */
    private static final long OWN_SESSION_WAIT_MS = 15_000;

    // ---- sessions ----------------------------------------------------------------------------

    @Override
    public Session open(Caller c, Args a) {
        return open(c, a.string("namespace"), a.string("name"));
    }

    private Session open(Caller c, String namespace, String name) {
        IrisApi iris = api();
        String identity = c.identity();
        // before IRIS starts a job: a refusal afterwards would start one for nothing
        ctx.sessions().checkCapacity(identity);
        // hosted: the job, and every Audit and Signal of the session, must run as the caller's own IRIS user
        String owner = iris.ownerUser(identity);
        JobLink.Job job = link().start(iris, namespace != null ? namespace : iris.sessionNamespace(), owner);
        String client = clientName(c);
        Session s;
        try {
            SessionMeta template = new SessionMeta(null, "iris", name != null ? name : "iris-" + job.namespace(),
                    identity, "iris job " + job.pid(), List.of(), null, job.namespace(), null, null, 0);
            // sink is the new session itself, whose id the audit records name
            s = ctx.sessions().open(identity, template, true, sink -> new IrisEngine(iris, job,
                    new IrisEngine.Attribution(((Session) sink).id(), identity, client), owner, sink,
                    "iris-" + ((Session) sink).id()));
        } catch (RuntimeException e) {
            job.close();
            throw e;
        }
        if (!((IrisEngine) s.engine()).awaitStarted(LinkProtocol.HELLO_MILLIS)) {
            s.terminate(true, 0);
            throw new SessionException("the iris session's job connected but showed no prompt within "
                    + LinkProtocol.HELLO_MILLIS / 1000 + " s; check that the Terminal classes in IRIS match this "
                    + "server's version");
        }
        return s;
    }

    /** The MCP client's own name (clientInfo.name of its initialize), or null when the transport has none. */
    private static String clientName(Caller c) {
        if (c.exchange() == null || c.exchange().getClientInfo() == null) {
            return null;
        }
        String name = c.exchange().getClientInfo().name();
        return name == null || name.isBlank() ? null : name;
    }

    /** The caller's own session called {@code name} (iris_execute's, iris_sql's), opened on demand once. */
    private Session ownSession(Caller c, String name, String namespace) {
        String key = c.identity() + "\u0000" + name;
        ReentrantLock lock = identityLocks.computeIfAbsent(c.identity(), k -> new ReentrantLock());
        try {
            if (!lock.tryLock(OWN_SESSION_WAIT_MS, TimeUnit.MILLISECONDS)) {
                throw new SessionException("another call of yours is still opening your iris session '" + name
                        + "' after " + OWN_SESSION_WAIT_MS / 1000 + " s; try again in a moment");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SessionException("the call was interrupted while waiting for your iris session to open");
        }
        try {
            String id = own.get(key);
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
            Session s = open(c, namespace, name);
            own.put(key, s.id());
            return s;
        } finally {
            lock.unlock();
        }
    }

    private IrisEngine irisEngine(Session s, String tool) {
        if (!(s.engine() instanceof IrisEngine engine)) {
            throw new SessionException("session " + s.id() + " is a " + s.meta().kind() + " session; " + tool
                    + " needs an iris session (session_send writes to any session)");
        }
        if (s.isExited()) {
            throw new SessionException("iris session " + s.id() + " has exited; run " + tool + " without a session "
                    + "to get a new one of your own, or session_open {\"kind\": \"iris\"}");
        }
        return engine;
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
                  "secret": {"type": "boolean", "description": "keep the code out of the output and transcript (IRIS audits it in full all the same)"}
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
        api();
        String code = a.requiredString("code");
        if (code.getBytes(StandardCharsets.UTF_8).length > ctx.limits().maxInputBytes()) {
            throw new SessionException("'code' is larger than the input limit of " + ctx.limits().maxInputBytes()
                    + " bytes; put long code in a class or routine and call it");
        }
        String namespace = a.string("namespace");
        long timeout = a.integer("timeout_ms", 30_000, 0, ctx.limits().maxWaitMillis());
        int max = (int) a.integer("max_bytes", ctx.limits().defaultReadBytes(), 1, ctx.limits().maxReadBytes());
        Session s = a.has("session") ? ctx.sessions().get(c.identity(), a.string("session"))
                : ownSession(c, DEFAULT_NAME, namespace);
        IrisEngine engine = irisEngine(s, "iris_execute");
        String unit = namespace != null && !namespace.equals(engine.namespace())
                ? "set $namespace=\"" + namespace.replace("\"", "\"\"") + "\"\n" + code : code;
        long started = System.nanoTime();
        long mark = s.log().end();
        long n;
        try {
            n = engine.execute(unit, a.bool("secret", false));
        } catch (SessionException e) {
            throw new SessionException("iris session " + s.id() + ": " + e.getMessage());
        }
        s.touch();
        try (CallProgress.Watch w = c.progress().watch(s)) {
            s.await(new Until(null, null, true, false), mark, timeout);
        }
        long elapsed = (System.nanoTime() - started) / 1_000_000;

        IrisEngine.Done done = engine.done(n);
        IrisEngine.Reading reading = engine.reading();
        long from = engine.started(n) >= 0 ? engine.started(n) : mark;
        long to = s.log().end();
        String status;
        Map<String, Object> error = null;
        if (done != null) {
            status = done.error() == null ? "ok" : "error";
            from = done.outStart() >= 0 ? done.outStart() : from;
            to = done.outEnd();
            elapsed = done.elapsedMs();
            if (done.error() != null) {
                IrisEngine.CommandError e = done.error();
                error = Results.map("code", e.code(), "text", e.text(), "location", e.location(),
                        "source", e.source(), "info", e.info());
            }
        } else if (reading != null && reading.n() == n) {
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

    // ---- iris_sql ----------------------------------------------------------------------------

    private ToolSpec sql() {
        return new ToolSpec("iris_sql", "Run SQL in IRIS", ToolSpec.Hints.RUNS_CODE, """
                Run one SQL statement in IRIS with positional ? parameters, as you, in an iris session's job \
                (default: your own sql session). Returns columns (name, type), rows (at most max_rows; truncated \
                says if there were more), and SQLCODE with its message.""", """
                {"type": "object", "properties": {
                  "query": {"type": "string"},
                  "params": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]}},
                  "namespace": {"type": "string", "description": "default: the session's current namespace"},
                  "session": {"type": "string", "description": "run in this iris session (at its prompt); default: your own sql session"},
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
        api();
        String query = a.requiredString("query");
        if (query.getBytes(StandardCharsets.UTF_8).length > ctx.limits().maxInputBytes()) {
            throw new SessionException("'query' is larger than the input limit of " + ctx.limits().maxInputBytes()
                    + " bytes; put a long statement in a stored procedure or view and call it");
        }
        long maxRows = a.integer("max_rows", 100, 1, 100_000);
        ArrayNode params = Json.MAPPER.createArrayNode();
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
        Session s = a.has("session") ? ctx.sessions().get(c.identity(), a.string("session"))
                : ownSession(c, SQL_NAME, null);
        IrisEngine engine = irisEngine(s, "iris_sql");
        CompletableFuture<JsonNode> answer;
        try {
            answer = engine.sql(query, params, a.string("namespace"), maxRows);
        } catch (SessionException e) {
            throw new SessionException("iris session " + s.id() + " cannot run the statement now: " + e.getMessage());
        }
        s.touch();
        long bound = ctx.limits().maxWaitMillis();
        JsonNode r;
        try {
            r = answer.get(bound, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SessionException("the statement did not answer within " + bound + " ms; it still runs in iris "
                    + "session " + s.id() + " (its result will not be delivered): interrupt it with session_signal "
                    + "INT, or wait for it with session_read until {\"prompt\": true}");
        } catch (ExecutionException e) {
            throw new SessionException(e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SessionException("interrupted while waiting for the statement's answer");
        }
        List<Map<String, Object>> columns = new ArrayList<>();
        for (JsonNode col : r.path("columns")) {
            columns.add(Results.map("name", col.path("name").asString(""), "type", col.path("type").asString("")));
        }
        List<Object> rows = Json.MAPPER.convertValue(r.path("rows"), List.class);
        long sqlcode = r.path("sqlcode").asLong(0);
        Map<String, Object> out = new LinkedHashMap<>(Results.map("columns", columns, "rows", rows,
                "row_count", r.path("row_count").asLong(rows == null ? 0 : rows.size()),
                "truncated", r.path("truncated").asBoolean(false), "sqlcode", sqlcode,
                "message", r.path("message").asString(null)));
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
