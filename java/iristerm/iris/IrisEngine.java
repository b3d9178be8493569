package iristerm.iris;

import iristerm.session.Engine;
import iristerm.session.EngineSink;
import iristerm.session.MarkFilter;
import iristerm.session.SessionException;
import iristerm.session.SessionState;
import iristerm.session.Signal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static iristerm.iris.LinkProtocol.*;

/**
 * A session whose terminal is an IRIS job (Terminal.Engine) on its own link: a push engine like the
 * process engine. The reader thread takes the marks out of the job's output, pushes the rest into
 * the session, and follows the job's state from the marks; a writer thread sends the job its lines,
 * so that no caller ever blocks on the socket. Input an agent types ahead waits here until the job
 * can take it (a command at a prompt, an answer while its READ waits) and is audited in IRIS, on the
 * caller's thread, before it is queued (docs/iris-contract.md).
 */
public final class IrisEngine implements Engine {
    private static final Logger LOG = LoggerFactory.getLogger(IrisEngine.class);
    private static final JsonMapper JSON = LinkProtocol.JSON;
    /**
     * a mark longer than this means a broken link: the longest the job writes is one IRIS string (at most
     * 3,641,144 characters; an SQL answer stops before 3,000,000), each character up to 3 bytes of UTF-8
     */
    static final int MAX_MARK_BYTES = 12 << 20;
    /**
     * the longest line Java sends the job (as JSON, escapes included): the job reads a line into one IRIS
     * string, which holds at most 3,641,144 characters, and a longer one would be lost there after its audit
     */
    static final int MAX_LINE_CHARS = 3_600_000;
    private static final int KEPT = 256;
    /** the audit record's limit for each claim (session, agent, client, namespace) */
    static final int MAX_CLAIM = 200;
    private static final long JOIN_MILLIS = 2000;
    /**
     * Longest an INT waits for the start of the command the job was last given: before its {@code start} the
     * job drops every interrupt (it takes them for the previous command's), so sending one then would be lost
     */
    static final long START_WAIT_MILLIS = 3000;

    private final IrisApi api;
    private final JobLink.Job job;
    private final EngineSink sink;
    private final Attribution by;
    /** the IRIS user the Audit and Signal calls must run as, or null (standalone: not compared) */
    private final String owner;
    private final Thread reader;
    private final Thread writer;
    private final LinkedBlockingQueue<byte[]> outbox = new LinkedBlockingQueue<>();
    private final Object lock = new Object();

    // guarded by lock
    private SessionState state = SessionState.starting;
    private String namespace;
    private int tlevel;
    /** bytes of output pushed into the session so far: the log offset of the next byte */
    private long byteEnd;
    private long promptAt = -1;
    /** where the output stood when the job was last given a command, statement or answer */
    private long inputAt = -1;
    /** a prompt or READ has come since the job was last given one */
    private boolean promptSinceInput;
    private long lastN;
    /** the READ an answer has been sent to (only one line in the job's hands at a time) */
    private long answered = -1;
    private Reading reading;
    private final ArrayDeque<Item> typeAhead = new ArrayDeque<>();
    private final Map<Long, Long> starts = lru();
    private final Map<Long, Done> done = lru();
    private final Map<Long, CompletableFuture<JsonNode>> statements = new HashMap<>();
    /** a statement's result, delivered at the prompt that follows it: its caller may then run the next one */
    private Runnable deliverAtPrompt;
    private boolean ended;
    /** the log has said that IRIS keeps no audit record of this session's input */
    private final AtomicBoolean unauditedSaid = new AtomicBoolean();

    /** Who the input is recorded for in IRIS's audit: the session, the agent (identity), the MCP client. */
    public record Attribution(String session, String agent, String client) {
    }

    /** A finished command: its own output is log bytes [outStart, outEnd) (outStart -1 if its start was not seen). */
    public record Done(long n, long outStart, long outEnd, String namespace, int tlevel, long elapsedMs,
                       CommandError error) {
    }

    /** What $ZERROR said, decomposed by the job. */
    public record CommandError(String code, String text, String location, String source, String info) {
    }

    /**
     * Command {@code n} waits in its READ {@code r}, which began at log byte {@code at}; {@code instant}: its
     * timeout is 0, so it ends at once, whatever is typed.
     */
    public record Reading(long n, long r, long at, boolean instant) {
        /** Whether typed-ahead input may answer it: a READ with timeout 0 is over before an answer could reach it. */
        boolean answerable(long answered) {
            return answered != r && !instant;
        }
    }

    /** One line of type-ahead; {@code answerTo} &gt; 0: audited as the answer to that READ, and only that. */
    private record Item(String text, boolean secret, long answerTo) {
    }

    /**
     * @param owner the IRIS user the Audit and Signal calls must run as ({@link IrisApi#ownerUser}), or null:
     *              not compared
     */
    public IrisEngine(IrisApi api, JobLink.Job job, Attribution by, String owner, EngineSink sink, String name) {
        this.api = api;
        this.job = job;
        this.by = by;
        this.owner = owner;
        this.sink = sink;
        this.namespace = job.namespace();
        OutputStream out;
        try {
            out = job.socket().getOutputStream();
        } catch (IOException e) {
            throw new SessionException("the session job's link broke as it opened (" + e.getMessage() + ")");
        }
        this.writer = new Thread(() -> write(out), name + "-link-out");
        writer.setDaemon(true);
        this.reader = new Thread(this::read, name + "-link-in");
        reader.setDaemon(true);
        writer.start();
        reader.start();
    }

    private static <V> Map<Long, V> lru() {
        return new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, V> eldest) {
                return size() > KEPT;
            }
        };
    }

    public String namespace() {
        synchronized (lock) {
            return namespace;
        }
    }

    /** Hosted (an owner to compare): Terminal.Session.Signal acts on the caller's own jobs only. */
    @Override
    public boolean ownerOnlySignals() {
        return owner != null;
    }

    public int tlevel() {
        synchronized (lock) {
            return tlevel;
        }
    }

    /** The IRIS instance ($SYSTEM) that runs the job, as its hello said. */
    public String instance() {
        return job.hello().instance();
    }

    public SessionState state() {
        synchronized (lock) {
            return state;
        }
    }

    public Reading reading() {
        synchronized (lock) {
            return reading;
        }
    }

    public Done done(long n) {
        synchronized (lock) {
            return done.get(n);
        }
    }

    /** Where the output of command {@code n} began, or -1 while it has not started. */
    public long started(long n) {
        synchronized (lock) {
            return starts.getOrDefault(n, -1L);
        }
    }

    @Override
    public long pid() {
        return job.pid();
    }

    /** Waits, at most {@code millis}, for the job's first prompt; whether it came. */
    public boolean awaitStarted(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (lock) {
            while (state == SessionState.starting) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                try {
                    lock.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return state != SessionState.exited;
        }
    }

    // ---- input ---------------------------------------------------------------------------------

    /**
     * Runs {@code code} as one command at the prompt (audited whole first; {@code secret} keeps it out
     * of the output only) and returns its number.
     */
    public long execute(String code, boolean secret) {
        requireAtPrompt();
        requireFits("the command", commandLine(Long.MAX_VALUE, code, secret));
        audit("command", code, false, namespace());
        synchronized (lock) {
            requireAtPromptLocked();
            long n = ++lastN;
            give(commandLine(n, code, secret));
            state = SessionState.running;
            return n;
        }
    }

    /** Runs one SQL statement in the job at its prompt (audited first); its result completes the future. */
    public CompletableFuture<JsonNode> sql(String query, JsonNode params, String inNamespace, long maxRows) {
        requireAtPrompt();
        requireFits("the statement with its parameters", queryLine(Long.MAX_VALUE, query, params, inNamespace, maxRows));
        // the statement followed by its parameters as JSON, as the contract's Audit records it
        audit("sql", query + "\n" + JSON.writeValueAsString(params), false,
                inNamespace != null ? inNamespace : namespace());
        synchronized (lock) {
            requireAtPromptLocked();
            long n = ++lastN;
            CompletableFuture<JsonNode> result = new CompletableFuture<>();
            statements.put(n, result);
            give(queryLine(n, query, params, inNamespace, maxRows));
            state = SessionState.running;
            return result;
        }
    }

    private static ObjectNode commandLine(long n, String code, boolean secret) {
        return JSON.createObjectNode().put("t", EXECUTE).put("n", n).put("code", code).put("echo", !secret);
    }

    private static ObjectNode answerLine(long r, String text, boolean secret) {
        return JSON.createObjectNode().put("t", ANSWER).put("r", r).put("text", text).put("echo", !secret);
    }

    private static ObjectNode queryLine(long n, String query, JsonNode params, String inNamespace, long maxRows) {
        ObjectNode q = JSON.createObjectNode().put("t", QUERY).put("n", n).put("query", query);
        q.set("params", params);
        if (inNamespace != null) {
            q.put("namespace", inNamespace);
        }
        return q.put("max_rows", maxRows);
    }

    /** Refuses, before anything is audited, input whose link line the job could not read into one string. */
    private static void requireFits(String what, ObjectNode line) {
        int chars = JSON.writeValueAsString(line).length();
        if (chars > MAX_LINE_CHARS) {
            throw new SessionException(what + " would reach the IRIS job as a line of " + chars + " characters "
                    + "(JSON, escapes included), more than the " + MAX_LINE_CHARS + " one IRIS string can hold; "
                    + "nothing was audited or sent: split it into smaller pieces");
        }
    }

    private void requireAtPrompt() {
        synchronized (lock) {
            requireAtPromptLocked();
        }
    }

    private void requireAtPromptLocked() {
        switch (state) {
            case idle -> {
                if (!typeAhead.isEmpty()) {
                    throw new SessionException("the iris session has typed-ahead input waiting; read on with "
                            + "session_read until {\"prompt\": true} first");
                }
            }
            case waiting_input -> throw new SessionException("the iris session is waiting in a READ; answer it with "
                    + "session_send or interrupt it with session_signal INT first");
            case running -> throw new SessionException("the iris session is still running a command; follow it "
                    + "with session_read until {\"prompt\": true}, or interrupt it with session_signal INT");
            case starting -> throw new SessionException("the iris session has not shown its first prompt yet; "
                    + "read on with session_read until {\"prompt\": true}");
            default -> throw new SessionException("the iris session has ended; open a new one");
        }
    }

    /**
     * Each line of {@code text} is one item of type-ahead (an iris session takes whole lines, so
     * {@code enter} changes nothing). A line sent while a READ waits answers it (and may be secret);
     * every other line is a command, audited whole whatever {@code secret} says.
     */
    @Override
    public void write(String text, boolean enter, boolean secret) {
        String[] lines = text.split("\r\n|\r|\n", -1);
        int count = lines.length > 1 && lines[lines.length - 1].isEmpty() ? lines.length - 1 : lines.length;
        long answerTo;
        synchronized (lock) {
            answerTo = reading != null && reading.answerable(answered) && typeAhead.isEmpty() ? reading.r() : 0;
        }
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // a line may go as a command or as an answer, whose lines are as long
            requireFits(count == 1 ? "the line" : "line " + (i + 1), commandLine(Long.MAX_VALUE, lines[i], secret));
        }
        for (int i = 0; i < count; i++) {
            boolean answer = i == 0 && answerTo > 0;
            audit(answer ? "answer" : "command", lines[i], answer && secret, namespace());
            items.add(new Item(lines[i], secret, answer ? answerTo : 0));
        }
        synchronized (lock) {
            if (ended) {
                throw new SessionException("the iris session has ended; its input was not delivered");
            }
            typeAhead.addAll(items);
            dispatch();
        }
    }

    /** Lock held. Hands the job the next item if it can take one now: one line in its hands at a time. */
    private void dispatch() {
        while (!typeAhead.isEmpty()) {
            Item head = typeAhead.peekFirst();
            boolean readWaits = reading != null && reading.answerable(answered);
            if (head.answerTo() > 0 && !(readWaits && reading.r() == head.answerTo())) {
                // audited as the answer to a READ that no longer waits: it must not run as anything else
                typeAhead.pollFirst();
                continue;
            }
            if (readWaits) {
                typeAhead.pollFirst();
                answered = reading.r();
                give(answerLine(reading.r(), head.text(), head.secret()));
                state = SessionState.running;
            } else if (state == SessionState.idle) {
                typeAhead.pollFirst();
                give(commandLine(++lastN, head.text(), head.secret()));
                state = SessionState.running;
            }
            return;
        }
    }

    private void audit(String kind, String text, boolean secret, String inNamespace) {
        ObjectNode req = IrisApi.request().put("session", claim(by.session())).put("kind", kind)
                .put("agent", claim(by.agent()));
        if (by.client() != null) {
            req.put("client", claim(by.client()));
        }
        req.put("namespace", claim(inNamespace)).put("text", text).put("secret", secret);
        JsonNode answer = api.call(IrisMethod.AUDIT, req);
        String user = userOf(answer);
        if (IrisApi.otherUser(owner, user)) {
            throw new SessionException("IRIS audited this input as user " + user + ", not as " + owner + " who owns "
                    + "this session, so it was not delivered. Report this to the administrator: each call into IRIS "
                    + "must run as its own caller [AUDIT_FAILED]");
        }
        // delivered all the same (the administrator's choice, which Check reports); said once, where they look
        if (answer.path(IrisFields.AUDITED).asInt(1) == 0 && unauditedSaid.compareAndSet(false, true)) {
            LOG.warn("IRIS kept no audit record of input to session {} (user {}): the instance does not audit, or "
                    + "the event IRISTerminal/Session/Command is disabled; its inputs are delivered unaudited",
                    by.session(), owner == null ? user : owner);
        }
    }

    /** The IRIS user an answer says its call ran as, or null when it says none (classes of an earlier version). */
    private static String userOf(JsonNode answer) {
        JsonNode user = answer.path(IrisFields.USER);
        return user.isString() ? user.asString() : null;
    }

    /**
     * A claim of the caller's as the audit record holds it: one line of at most {@value #MAX_CLAIM}
     * characters. The MCP client's name is whatever the client said, so a line break in it must not
     * forge a line of the record.
     */
    static String claim(String s) {
        String line = s == null ? "" : s.replaceAll("\\p{Cntrl}", " ");
        return line.length() > MAX_CLAIM ? line.substring(0, MAX_CLAIM) : line;
    }

    /** Lock held. Gives the job input: the next prompt or READ is the one that answers it. */
    private void give(ObjectNode line) {
        inputAt = byteEnd;
        promptSinceInput = false;
        send(line);
    }

    private void send(ObjectNode line) {
        outbox.add((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** The writer thread: a job that stops reading holds up only this thread, never a caller. */
    private void write(OutputStream out) {
        try {
            while (true) {
                byte[] line = outbox.take();
                out.write(line);
                out.flush();
            }
        } catch (InterruptedException e) {
            // the engine is ending
        } catch (IOException e) {
            LOG.debug("link of job {} broke while writing: {}", job.pid(), e.getMessage());
            job.close();
        }
    }

    /**
     * INT (and QUIT) interrupt the running command or READ; KILL terminates the job (Signal in IRIS);
     * TERM and HUP ask it to end at its next prompt.
     */
    @Override
    public void signal(Signal signal) {
        switch (signal) {
            case INT, QUIT -> {
                awaitInterruptible();
                callSignal("INT");
            }
            case KILL -> callSignal("KILL");
            default -> send(JSON.createObjectNode().put("t", END));
        }
    }

    /**
     * Returns once the command the job was last given has started (its {@code start} mark came), at most
     * {@link #START_WAIT_MILLIS} after the call; refuses when there is no command, or it has not started by then.
     */
    private void awaitInterruptible() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_WAIT_MILLIS);
        synchronized (lock) {
            while (true) {
                if (state != SessionState.running && state != SessionState.waiting_input) {
                    throw new SessionException("the iris session is " + state + ": there is no command to interrupt");
                }
                if (state == SessionState.waiting_input || starts.containsKey(lastN)) {
                    return;
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new SessionException("command " + lastN + " was given to the iris session's job but has not "
                            + "started after " + START_WAIT_MILLIS / 1000 + " s, and the job drops an interrupt that comes "
                            + "before its command starts: nothing was sent; send session_signal INT again once it runs "
                            + "(session_read shows its output)");
                }
                try {
                    lock.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SessionException("interrupted while waiting for command " + lastN + " to start; "
                            + "nothing was sent");
                }
            }
        }
    }

    /** Only while the link is open: the pid is then still this job's, never a reused one. */
    private void callSignal(String signal) {
        synchronized (lock) {
            if (ended) {
                throw new SessionException("the iris session has ended; there is no job to signal");
            }
        }
        String user = userOf(api.call(IrisMethod.SIGNAL, IrisApi.request().put(IrisFields.PID, job.pid())
                .put("signal", signal)));
        if (IrisApi.otherUser(owner, user)) {
            throw new SessionException("IRIS ran Signal " + signal + " as user " + user + ", not as " + owner + " who "
                    + "owns this session. Report this to the administrator: each call into IRIS must run as its own "
                    + "caller [SIGNAL_FAILED]");
        }
    }

    @Override
    public void resize(int cols, int rows) {
        throw new SessionException("an iris session has no terminal size to change; session_resize is for pty sessions");
    }

    @Override
    public SessionState liveState(String lastLine) {
        return state();
    }

    @Override
    public boolean promptSince(long mark, long logEnd, String lastLine) {
        synchronized (lock) {
            // strictly after: a READ or prompt already on screen when the input was sent is not its answer;
            // at the same offset only when it came after input given since the mark (e.g. a READ right
            // after a command that wrote nothing, not even its echo)
            boolean after = promptAt > mark || (promptAt == mark && inputAt >= mark && promptSinceInput);
            return after && (state == SessionState.idle || state == SessionState.waiting_input);
        }
    }

    // ---- the link's output -----------------------------------------------------------------------

    private void read() {
        MarkFilter filter = MarkFilter.strict(LinkProtocol.MARK_INTRO + job.hello().mark() + ";", MAX_MARK_BYTES,
                new MarkFilter.Handler() {
                    @Override
                    public void output(byte[] bytes, int offset, int length) {
                        sink.output(bytes, offset, length);
                        synchronized (lock) {
                            byteEnd += length;
                        }
                    }

                    @Override
                    public void mark(String json) {
                        onMark(json);
                    }
                });
        byte[] buf = new byte[64 * 1024];
        String broken = null;
        try (InputStream in = job.in()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                filter.feed(buf, 0, n);
            }
        } catch (MarkFilter.Overlong e) {
            broken = "the IRIS job sent a mark longer than " + MAX_MARK_BYTES + " bytes, more than any answer of "
                    + "the job can be";
        } catch (IOException e) {
            // a broken or closed link ends the session as EOF does
            LOG.debug("link of job {} ended: {}", job.pid(), e.toString());
        } catch (RuntimeException e) {
            LOG.warn("reading the link of job {} failed", job.pid(), e);
            broken = "reading the IRIS job's link failed (" + e + ")";
        } finally {
            end(broken);
        }
    }

    private void onMark(String text) {
        JsonNode m;
        try {
            m = JSON.readTree(text);
        } catch (RuntimeException e) {
            LOG.warn("job {} sent a mark that is not JSON; ignored", job.pid());
            return;
        }
        Runnable deliver = null;
        synchronized (lock) {
            switch (m.path("e").asString("")) {
                case PROMPT -> {
                    namespace = m.path("ns").asString(namespace);
                    tlevel = m.path("tl").asInt(tlevel);
                    state = SessionState.idle;
                    reading = null;
                    promptAt = byteEnd;
                    promptSinceInput = true;
                    deliver = deliverAtPrompt;
                    deliverAtPrompt = null;
                    dispatch();
                }
                case START -> {
                    state = SessionState.running;
                    starts.put(m.path("n").asLong(), byteEnd);
                }
                case DONE -> {
                    long n = m.path("n").asLong();
                    namespace = m.path("ns").asString(namespace);
                    tlevel = m.path("tl").asInt(tlevel);
                    done.put(n, new Done(n, starts.getOrDefault(n, -1L), byteEnd, namespace, tlevel,
                            m.path("ms").asLong(0), error(m.get("error"))));
                    reading = null;
                }
                case READ -> {
                    JsonNode timeout = m.path("timeout");
                    reading = new Reading(m.path("n").asLong(), m.path("r").asLong(), byteEnd,
                            timeout.isNumber() && timeout.asDouble() <= 0);
                    state = SessionState.waiting_input;
                    promptAt = byteEnd;
                    promptSinceInput = true;
                    dispatch();
                }
                case READEND -> {
                    if (reading != null && reading.r() == m.path("r").asLong()) {
                        reading = null;
                        state = SessionState.running;
                    }
                    dispatch();
                }
                case SQL -> {
                    CompletableFuture<JsonNode> waiting = statements.remove(m.path("n").asLong());
                    JsonNode result = m.path("result");
                    if (waiting != null) {
                        deliverAtPrompt = () -> waiting.complete(result);
                    }
                }
                default -> {
                    // bye (the end of the connection follows) and events of newer jobs: nothing to track
                }
            }
            lock.notifyAll();
        }
        if (deliver != null) {
            deliver.run();
        }
        sink.changed();
    }

    private static CommandError error(JsonNode e) {
        if (e == null || !e.isObject()) {
            return null;
        }
        return new CommandError(e.path("code").asString(""), e.path("text").asString(""),
                e.path("location").asString(""), e.path("source").asString(""), e.path("info").asString(""));
    }

    /**
     * The link is gone (EOF, error, closed): the session has ended. Runs once. {@code broken}: why this
     * server gave the link up, told to the agent in the session's output and to a waiting statement.
     */
    private void end(String broken) {
        List<CompletableFuture<JsonNode>> waiting;
        synchronized (lock) {
            if (ended) {
                return;
            }
            ended = true;
            state = SessionState.exited;
            reading = null;
            typeAhead.clear();
            waiting = new ArrayList<>(statements.values());
            statements.clear();
            lock.notifyAll();
        }
        job.close();
        writer.interrupt();
        String why = broken == null ? "" : ": " + broken;
        if (broken != null) {
            LOG.warn("ended the session of job {}{}", job.pid(), why);
            sink.note("the session has ended" + why + "; open a new one");
        }
        for (CompletableFuture<JsonNode> w : waiting) {
            w.completeExceptionally(new SessionException("the iris session ended before the statement answered" + why));
        }
        sink.exited(null, null);
    }

    /**
     * {@code bye} when the job waits at a prompt; otherwise INT first, then {@code bye}; KILL after
     * {@code graceMillis} (at once when {@code force}); the link is closed in every case. Only
     * {@code bye} and closing where IRIS may not be called from this thread (hosted, off a request):
     * the job then ends at its next use of the link.
     */
    @Override
    public void terminate(boolean force, long graceMillis) {
        boolean mayCall = api.callableHere();
        boolean busy;
        synchronized (lock) {
            typeAhead.clear();
            busy = state == SessionState.running || state == SessionState.waiting_input;
        }
        if (busy && mayCall) {
            trySignal("INT");
        }
        send(JSON.createObjectNode().put("t", END));
        try {
            if (!force) {
                reader.join(graceMillis);
            }
            if (reader.isAlive() && mayCall) {
                trySignal("KILL");
            }
            job.close();
            reader.join(JOIN_MILLIS);
            writer.join(JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.close();
        }
        end(null);
    }

    private void trySignal(String signal) {
        try {
            callSignal(signal);
        } catch (RuntimeException e) {
            LOG.debug("Signal {} to job {}: {}", signal, job.pid(), e.getMessage());
        }
    }
}
