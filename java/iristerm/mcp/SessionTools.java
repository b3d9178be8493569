package iristerm.mcp;

import iristerm.iris.IrisEngine;
import iristerm.process.ProcessEngine;
import iristerm.process.ProcessSpec;
import iristerm.jsonrpc.Plain;
import iristerm.session.BoundedRegex;
import iristerm.session.NamedKeys;
import iristerm.session.Delivery;
import iristerm.session.NotifyTarget;
import iristerm.session.ReadRequest;
import iristerm.session.ReadResult;
import iristerm.session.Session;
import iristerm.session.TerminalScreen;
import iristerm.session.SessionException;
import iristerm.session.SessionMeta;
import iristerm.session.Signal;
import iristerm.session.Until;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The session_* tools: one definition each, for every transport and every engine. */
final class SessionTools {
    /**
     * How long session_open waits, by default, for what a process prints at start (banner, first
     * prompt): bash or a REPL shows its prompt well within it; a program that prints nothing ends the
     * wait after half of it (see {@link Until#started}).
     */
    static final long OPEN_WAIT_MS = 3000;
    /**
     * How long session_send waits, by default, for the command it sent to be done: an agent's first
     * call means "run this and tell me what it did"; a command still running then is answered with what
     * it printed so far (state running), and session_read takes up the wait.
     */
    static final long SEND_WAIT_MS = 10_000;

    private final ServerContext ctx;
    private final IrisSessions iris;
    private final Function<Caller, NotifyTarget> notifier;

    SessionTools(ServerContext ctx, IrisSessions iris,
                 Function<Caller, NotifyTarget> notifier) {
        this.ctx = ctx;
        this.iris = iris;
        this.notifier = notifier;
    }

    List<ToolSpec> all() {
        return List.of(open(), send(), read(), signal(), resize(), close(), list());
    }

    private Session session(Caller c, Args a) {
        return ctx.sessions().get(c.identity(), a.requiredString("session"));
    }

    // ---- session_open ------------------------------------------------------------------------

    private ToolSpec open() {
        return new ToolSpec("session_open", "Open a terminal session", ToolSpec.Hints.RUNS_CODE, """
                Open a persistent interactive session. kind "process" runs a program (default: bash) in a \
                pseudo-terminal (mode "pty") or on pipes (mode "pipe"); kind "iris" starts an ObjectScript \
                terminal job in IRIS. Returns the session id used by every other session_* tool and, for a \
                process, what it printed at start (data), read for the default reader: in a pty on Linux it \
                waits up to wait_ms (default 3000) until the program waits for input (a shell's first prompt, \
                a question) or exits, so a one-shot command (bash -c "...") answers with all of its output and \
                its exit_code; a program that runs on without reading (a server) answers after wait_ms with \
                what it printed (state running). Elsewhere (pipe mode, other systems) it waits until the prompt \
                shows, the process exits, its start-up output has been quiet for 300 ms, or it printed nothing \
                for half of wait_ms. Give a longer wait_ms for a slow start (a shell with a heavy rc file). \
                An interactive bash or zsh in a pty (no script, no -c) is set up with shell integration: \
                invisible marks (OSC 133, never in data) tell when its own prompt is back and the exit status \
                of each command, so reason prompt never stems from output that only looks like a prompt; sh, \
                dash and other programs are judged by the prompt regex and the kernel. An iris session prints \
                nothing at start (data is empty). A session with no tool call and no output for %d min is closed \
                (its output says so; session_list shows ended_by idle).""".formatted(ctx.sessions().config().idleTimeout().toMinutes()), """
                {"type": "object", "properties": {
                  "kind": {"type": "string", "enum": ["process", "iris"], "default": "process"},
                  "command": {"type": "string", "description": "program to run (process), e.g. bash, python3, node"},
                  "args": {"type": "array", "items": {"type": "string"}},
                  "cwd": {"type": "string", "description": "working directory (default: the server's)"},
                  "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "added to the server's environment"},
                  "mode": {"type": "string", "enum": ["pty", "pipe"], "default": "pty"},
                  "cols": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 120},
                  "rows": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 40},
                  "name": {"type": "string", "description": "a label shown by session_list"},
                  "namespace": {"type": "string", "description": "iris: namespace to start in"},
                  "notify": {"type": "boolean", "description": "push output and exit as MCP logging notifications"},
                  "prompt": {"type": "string", "description": "regex matching the program's prompt at the end of the last line (process)"},
                  "wait_ms": {"type": "integer", "minimum": 0, "default": 3000, "description": "process: wait up to this long for the program to wait for input or exit (0: neither wait nor read; the first read gets the start-up output)"}
                }, "additionalProperties": false}""", """
                {"type": "object", "properties": {
                  "session": {"type": "string"}, "kind": {"type": "string"}, "name": {"type": "string"},
                  "pid": {"type": "integer"}, "namespace": {"type": "string"}, "mode": {"type": "string"},
                  "command": {"type": "string"},
                %s
                }, "required": ["session", "kind", "state", "data"]}""".formatted(Results.READ_PROPERTIES), (c, a) -> {
            String kind = a.string("kind", "process");
            // resolved first: a session must not be left open behind a refusal
            NotifyTarget notifyTarget = a.bool("notify", false) ? notifier.apply(c) : null;
            long wait = a.integer("wait_ms", OPEN_WAIT_MS, 0, ctx.limits().maxWaitMillis());
            Session s = switch (kind) {
                case "process" -> openProcess(c, a);
                case "iris" -> iris.open(c, a);
                default -> throw new SessionException("'kind' must be process or iris; got '" + kind + "'");
            };
            // read before notifications start, so the start-up output is answered here and not pushed as well
            ReadResult started = kind.equals("process") && wait > 0 ? s.read(new ReadRequest(ReadRequest.DEFAULT_READER, wait,
                    Until.started(wait, s.engine() != null && s.engine().knowsInput()), ctx.limits().defaultReadBytes(),
                    false, true, false, null, 0)) : null;
            if (notifyTarget != null) {
                ctx.sessions().notifyTo(s, notifyTarget);
            }
            SessionMeta m = s.meta();
            Map<String, Object> out = Results.map("session", s.id(), "kind", m.kind(), "name", m.name(),
                    "pid", s.pid() > 0 ? s.pid() : null, "namespace", m.namespace(), "mode", m.mode(),
                    "command", m.command(), "state", s.state().name(), "data", "");
            String text = "opened " + m.kind() + " session " + s.id() + " (" + m.name() + ")"
                    + (s.pid() > 0 ? " pid " + s.pid() : "");
            if (started != null) {
                out.putAll(Results.read(started));
                text += "\n" + Results.readText(started);
            }
            return new Answer(out, text);
        });
    }

    private Session openProcess(Caller c, Args a) {
        String refusal = ctx.process().refusal(c);
        if (refusal != null) {
            throw new SessionException(refusal);
        }
        String command = a.string("command", "bash");
        List<String> args = a.strings("args");
        String mode = a.string("mode", "pty");
        if (!mode.equals("pty") && !mode.equals("pipe")) {
            throw new SessionException("'mode' must be pty or pipe; got '" + mode + "'");
        }
        String promptRegex = a.string("prompt", ProcessEngine.DEFAULT_PROMPT);
        Pattern prompt;
        try {
            prompt = BoundedRegex.compile(promptRegex, 0);
        } catch (PatternSyntaxException e) {
            throw new SessionException("'prompt' is not a valid regular expression: " + e.getDescription()
                    + " near index " + e.getIndex());
        }
        String cwd = a.string("cwd", Path.of("").toAbsolutePath().toString());
        ProcessSpec spec = new ProcessSpec(command, args, cwd, environment(a), mode.equals("pty"),
                (int) a.integer("cols", 120, 1, 1000), (int) a.integer("rows", 40, 1, 1000));
        String name = a.string("name", Path.of(command).getFileName().toString());
        SessionMeta template = new SessionMeta(null, "process", name, c.identity(), command, args, cwd, null, mode,
                promptRegex, 0);
        return ctx.sessions().open(c.identity(), template, true,
                sink -> ProcessEngine.start(spec, prompt, sink, "session-" + name));
    }

    /** The caller's env, refused whole when a name or value could not be one of a process's environment. */
    private static Map<String, String> environment(Args a) {
        Map<String, String> env = a.stringMap("env");
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
                throw new SessionException("'env' names a variable '" + Plain.of(name) + "' that no environment "
                        + "can hold: a name must not be empty and must hold neither '=' nor a NUL character");
            }
            if (e.getValue().indexOf('\0') >= 0) {
                throw new SessionException("'env." + Plain.of(name) + "' holds a NUL character, which no environment "
                        + "value can; remove it");
            }
        }
        return env;
    }

    // ---- session_send ------------------------------------------------------------------------

    private ToolSpec send() {
        return new ToolSpec("session_send", "Send input to a session", ToolSpec.Hints.RUNS_CODE, """
                Send input to a session: text plus Enter (enter: false to omit it; control characters such as \
                "\\u0003" pass through). It also reads, atomically, waiting up to wait_ms (default %d; 0: \
                return at once, reading nothing), and by default (no until) returns once the command is done: \
                its prompt is back (reason prompt; for bash in a pty its own prompt, with the command's \
                exit_code), the program waits for input from the terminal (input: asked of the kernel, pty \
                sessions on Linux; a password or [y/N] question, a pager, an editor), the process exited \
                (exit), or, where neither a prompt nor the kernel tells, its output has been quiet for 300 ms \
                (quiet). A command still running when the wait ends answers with what it printed so far \
                (reason timeout, state running): read on with session_read, or give a longer wait_ms \
                (e.g. 120000 for a build). until overrides the default \
                ({"data": true}: the first new byte; pattern, quiet_ms, prompt, exit). secret: true masks the \
                text: from then on each occurrence of it (each line of it) in the session's output, the \
                terminal's echo and the program printing it back included, is replaced by * of the same length \
                in every answer, all: true, to_file, the screen, the transcript and its resource. Only the text \
                as sent is recognised: a program that transforms it (hashes, encodes, colours or wraps it, \
                prints part of it) is not masked, and a one-character secret masks that character everywhere. \
                keys presses named keys after the text (["up", "enter"], \
                ["ctrl-c"]; names: enter, tab, shift-tab, esc, backspace, space, up, down, left, right, home, end, \
                insert, delete, pageup, pagedown, f1-f12, ctrl-a..ctrl-z).""".formatted(SEND_WAIT_MS), """
                {"type": "object", "properties": {
                  "session": {"type": "string"},
                  "text": {"type": "string"},
                  "keys": {"type": "array", "items": {"type": "string"}, "description": "named keys pressed after text, in order: enter, tab, shift-tab, esc, backspace, space, up, down, left, right, home, end, insert, delete, pageup, pagedown, f1-f12, ctrl-a..ctrl-z, ctrl-@, ctrl-[, ctrl-\\\\, ctrl-]"},
                  "enter": {"type": "boolean", "default": true, "description": "press Enter after text (default true without keys, false with them)"},
                  "secret": {"type": "boolean", "default": false, "description": "mask this text wherever the session's output shows it from now on (its echo included)"},
                %s
                }, "required": ["session"], "additionalProperties": false}""".formatted(
                Results.readInputProperties(SEND_WAIT_MS, "send and return at once, reading nothing")), """
                {"type": "object", "properties": {
                  "written": {"type": "integer", "description": "bytes the program was given within the call's wait"},
                  "queued": {"type": "integer", "description": "bytes of this input still waiting for the program to read them (present only then)"},
                %s
                }, "required": ["written"]}""".formatted(Results.READ_PROPERTIES), (c, a) -> {
            Session s = session(c, a);
            List<String> keyNames = a.strings("keys");
            String typed = a.string("text");
            if (typed == null && keyNames.isEmpty()) {
                throw new SessionException("give 'text' (it may be empty to send just Enter) or 'keys'");
            }
            String keys = NamedKeys.sequence(keyNames, s.engine() != null && s.engine().echoesInput());
            String text = (typed == null ? "" : typed) + keys;
            int size = text.getBytes(StandardCharsets.UTF_8).length;
            if (size > ctx.limits().maxInputBytes()) {
                throw new SessionException("'text' is " + size + " bytes, more than the input limit of "
                        + ctx.limits().maxInputBytes() + "; send it in parts or write it to a file first");
            }
            boolean enter = a.bool("enter", keyNames.isEmpty());
            ReadRequest asked = ReadOptions.parse(a, ctx.limits(), SEND_WAIT_MS);
            ReadRequest read = asked.waitMs() > 0 ? asked : null;
            long bound = read != null ? read.waitMs() : Math.min(Session.INPUT_WAIT_MS, ctx.limits().maxWaitMillis());
            long start = System.nanoTime();
            Session.Sent sent = s.send(text, enter, a.bool("secret", false), bound);
            Delivery d = sent.delivery();
            String stuck = d.queued() == 0 ? null : "The program has not taken all of its input within "
                    + bound + " ms: " + d.written() + " of " + d.total() + " bytes were written, and the other "
                    + d.queued() + " wait in the session's input queue and go in as it reads. If it is not reading "
                    + "(busy, stopped, or waiting for something else), interrupt it (session_signal INT) or close "
                    + "the session; later input is queued behind this.";
            Map<String, Object> out = Results.map("written", d.written(), "queued", d.queued() == 0 ? null : d.queued());
            if (read == null) {
                if (stuck != null) {
                    out.put("hint", stuck);
                }
                return new Answer(out, "sent " + d.written() + " bytes" + (stuck == null ? "" : "\n" + stuck));
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            ReadResult r;
            try (CallProgress.Watch w = c.progress().watch(s)) {
                r = s.read(read.afterInput(sent.mark(), Math.max(0, read.waitMs() - waited)));
            }
            if (stuck != null) {
                r = r.withHint(stuck);
            }
            out.putAll(Results.read(r));
            return new Answer(out, Results.readText(r));
        });
    }

    // ---- session_read ------------------------------------------------------------------------

    private ToolSpec read() {
        return new ToolSpec("session_read", "Read a session's output", ToolSpec.Hints.READS, """
                Read a session's output from a named reader's cursor. Waits up to wait_ms and stops early on \
                until; the default is the same as session_send's: new output up to the prompt, an input wait, the exit, or \
                (no recognisable prompt) 300 ms of quiet after output began, so a read never ends on half a \
                line; {"data": true} returns on the first new byte. reason says why it stopped: data, pattern, \
                quiet, prompt, input, exit, timeout, or oversized. Oversized: more than max_bytes came by the time the \
                wait ended (the command is done or wait_ms is over: state says whether it still runs); data holds \
                its first and last part, left_out the offsets of what was left out between, and the reader's \
                cursor moves past all of it; read the left-out part with cursor: left_out.from plus to_file (a file) \
                or force (pages), or ask for a larger max_bytes. force and to_file deliver everything as asked, \
                never shortened. all: true reads from the start of the session; cursor: N from offset N (the reader \
                continues from there).""", """
                {"type": "object", "properties": {
                  "session": {"type": "string"},
                %s,
                  "all": {"type": "boolean", "description": "read from the beginning of the session's output"},
                  "cursor": {"type": "integer", "minimum": 0, "description": "move the reader to this log offset first, back or forward (e.g. left_out.from of an oversized answer), and read on from there"},
                  "to_file": {"type": "string", "description": "write the pending output to this file under the files root; only metadata is returned"},
                  "screen": {"type": "boolean", "description": "instead of output, the terminal's screen as a person would see it now (vi, less, top, installers): rows of text, the cursor, whether the alternate screen is on; consumes nothing and does not wait"}
                }, "required": ["session"], "additionalProperties": false}""".formatted(
                Results.readInputProperties(0, "return what is there now")), """
                {"type": "object", "properties": {
                %s,
                  "screen": {"type": "object", "properties": {
                    "rows": {"type": "array", "items": {"type": "string"}},
                    "cursor": {"type": "object", "properties": {"row": {"type": "integer"}, "col": {"type": "integer"}}},
                    "alternate": {"type": "boolean", "description": "a full-screen program's own screen is shown"}}}
                }, "required": ["data", "bytes", "cursor", "available", "reason", "state"]}""".formatted(Results.READ_PROPERTIES),
                (c, a) -> {
                    Session s = session(c, a);
                    if (a.bool("screen", false)) {
                        return screen(s, a.string("reader"));
                    }
                    ReadRequest request = ReadOptions.parse(a, ctx.limits(), 0);
                    ReadResult r;
                    try (CallProgress.Watch w = c.progress().watch(s)) {
                        r = s.read(request);
                    }
                    return new Answer(Results.read(r), Results.readText(r));
                });
    }

    /** The screen as a read's answer: nothing consumed, the reader where it was; the rows are the text. */
    private static Answer screen(Session s, String reader) {
        TerminalScreen.Snapshot shot = s.screen();
        long cursor = s.cursor(reader == null ? ReadRequest.DEFAULT_READER : reader);
        Map<String, Object> out = Results.map("data", "", "bytes", 0, "cursor", cursor,
                "available", Math.max(0, s.log().end() - cursor), "reason", "screen", "state", s.state().name(),
                "exit_code", s.exitCode(), "signal", s.exitSignal(),
                "screen", Results.map("rows", shot.rows(), "cursor", Results.map("row", shot.cursorRow(), "col", shot.cursorCol()),
                        "alternate", shot.alternate()));
        List<String> rows = new ArrayList<>(shot.rows());
        while (!rows.isEmpty() && rows.get(rows.size() - 1).isEmpty()) {
            rows.remove(rows.size() - 1);
        }
        String text = String.join("\n", rows) + "\n[screen " + shot.rows().size() + " rows, cursor " + shot.cursorRow()
                + "," + shot.cursorCol() + (shot.alternate() ? ", alternate screen" : "") + ", state=" + s.state() + "]";
        return new Answer(out, text);
    }

    // ---- session_signal / resize / close / list ----------------------------------------------

    private ToolSpec signal() {
        return new ToolSpec("session_signal", "Signal a session", ToolSpec.Hints.SIGNALS, """
                Send a signal. INT interrupts the running command (like Ctrl-C; for iris it ends the command with \
                <INTERRUPT>, which some IRIS versions name <EXTERNAL INTERRUPT>), QUIT likewise; TERM, HUP and KILL end the process group (iris: TERM and HUP end the job \
                at its prompt, KILL terminates it).""", """
                {"type": "object", "properties": {
                  "session": {"type": "string"},
                  "signal": {"type": "string", "enum": ["INT", "TERM", "KILL", "HUP", "QUIT"]}
                }, "required": ["session", "signal"], "additionalProperties": false}""", """
                {"type": "object", "properties": {"sent": {"type": "string"}}, "required": ["sent"]}""", (c, a) -> {
            Session s = session(c, a);
            Signal sig = Signal.parse(a.requiredString("signal"));
            s.signal(sig);
            return new Answer(Results.map("sent", sig.name()), "sent " + sig + " to session " + s.id());
        });
    }

    private ToolSpec resize() {
        return new ToolSpec("session_resize", "Resize a terminal", ToolSpec.Hints.SETS, "Change a pty session's terminal size.", """
                {"type": "object", "properties": {
                  "session": {"type": "string"},
                  "cols": {"type": "integer", "minimum": 1, "maximum": 1000},
                  "rows": {"type": "integer", "minimum": 1, "maximum": 1000}
                }, "required": ["session", "cols", "rows"], "additionalProperties": false}""", """
                {"type": "object", "properties": {"cols": {"type": "integer"}, "rows": {"type": "integer"}},
                 "required": ["cols", "rows"]}""", (c, a) -> {
            Session s = session(c, a);
            int cols = (int) a.integer("cols", -1, 1, 1000);
            int rows = (int) a.integer("rows", -1, 1, 1000);
            if (cols < 0 || rows < 0) {
                throw new SessionException("'cols' and 'rows' are both required");
            }
            s.resize(cols, rows);
            return new Answer(Results.map("cols", cols, "rows", rows), "resized to " + cols + "x" + rows);
        });
    }

    private ToolSpec close() {
        return new ToolSpec("session_close", "Close a session", ToolSpec.Hints.ENDS, """
                End a session: politely (HUP/TERM; iris: an interrupt, then the job's own end), then by force after grace_ms. Returns the \
                last output its default reader had not read and how it exited. Its transcript stays readable.""", """
                {"type": "object", "properties": {
                  "session": {"type": "string"},
                  "force": {"type": "boolean", "default": false},
                  "grace_ms": {"type": "integer", "minimum": 0, "maximum": 30000}
                }, "required": ["session"], "additionalProperties": false}""", """
                {"type": "object", "properties": {
                  "data": {"type": "string"}, "exit_code": {"type": "integer"}, "signal": {"type": "string"},
                  "state": {"type": "string"}
                }, "required": ["data", "state"]}""", (c, a) -> {
            Session s = session(c, a);
            long grace = a.integer("grace_ms", ctx.limits().defaultGraceMillis(), 0, 30_000);
            ReadResult r = ctx.sessions().close(s, a.bool("force", false), grace, ctx.limits().defaultReadBytes(),
                    true);
            return new Answer(Results.map("data", r.data(), "exit_code", r.exitCode(), "signal", r.signal(),
                    "state", r.state().name()), Results.readText(r));
        });
    }

    /** One session as session_list shows it. */
    static Map<String, Object> row(Session s) {
        SessionMeta m = s.meta();
        return Results.map("session", s.id(), "kind", m.kind(), "name", m.name(), "state", s.state().name(),
                "pid", s.pid() > 0 ? s.pid() : null, "namespace", m.namespace(), "command", m.command(),
                "owner", m.owner(), "created", java.time.Instant.ofEpochMilli(m.created()).toString(),
                "last_activity", java.time.Instant.ofEpochMilli(s.lastActivity()).toString(),
                "bytes", s.bytes(), "exit_code", s.exitCode(), "signal", s.exitSignal(), "ended_by", s.endedBy(),
                "instance", s.engine() instanceof IrisEngine iris && !iris.instance().isEmpty()
                        ? iris.instance() : null);
    }

    private ToolSpec list() {
        return new ToolSpec("session_list", "List sessions", ToolSpec.Hints.READS, "List your sessions (live and ended), or one of them.", """
                {"type": "object", "properties": {"session": {"type": "string"}}, "additionalProperties": false}""", """
                {"type": "object", "properties": {"sessions": {"type": "array", "items": {"type": "object", "properties": {
                  "session": {"type": "string"}, "kind": {"type": "string"}, "name": {"type": "string"},
                  "state": {"type": "string"}, "pid": {"type": "integer"}, "namespace": {"type": "string"},
                  "command": {"type": "string"}, "owner": {"type": "string"}, "created": {"type": "string"},
                  "last_activity": {"type": "string"}, "bytes": {"type": "integer"},
                  "exit_code": {"type": "integer"}, "signal": {"type": "string"},
                  "ended_by": {"type": "string", "description": "idle: the server closed it for its idle timeout"},
                  "instance": {"type": "string", "description": "iris: the IRIS instance that runs the session"}}}}},
                 "required": ["sessions"]}""", (c, a) -> {
            List<Session> found = a.has("session") ? List.of(session(c, a)) : ctx.sessions().list(c.identity());
            List<Map<String, Object>> rows = new ArrayList<>();
            StringBuilder text = new StringBuilder();
            for (Session s : found) {
                Map<String, Object> row = row(s);
                rows.add(row);
                text.append(s.id()).append("  ").append(row.get("kind")).append("  ").append(row.get("state"))
                        .append("  ").append(row.get("name")).append('\n');
            }
            return new Answer(Results.map("sessions", rows), text.isEmpty() ? "no sessions" : text.toString());
        });
    }
}
