package iristerm.iris;

import iristerm.doctor.Doctor;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.net.SocketException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An in-memory stand-in for {@code Terminal.Session} that answers exactly as docs/iris-contract.md
 * says, so Java can be tested against every state of the iris engine without an IRIS instance.
 *
 * <p><b>What is simulated.</b> Each session has a job on its own daemon thread, as the real
 * {@code Terminal.Engine} runs independently of its callers: it takes items from the session's
 * input queue, writes the prompt, the echoed command line and the output into a character log, and
 * records {@code done}, {@code read} and {@code exit} events. It does not interpret ObjectScript;
 * it understands a small vocabulary (one line may hold several commands separated by a space, as in
 * ObjectScript; abbreviations work):
 * <ul>
 * <li>{@code write} / {@code w}: {@code !} is a new line ({@code \r\n}); arguments are expressions;
 *     no argument lists the variables. Expressions: {@code "string"} ({@code ""} escapes a quote),
 *     numbers (canonical: {@code 1.50} is {@code 1.5}, {@code 0.5} is {@code .5}), variables,
 *     {@code $namespace}, {@code $tlevel}, {@code $job}, {@code $username}, {@code $roles}
 *     ({@link #ROLES}), {@code $zversion}, {@code $x} (the column), {@code $test}, joined with
 *     {@code _} or added with {@code +} (left to right). {@code ?n} moves to column n with spaces.
 *     An undefined variable raises {@code <UNDEFINED>} with info {@code *name}.</li>
 * <li>{@code set} / {@code s} {@code name=expr[,name=expr]}; {@code set $namespace="NS"} switches
 *     namespace; {@code kill} / {@code k} [{@code name,...}].</li>
 * <li>{@code read} / {@code r}: {@code read x}, {@code read x#5}, {@code read x:10} (timeout seconds;
 *     on timeout {@code x=""}), {@code read *c} (one character; {@code c} is its code, 13 for Enter,
 *     -1 on timeout), and {@code "prompt"} / {@code !} arguments. The session becomes
 *     {@code waiting_input} with a {@code read} event; the next input item answers it and is echoed
 *     (without its Enter, as IRIS does; secret answers are not echoed). A READ with a timeout sets
 *     {@code $test}: 1 if answered, 0 if it timed out.</li>
 * <li>{@code hang N} / {@code h N}: sleeps N seconds (decimals allowed); Signal INT (or QUIT) ends
 *     the command with {@code <INTERRUPT>}, as it does a READ.</li>
 * <li>{@code zn "NS"} / {@code set $namespace="NS"}: namespaces USER, %SYS and SAMPLES exist; another
 *     name raises {@code <NAMESPACE>} with info {@code *NS}.</li>
 * <li>{@code tstart} / {@code ts}, {@code tcommit} / {@code tc} ({@code <COMMIT>} at level 0),
 *     {@code trollback} / {@code tro}: the transaction level is reported and shown in the prompt
 *     ({@code TL1:USER>}).</li>
 * <li>{@code halt} (or {@code h} without argument): the job ends; an {@code exit} event with reason
 *     {@code halt}, no {@code done} event (HALT cannot be caught), state {@code exited}.</li>
 * <li>{@code do ##class(Terminal.Session).Str("",…)} fails inside that routine as the real one does:
 *     {@code <INVALID OREF>} at {@code zStr+1^Terminal.Session.1} with that line as its source; any
 *     other {@code do} raises {@code <SYNTAX>}.</li>
 * <li>{@code quit} / {@code q} ends the line; {@code //} or {@code ;} starts a comment; any other
 *     command raises {@code <SYNTAX>}.</li>
 * </ul>
 * Errors decompose as the engine does them: code {@code <UNDEFINED>}, location {@code x+N^%Fake}
 * (N = line of the unit), info {@code *name}, text {@code <UNDEFINED>x+1^%Fake *name}, source = the
 * line. The log then shows the error text on its own line before the next prompt.
 *
 * <p><b>Input.</b> Every line of a Send's text is one item (with {@code enter:false} the last line
 * stays type-ahead until a later Send ends it; a single-character READ can take it at once);
 * {@code execute:true} makes the whole text one unit whose lines run in order with one
 * {@code done} event. Every item gets the next {@code seq}, whether it ends up as a command or as a
 * READ's answer; {@code done} and {@code reading} carry the seq of the command.
 *
 * <p><b>Connections.</b> One instance is one connection as one IRIS user. {@link #asUser} and
 * {@link #asAdmin} give other connections to the same simulated instance (sessions, counters and
 * drop switches are shared). {@link #close()} closes only this connection: sessions live on in
 * "IRIS", as they do for real; {@link #shutdown()} ends every job (use it in {@code @AfterEach}).
 * {@link #dropConnection()} / {@link #loseNextAnswer()} make the next call throw
 * {@link IrisUnavailableException}; {@link #calls(IrisMethod)} counts calls, dropped ones included;
 * {@link #tamper} makes the instance misbehave in one chosen way (a request or an answer rewritten).
 *
 * <p><b>Instances.</b> The registry may be shared by several IRIS instances, while a session's job runs on
 * the one that opened it ({@code instance} in Open and List). {@link #onInstance} connects to another
 * live instance sharing the registry (an ECP application server): a call there for a session of another
 * instance answers {@code WRONG_INSTANCE} naming both, and List shows such a session with the state
 * {@code unknown}. {@link #failOver} plays a mirror failover: the jobs of this connection's instance end,
 * and from the new primary their sessions read as exited with the reason {@code instance}.
 *
 * <p>Everything is thread-safe; every wait is bounded and re-checks its condition after a wake-up.
 */
public final class FakeIrisCalls implements IrisCalls {
    /** Namespaces the fake instance has. */
    public static final Set<String> NAMESPACES = Set.of("USER", "%SYS", "SAMPLES");
    /** The routine name errors point into. */
    public static final String ROUTINE = "%Fake";
    /** The instance a new fake's connections reach ($SYSTEM, "node:INSTANCE"). */
    public static final String INSTANCE = "fakehost:IRIS";
    /** What Ping reports as {@code $ROLES}, and {@code $roles} in a session. */
    public static final String ROLES = "%Developer";
    /** What Ping reports as {@code $ZVERSION}. */
    public static final String ZVERSION = "IRIS for UNIX (FakeIrisCalls) 2025.1 (Build 0)";

    static final long READ_WAIT_CAP_MS = 10_000;
    static final int DEFAULT_MAX = 262_144;
    private static final long OPEN_WAIT_MS = 10_000;
    private static final long STOP_WAIT_MS = 5_000;
    /** A job waiting for input wakes at least this often to re-check (a lost signal costs a tick). */
    private static final long JOB_TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final DateTimeFormatter ZDT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final World world;
    private final String user;
    private final boolean admin;
    /** the instance this connection reaches */
    private final String instance;
    private volatile boolean closed;

    /** A new simulated instance, connected as {@code user} (who owns what it opens). */
    public FakeIrisCalls(String user) {
        this(new World(), user, false, INSTANCE);
    }

    private FakeIrisCalls(World world, String user, boolean admin, String instance) {
        this.world = world;
        this.user = Objects.requireNonNull(user, "user");
        this.admin = admin;
        this.instance = Objects.requireNonNull(instance, "instance");
    }

    /** Another connection to the same instance, as {@code user}. */
    public FakeIrisCalls asUser(String user) {
        return new FakeIrisCalls(world, user, false, instance);
    }

    /** Another connection as {@code user} holding {@code %Admin_Manage:USE}: may touch any session. */
    public FakeIrisCalls asAdmin(String user) {
        return new FakeIrisCalls(world, user, true, instance);
    }

    /** A connection, as this one's user, to another live instance that shares the registry (ECP). */
    public FakeIrisCalls onInstance(String other) {
        return new FakeIrisCalls(world, user, admin, other);
    }

    /**
     * This connection's instance was a mirror's primary and {@code newPrimary} took over: its jobs end
     * (bounded), their sessions read as exited with the reason {@code instance} from the new primary, and
     * this connection is closed. Answers a connection, as this one's user, to the new primary.
     */
    public FakeIrisCalls failOver(String newPrimary) {
        for (Job job : world.sessions.values()) {
            if (job.instance.equals(instance)) {
                job.end("instance");
                job.awaitThread();
            }
        }
        close();
        return new FakeIrisCalls(world, user, admin, newPrimary);
    }

    public String user() {
        return user;
    }

    /** The next call (on any connection to this instance) throws before it reaches "IRIS". */
    public void dropConnection() {
        world.dropBefore.incrementAndGet();
    }

    /**
     * The next call (on any connection) is carried out but its answer is lost: it throws after the
     * effect, as a connection dropping mid-call does. That is why only idempotent methods may be
     * repeated blindly.
     */
    public void loseNextAnswer() {
        world.dropAfter.incrementAndGet();
    }

    /**
     * A misbehaving instance, for tests: rewrites a request before "IRIS" sees it, or an answer
     * before Java does. The defaults change nothing.
     */
    public interface Tamper {
        default String request(IrisMethod method, String request) {
            return request;
        }

        default String answer(IrisMethod method, String request, String answer) {
            return answer;
        }
    }

    /** Every later call (on any connection to this instance) goes through {@code tamper}. */
    public void tamper(Tamper tamper) {
        world.tamper = Objects.requireNonNull(tamper, "tamper");
    }

    /** Calls of {@code method} on this instance so far, on every connection, dropped ones included. */
    public int calls(IrisMethod method) {
        return world.counts.get(method.ordinal());
    }

    public int totalCalls() {
        int n = 0;
        for (IrisMethod m : IrisMethod.values()) {
            n += calls(m);
        }
        return n;
    }

    public void resetCounts() {
        for (IrisMethod m : IrisMethod.values()) {
            world.counts.set(m.ordinal(), 0);
        }
    }

    /** Job threads still running (sessions not yet ended). */
    public int liveJobs() {
        int n = 0;
        for (Job job : world.sessions.values()) {
            if (job.thread.isAlive()) {
                n++;
            }
        }
        return n;
    }

    /** Ends every job at once and forgets every session (test clean-up). */
    public void shutdown() {
        for (Job job : List.copyOf(world.sessions.values())) {
            job.stop(true, 0);
            world.sessions.remove(job.id);
        }
    }

    @Override
    public String call(IrisMethod method, String requestJson) {
        Objects.requireNonNull(method, "method");
        world.counts.incrementAndGet(method.ordinal());
        if (closed) {
            throw new IrisUnavailableException(describe() + ": this connection is closed", null);
        }
        if (takeOne(world.dropBefore)) {
            throw new IrisUnavailableException(describe() + ": connection dropped (simulated) before "
                    + method.method(), new SocketException("Connection reset"));
        }
        Tamper tamper = world.tamper;
        String request = tamper.request(method, requestJson);
        String answer = tamper.answer(method, request, answer(method, request));
        if (takeOne(world.dropAfter)) {
            throw new IrisUnavailableException(describe() + ": connection dropped (simulated) during "
                    + method.method() + "; it may have taken effect", new SocketException("Connection reset"));
        }
        return answer;
    }

    @Override
    public String describe() {
        return "fake IRIS in memory (instance " + instance + ", user " + user + (admin ? ", admin" : "") + ")";
    }

    /** Closes this connection only; the sessions live on, as they do in IRIS. */
    @Override
    public void close() {
        closed = true;
    }

    private static boolean takeOne(AtomicInteger pending) {
        return pending.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }

    /** State shared by every connection to one simulated instance. */
    private static final class World {
        final Map<String, Job> sessions = new ConcurrentHashMap<>();
        final AtomicInteger nextId = new AtomicInteger();
        final AtomicInteger nextPid = new AtomicInteger(40_000);
        final AtomicIntegerArray counts = new AtomicIntegerArray(IrisMethod.values().length);
        final AtomicInteger dropBefore = new AtomicInteger();
        final AtomicInteger dropAfter = new AtomicInteger();
        volatile Tamper tamper = new Tamper() {
        };
    }

    // ------------------------------------------------------------------------------ the methods

    private String answer(IrisMethod method, String requestJson) {
        ObjectNode out;
        try {
            Req req = Req.parse(requestJson);
            out = switch (method) {
                case PING -> ping(req);
                case OPEN -> open(req);
                case SEND -> send(req);
                case READ -> read(req);
                case SIGNAL -> signal(req);
                case CLOSE -> close(req);
                case LIST -> list(req);
                case SQL -> Sql.run(req);
            };
        } catch (Fault f) {
            out = f.toJson();
        } catch (IrisUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            // the real class catches everything and answers INTERNAL; never a thrown error
            out = new Fault("INTERNAL", "fake IRIS failed: " + e).toJson();
        }
        return MAPPER.writeValueAsString(out);
    }

    private ObjectNode ping(Req req) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("version", Doctor.CLASSES_VERSION);
        o.put("user", user);
        o.put("roles", ROLES);
        o.put("namespace", "USER");
        o.put("iris", ZVERSION);
        if (req.flag("check", false)) {
            // Terminal.Store.Check()'s shape; the fake's store is in place
            ObjectNode store = o.putObject("store");
            store.put("ok", true);
            ArrayNode parts = store.putArray("parts");
            parts.addObject().put("part", "escalated access").put("ok", true).put("detail", "simulated");
            parts.addObject().put("part", "output of commands").put("ok", true).put("detail", "streaming: simulated");
        }
        return o;
    }

    private ObjectNode open(Req req) {
        String ns = req.str("namespace", false);
        ns = ns == null || ns.isEmpty() ? "USER" : ns.toUpperCase(Locale.ROOT);
        if (!NAMESPACES.contains(ns)) {
            throw new Fault("START_FAILED", "namespace " + ns + " does not exist; use one of " + NAMESPACES);
        }
        long idle = req.num("idle_timeout_s", 0, 0, Integer.MAX_VALUE);
        String id = String.valueOf(world.nextId.incrementAndGet());
        String name = req.str("name", false);
        String agent = req.str("agent", false);
        Job job = new Job(id, name == null || name.isEmpty() ? "iris-" + id : name, user,
                agent == null ? "" : agent, ns, world.nextPid.incrementAndGet(), TimeUnit.SECONDS.toMillis(idle),
                instance);
        world.sessions.put(id, job);
        job.thread.start();
        job.awaitStarted();
        ObjectNode o = MAPPER.createObjectNode();
        o.put("session", id);
        o.put("name", job.name);
        o.put("owner", job.owner);
        o.put("agent", job.agent);
        job.lock.lock();
        try {
            o.put("namespace", job.namespace);
            o.put("pid", job.pid);
            o.put("state", job.state);
        } finally {
            job.lock.unlock();
        }
        o.put("created", job.created);
        o.put("instance", job.instance);
        return o;
    }

    private ObjectNode send(Req req) {
        Job job = owned(req);
        if (!job.owner.equals(user)) {
            // %Admin_Manage may look at and end another user's session, never type into it: that would run
            // code as that user.
            throw new Fault("NOT_OWNER", "session " + job.id + " belongs to " + job.owner + "; only its owner may send"
                    + " input to it (an administrator may read, list, signal and close it)");
        }
        String text = req.str("text", true);
        boolean enter = req.flag("enter", true);
        boolean secret = req.flag("secret", false);
        boolean execute = req.flag("execute", false);
        ObjectNode o = MAPPER.createObjectNode();
        o.put("accepted", 1);
        job.lock.lock();
        try {
            job.requireAlive();
            o.put("seq", job.queueInput(text, enter, secret, execute));
            o.put("state", job.state);
        } finally {
            job.lock.unlock();
        }
        return o;
    }

    private ObjectNode read(Req req) {
        Job job = owned(req);
        long from = req.num("from", 0, 0, Long.MAX_VALUE);
        long ev = req.num("ev", 0, 0, Long.MAX_VALUE);
        long max = req.num("max", DEFAULT_MAX, 0, Long.MAX_VALUE);
        long waitMs = Math.min(req.num("wait_ms", 0, 0, Long.MAX_VALUE), READ_WAIT_CAP_MS);
        return job.read(from, ev, max, waitMs);
    }

    private ObjectNode signal(Req req) {
        Job job = owned(req);
        String signal = req.str("signal", true).toUpperCase(Locale.ROOT);
        switch (signal) {
            case "INT", "QUIT" -> job.interrupt();
            case "TERM", "KILL", "HUP" -> job.kill();
            default -> throw new Fault("BAD_REQUEST", "signal must be INT, TERM, KILL, HUP or QUIT, not " + signal);
        }
        ObjectNode o = MAPPER.createObjectNode();
        o.put("sent", 1);
        o.put("state", job.state());
        return o;
    }

    private ObjectNode close(Req req) {
        Job job = owned(req);
        boolean force = req.flag("force", false);
        long grace = Math.min(req.num("grace_ms", 2000, 0, Long.MAX_VALUE), READ_WAIT_CAP_MS);
        long from = req.num("from", 0, 0, Long.MAX_VALUE);
        job.stop(force, grace);
        world.sessions.remove(job.id);
        ObjectNode o = MAPPER.createObjectNode();
        o.put("closed", 1);
        job.lock.lock();
        try {
            o.put("data", job.out.substring((int) Math.min(from, job.out.length())));
            o.set("exit", job.exit == null ? null : job.exit.deepCopy());
        } finally {
            job.lock.unlock();
        }
        return o;
    }

    private ObjectNode list(Req req) {
        String only = req.str("session", false);
        List<Job> jobs = new ArrayList<>();
        if (only != null) {
            jobs.add(owned(req));
        } else {
            for (Job job : world.sessions.values()) {
                if (admin || job.owner.equals(user)) {
                    jobs.add(job);
                }
            }
            jobs.sort(Comparator.comparingInt(j -> Integer.parseInt(j.id)));
        }
        ObjectNode o = MAPPER.createObjectNode();
        o.put("instance", instance);
        ArrayNode rows = o.putArray("sessions");
        for (Job job : jobs) {
            ObjectNode row = job.row();
            if (elsewhere(job)) {
                // known here by its registry row only: its state is its instance's to know
                row.put("state", "unknown");
                row.put("last_activity", "");
                row.put("bytes", 0);
            }
            rows.add(row);
        }
        return o;
    }

    /** The job runs on a live instance other than this connection's. */
    private boolean elsewhere(Job job) {
        return !job.instance.equals(instance) && !"instance".equals(job.exitReason());
    }

    /** The session named by the request, if this caller may touch it (owner or admin). */
    private Job owned(Req req) {
        String id = req.str("session", true);
        Job job = world.sessions.get(id);
        if (job == null) {
            throw new Fault("NOT_FOUND", "no session " + id + " (closed or never opened); List shows yours");
        }
        if (!admin && !job.owner.equals(user)) {
            throw new Fault("NOT_OWNER", "session " + id + " belongs to another user; " + user
                    + " may use only the sessions it opened");
        }
        if (elsewhere(job)) {
            throw new Fault("WRONG_INSTANCE", "session " + id + " runs on the IRIS instance " + job.instance
                    + ", and this call reached " + instance + "; its job and output are there only. Connect to "
                    + job.instance + " (behind a load balancer: client affinity), or open a new session here");
        }
        return job;
    }

    private static String now() {
        return LocalDateTime.now().format(ZDT);
    }

    // ------------------------------------------------------------------------- request parsing

    /** An API failure: answered as {"fault":{…}}, never thrown to Java. */
    private static final class Fault extends RuntimeException {
        final String code;

        Fault(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        ObjectNode toJson() {
            ObjectNode o = MAPPER.createObjectNode();
            ObjectNode f = o.putObject("fault");
            f.put("code", code);
            f.put("message", getMessage());
            return o;
        }
    }

    /** The request object, read strictly so that a sloppy Java request fails here and not on IRIS. */
    private record Req(ObjectNode node) {
        static Req parse(String json) {
            if (json == null) {
                throw new Fault("BAD_REQUEST", "the request is missing; send a JSON object");
            }
            JsonNode n;
            try {
                n = MAPPER.readTree(json);
            } catch (JacksonException e) {
                throw new Fault("BAD_REQUEST", "the request is not valid JSON: " + e.getOriginalMessage());
            }
            if (n == null || !n.isObject()) {
                throw new Fault("BAD_REQUEST", "the request must be a JSON object");
            }
            return new Req((ObjectNode) n);
        }

        /** A string field; a number is accepted too (ids), as ObjectScript would. */
        String str(String name, boolean required) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) {
                if (required) {
                    throw new Fault("BAD_REQUEST", "\"" + name + "\" is required");
                }
                return null;
            }
            if (!v.isString() && !v.isNumber()) {
                throw new Fault("BAD_REQUEST", "\"" + name + "\" must be a string");
            }
            return v.asString();
        }

        long num(String name, long dflt, long min, long max) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) {
                return dflt;
            }
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
                throw new Fault("BAD_REQUEST", "\"" + name + "\" must be a whole number from " + min
                        + (max == Long.MAX_VALUE ? " up" : " to " + max));
            }
            return v.longValue();
        }

        /** true/false, or 1/0 as an ObjectScript program would send. */
        boolean flag(String name, boolean dflt) {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) {
                return dflt;
            }
            if (v.isBoolean()) {
                return v.booleanValue();
            }
            if (v.isIntegralNumber() && (v.asLong() == 0 || v.asLong() == 1)) {
                return v.asLong() == 1;
            }
            throw new Fault("BAD_REQUEST", "\"" + name + "\" must be true or false");
        }
    }

    // ------------------------------------------------------------------------------- the job

    /** One item of a session's input queue (type-ahead). */
    private record Input(long seq, String text, boolean secret, boolean unit) {
    }

    /** Ends the job thread: HALT, Close, a kill signal, the idle timeout. */
    private static final class JobEnd extends RuntimeException {
        final String reason;

        JobEnd(String reason) {
            super(reason, null, false, false);
            this.reason = reason;
        }
    }

    /** An ObjectScript error ($ZERROR) raised by the simulated command. */
    private static final class OsError extends RuntimeException {
        final String code;
        final String info;
        final String location;
        final String source;

        OsError(String code, String info, int lineNo, String source) {
            this(code, info, "x+" + lineNo + "^" + ROUTINE, source);
        }

        OsError(String code, String info, String location, String source) {
            super(code, null, false, false);
            this.code = code;
            this.info = info;
            this.location = location;
            this.source = source;
        }

        String text() {
            return code + location + (info.isEmpty() ? "" : " " + info);
        }

        ObjectNode toJson() {
            ObjectNode e = MAPPER.createObjectNode();
            e.put("code", code);
            e.put("text", text());
            e.put("location", location);
            e.put("source", source);
            e.put("info", info);
            return e;
        }
    }

    /** Thrown by QUIT: ends the current line. */
    private static final class QuitLine extends RuntimeException {
        QuitLine() {
            super(null, null, false, false);
        }
    }

    private static final String STARTING = "starting";
    private static final String IDLE = "idle";
    private static final String RUNNING = "running";
    private static final String WAITING = "waiting_input";
    private static final String EXITED = "exited";

    /**
     * One session: its registry row, its output log and events (guarded by {@link #lock}; every
     * change signals {@link #changed}, which both the job and waiting callers wait on), and the
     * simulated job that runs on {@link #thread}.
     */
    private static final class Job implements Runnable {
        final String id;
        final String name;
        final String owner;
        final String agent;
        final int pid;
        final String created = now();
        final long idleTimeoutMs;
        /** the instance that runs the job */
        final String instance;
        final Thread thread;
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();

        // guarded by lock
        final StringBuilder out = new StringBuilder();
        private int column;
        private final List<ObjectNode> events = new ArrayList<>();
        private String state = STARTING;
        private String namespace;
        private int tlevel;
        private long lastSeq;
        private long seqDone;
        private ObjectNode reading;
        private ObjectNode exit;
        private String lastActivity = created;
        private final Deque<Input> queue = new ArrayDeque<>();
        private final StringBuilder typeAhead = new StringBuilder();
        private boolean typeAheadSecret;
        /** INT/QUIT arrived while a command ran: its next wait (or command) raises <INTERRUPT>. */
        private boolean interrupt;
        /** Graceful close: finish the running command, then end instead of taking another. */
        private boolean closing;
        /** Set to end the job at its next check, whatever it is doing (kill, forced close). */
        private String endReason;

        // job thread only
        private final Map<String, String> vars = new TreeMap<>();
        private String dollarTest = "0";
        private long cmdSeq;
        private String curLine = "";
        private int curLineNo;

        Job(String id, String name, String owner, String agent, String namespace, int pid, long idleTimeoutMs,
            String instance) {
            this.id = id;
            this.name = name;
            this.owner = owner;
            this.agent = agent;
            this.namespace = namespace;
            this.pid = pid;
            this.idleTimeoutMs = idleTimeoutMs;
            this.instance = instance;
            this.thread = new Thread(this, "fake-iris-job-" + id);
            thread.setDaemon(true);
        }

        // ----- caller side

        String state() {
            lock.lock();
            try {
                return state;
            } finally {
                lock.unlock();
            }
        }

        /** Why the job ended, or null while it runs. */
        String exitReason() {
            lock.lock();
            try {
                return exit == null ? null : exit.get("reason").asString();
            } finally {
                lock.unlock();
            }
        }

        void requireAlive() {
            if (state.equals(EXITED)) {
                throw new Fault("CLOSED", "session " + id + " has ended (" + exit.get("reason").asString()
                        + "); read what is left or close it");
            }
        }

        /** Open waits (bounded) until the job is ready, like the real Open. */
        void awaitStarted() {
            lock.lock();
            try {
                long left = TimeUnit.MILLISECONDS.toNanos(OPEN_WAIT_MS);
                while (state.equals(STARTING) && left > 0) {
                    left = callerAwait(left);
                }
                if (state.equals(STARTING)) {
                    throw new Fault("START_FAILED", "the job did not become ready in " + OPEN_WAIT_MS + " ms");
                }
            } finally {
                lock.unlock();
            }
        }

        /** Queues a Send (lock held); returns the seq of the last item queued, 0 if none. */
        long queueInput(String text, boolean enter, boolean secret, boolean execute) {
            long seq = 0;
            if (execute) {
                queue.addLast(new Input(seq = ++lastSeq, takeTypeAhead() + text, secret, true));
            } else {
                String[] lines = text.split("\r\n|\r|\n", -1);
                for (int i = 0; i < lines.length; i++) {
                    boolean last = i == lines.length - 1;
                    if (last && !enter) {
                        // no Enter yet: the text waits as type-ahead, as on a terminal
                        typeAhead.append(lines[i]);
                        typeAheadSecret |= secret;
                    } else {
                        boolean s = secret || typeAheadSecret;
                        queue.addLast(new Input(seq = ++lastSeq, takeTypeAhead() + lines[i], s, false));
                    }
                }
            }
            lastActivity = now();
            changed.signalAll();
            return seq;
        }

        private String takeTypeAhead() {
            String t = typeAhead.toString();
            typeAhead.setLength(0);
            typeAheadSecret = false;
            return t;
        }

        ObjectNode read(long from, long ev, long max, long waitMs) {
            lock.lock();
            try {
                long left = TimeUnit.MILLISECONDS.toNanos(waitMs);
                while (out.length() <= from && events.size() <= ev && !state.equals(EXITED) && left > 0) {
                    left = callerAwait(left);
                }
                int start = (int) Math.min(from, out.length());
                String data = out.substring(start, (int) Math.min(out.length(), start + max));
                ObjectNode o = MAPPER.createObjectNode();
                o.put("data", data);
                o.put("from", from);
                o.put("next", from + data.length());
                o.put("end", out.length());
                ArrayNode evs = o.putArray("events");
                for (int i = (int) Math.min(ev, events.size()); i < events.size(); i++) {
                    evs.add(events.get(i).deepCopy());
                }
                o.put("ev_next", events.size());
                o.put("state", state);
                o.put("namespace", namespace);
                o.put("tlevel", tlevel);
                o.put("seq_done", seqDone);
                o.set("reading", reading == null ? null : reading.deepCopy());
                o.set("exit", exit == null ? null : exit.deepCopy());
                return o;
            } finally {
                lock.unlock();
            }
        }

        void interrupt() {
            lock.lock();
            try {
                requireAlive();
                // at the prompt there is nothing to interrupt
                if (state.equals(RUNNING) || state.equals(WAITING)) {
                    interrupt = true;
                    changed.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }

        /** TERM/KILL/HUP: the job ends now; answers once it has (bounded). */
        void kill() {
            lock.lock();
            try {
                requireAlive();
                end("killed");
            } finally {
                lock.unlock();
            }
        }

        /** The job, unless it has ended, ends now for {@code reason}; answers once it has (bounded). */
        void end(String reason) {
            lock.lock();
            try {
                if (state.equals(EXITED)) {
                    return;
                }
                endReason = reason;
                changed.signalAll();
                long left = TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MS);
                while (!state.equals(EXITED) && left > 0) {
                    left = callerAwait(left);
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Ends the job: graceful lets a running command finish for up to {@code graceMs} (an idle
         * or READing job ends at once), then forces. Waits (bounded) for the thread to finish.
         */
        void stop(boolean force, long graceMs) {
            lock.lock();
            try {
                if (!state.equals(EXITED)) {
                    closing = true;
                    changed.signalAll();
                    long left = force ? 0 : TimeUnit.MILLISECONDS.toNanos(graceMs);
                    while (!state.equals(EXITED) && left > 0) {
                        left = callerAwait(left);
                    }
                    if (endReason == null) {
                        endReason = "close";
                    }
                    changed.signalAll();
                    left = TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MS);
                    while (!state.equals(EXITED) && left > 0) {
                        left = callerAwait(left);
                    }
                }
            } finally {
                lock.unlock();
            }
            awaitThread();
        }

        /** Waits (bounded) until the job's thread has finished. */
        void awaitThread() {
            try {
                thread.join(STOP_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        ObjectNode row() {
            lock.lock();
            try {
                ObjectNode r = MAPPER.createObjectNode();
                r.put("session", id);
                r.put("name", name);
                r.put("owner", owner);
                r.put("agent", agent);
                r.put("namespace", namespace);
                r.put("state", state);
                r.put("pid", pid);
                r.put("created", created);
                r.put("last_activity", lastActivity);
                r.put("bytes", out.length());
                r.put("instance", instance);
                return r;
            } finally {
                lock.unlock();
            }
        }

        /** A caller's bounded wait on {@link #changed} (lock held); returns the nanos left. */
        private long callerAwait(long nanos) {
            try {
                return changed.awaitNanos(nanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IrisUnavailableException("interrupted while waiting for fake IRIS", e);
            }
        }

        // ----- job side

        @Override
        public void run() {
            try {
                lock.lock();
                try {
                    writePrompt();
                    state = IDLE;
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
                while (true) {
                    execute(nextCommand());
                }
            } catch (JobEnd e) {
                ended(e.reason);
            } catch (RuntimeException | Error e) {
                ended("error"); // a bug in the fake ends the job as an engine crash would
                throw e;
            }
        }

        /** Waits (bounded ticks, re-checking) for the next command item. */
        private Input nextCommand() {
            lock.lock();
            try {
                long idleLeft = idleTimeoutMs > 0 ? TimeUnit.MILLISECONDS.toNanos(idleTimeoutMs) : Long.MAX_VALUE;
                while (true) {
                    checkEnd(true);
                    Input in = queue.pollFirst();
                    if (in != null) {
                        return in;
                    }
                    if (idleLeft <= 0) {
                        throw new JobEnd("idle");
                    }
                    long slept = Math.min(idleLeft, JOB_TICK_NANOS);
                    long rest = jobAwait(slept);
                    if (idleTimeoutMs > 0) {
                        idleLeft -= slept - rest;
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        /** Runs one command item (or unit): echo, output, one done event, the next prompt. */
        private void execute(Input in) {
            long started = System.nanoTime();
            List<String> lines = in.unit() ? List.of(in.text().split("\r\n|\r|\n", -1)) : List.of(in.text());
            int outStart;
            lock.lock();
            try {
                state = RUNNING;
                interrupt = false;
                for (String line : lines) {
                    log((in.secret() ? "" : line) + "\r\n");
                }
                outStart = out.length();
                lastActivity = now();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            cmdSeq = in.seq();
            OsError error = null;
            try {
                for (int i = 0; i < lines.size(); i++) {
                    runLine(lines.get(i), i + 1);
                }
            } catch (OsError e) {
                error = e;
            }
            lock.lock();
            try {
                ObjectNode done = MAPPER.createObjectNode();
                done.put("type", "done");
                done.put("seq", in.seq());
                done.put("out_start", outStart);
                done.put("out_end", out.length());
                done.put("namespace", namespace);
                done.put("tlevel", tlevel);
                done.put("elapsed_ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                done.set("error", error == null ? null : error.toJson());
                events.add(done);
                seqDone = in.seq();
                if (column != 0) {
                    log("\r\n");
                }
                if (error != null) {
                    log(error.text() + "\r\n");
                }
                writePrompt();
                state = IDLE;
                lastActivity = now();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        private void ended(String reason) {
            lock.lock();
            try {
                if (!state.equals(EXITED)) {
                    state = EXITED;
                    reading = null;
                    exit = MAPPER.createObjectNode();
                    exit.put("reason", reason);
                    exit.put("at", now());
                    ObjectNode e = MAPPER.createObjectNode();
                    e.put("type", "exit");
                    e.put("at", out.length());
                    e.put("reason", reason);
                    events.add(e);
                    lastActivity = now();
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Lock held. {@code betweenCommands}: a graceful close ends the job here too. */
        private void checkEnd(boolean betweenCommands) {
            if (endReason != null) {
                throw new JobEnd(endReason);
            }
            if (closing && betweenCommands) {
                throw new JobEnd("close");
            }
        }

        /** Lock held. An INT that arrived while the command ran raises <INTERRUPT> now. */
        private void checkInterrupt() {
            if (interrupt) {
                interrupt = false;
                throw error("<INTERRUPT>", "");
            }
        }

        private long jobAwait(long nanos) {
            try {
                return changed.awaitNanos(nanos);
            } catch (InterruptedException e) {
                throw new JobEnd("killed");
            }
        }

        /** Lock held: appends to the log, keeping the column for the prompt's new line. */
        private void log(String s) {
            out.append(s);
            int nl = Math.max(s.lastIndexOf('\n'), s.lastIndexOf('\r'));
            column = nl < 0 ? column + s.length() : s.length() - nl - 1;
            changed.signalAll();
        }

        private void writePrompt() {
            log((tlevel > 0 ? "TL" + tlevel + ":" : "") + namespace + ">");
        }

        private void emit(String s) {
            lock.lock();
            try {
                log(s);
            } finally {
                lock.unlock();
            }
        }

        private OsError error(String code, String info) {
            return new OsError(code, info, curLineNo, curLine);
        }

        // ----- the interpreter (job thread)

        private void runLine(String line, int lineNo) {
            curLine = line;
            curLineNo = lineNo;
            Cursor c = new Cursor(line);
            try {
                while (true) {
                    c.skipSpaces();
                    if (c.atEnd() || c.startsWith("//") || c.peek() == ';') {
                        return;
                    }
                    String word = c.word();
                    String args;
                    if (word.isEmpty()) {
                        throw error("<SYNTAX>", "");
                    } else if (c.atEnd()) {
                        args = "";
                    } else if (c.peek() == ' ') {
                        c.next();
                        args = c.argument();
                    } else {
                        throw error("<SYNTAX>", ""); // postconditionals and the like are not simulated
                    }
                    lock.lock();
                    try {
                        checkEnd(false);
                        checkInterrupt();
                    } finally {
                        lock.unlock();
                    }
                    command(word.toLowerCase(Locale.ROOT), args);
                }
            } catch (QuitLine q) {
                // QUIT: the rest of the line is skipped
            }
        }

        private void command(String cmd, String args) {
            switch (cmd) {
                case "w", "write" -> writeCommand(new Cursor(args));
                case "s", "set" -> set(new Cursor(args));
                case "r", "read" -> read(new Cursor(args));
                case "h" -> {
                    if (args.isEmpty()) {
                        throw new JobEnd("halt");
                    }
                    hang(args);
                }
                case "hang" -> hang(args);
                case "halt" -> throw new JobEnd("halt");
                case "zn", "znspace" -> namespace(whole(new Cursor(args)));
                case "ts", "tstart" -> transaction(+1);
                case "tc", "tcommit" -> transaction(-1);
                case "tro", "trollback" -> transaction(0);
                case "k", "kill" -> kill(new Cursor(args));
                case "d", "do" -> doCall(args);
                case "q", "quit" -> throw new QuitLine();
                default -> throw error("<SYNTAX>", "");
            }
        }

        /** The one class method DO the fake knows, failing as the real Terminal.Session.Str does on "". */
        private void doCall(String args) {
            if (args.startsWith("##class(Terminal.Session).Str(\"\"")) {
                throw new OsError("<INVALID OREF>", "", "zStr+1^Terminal.Session.1", "Set type = req.%GetTypeOf(name)");
            }
            throw error("<SYNTAX>", "");
        }

        /** WRITE ?n: spaces up to column n. */
        private void tab(int col) {
            lock.lock();
            try {
                if (col > column) {
                    log(" ".repeat(col - column));
                }
            } finally {
                lock.unlock();
            }
        }

        private void writeCommand(Cursor c) {
            if (c.atEnd()) {
                StringBuilder sb = new StringBuilder();
                vars.forEach((k, v) -> sb.append(k).append('=').append(quoteIfString(v)).append("\r\n"));
                emit(sb.toString());
                return;
            }
            do {
                boolean any = false;
                while (c.eat('!')) {
                    emit("\r\n");
                    any = true;
                }
                if (c.eat('?')) {
                    tab(toNumber(term(c)).intValue());
                    any = true;
                }
                if (!c.atEnd() && c.peek() != ',') {
                    emit(expr(c));
                    any = true;
                }
                if (!any) {
                    throw error("<SYNTAX>", "");
                }
            } while (c.eat(','));
            if (!c.atEnd()) {
                throw error("<SYNTAX>", "");
            }
        }

        private void set(Cursor c) {
            do {
                String target = c.eat('$') ? "$" + c.word().toLowerCase(Locale.ROOT) : c.name();
                if (target.isEmpty() || !c.eat('=')) {
                    throw error("<SYNTAX>", "");
                }
                String value = expr(c);
                if (target.equals("$namespace") || target.equals("$znspace")) {
                    namespace(value);
                } else if (target.startsWith("$")) {
                    throw error("<SYNTAX>", "");
                } else {
                    vars.put(target, value);
                }
            } while (c.eat(','));
            if (!c.atEnd()) {
                throw error("<SYNTAX>", "");
            }
        }

        private void kill(Cursor c) {
            if (c.atEnd()) {
                vars.clear();
                return;
            }
            do {
                String n = c.name();
                if (n.isEmpty()) {
                    throw error("<SYNTAX>", "");
                }
                vars.remove(n);
            } while (c.eat(','));
        }

        private void read(Cursor c) {
            do {
                if (c.peek() == '"') {
                    emit(c.string()); // a prompt
                } else if (c.eat('!')) {
                    emit("\r\n");
                } else {
                    boolean single = c.eat('*');
                    String var = c.name();
                    if (var.isEmpty()) {
                        throw error("<SYNTAX>", "");
                    }
                    int len = single ? 1 : 0;
                    if (!single && c.eat('#')) {
                        len = Math.max(1, toNumber(term(c)).intValue());
                    }
                    int timeout = c.eat(':') ? Math.max(0, toNumber(term(c)).intValue()) : -1;
                    String got = awaitAnswer(single, len, timeout);
                    if (timeout >= 0) {
                        dollarTest = got == null ? "0" : "1";
                    }
                    if (single) {
                        vars.put(var, got == null ? "-1" : String.valueOf(got.codePointAt(0)));
                    } else {
                        vars.put(var, got == null ? "" : got);
                    }
                }
            } while (c.eat(','));
            if (!c.atEnd()) {
                throw error("<SYNTAX>", "");
            }
        }

        /**
         * A READ: the session waits for input with a {@code read} event; the next item (or one
         * character of it) answers. Returns null on timeout.
         */
        private String awaitAnswer(boolean single, int len, int timeoutS) {
            lock.lock();
            try {
                state = WAITING;
                reading = MAPPER.createObjectNode();
                reading.put("seq", cmdSeq);
                reading.put("len", len);
                reading.put("timeout", timeoutS);
                reading.put("single", single ? 1 : 0);
                ObjectNode e = MAPPER.createObjectNode();
                e.put("type", "read");
                e.put("seq", cmdSeq);
                e.put("at", out.length());
                e.put("len", len);
                e.put("timeout", timeoutS);
                e.put("single", single ? 1 : 0);
                events.add(e);
                changed.signalAll();
                long left = timeoutS < 0 ? Long.MAX_VALUE : TimeUnit.SECONDS.toNanos(timeoutS);
                try {
                    while (true) {
                        // a graceful close ends a READ too: no answer will come
                        checkEnd(true);
                        checkInterrupt();
                        String got = single ? takeChar() : takeLine(len);
                        if (got != null) {
                            lastActivity = now();
                            return got;
                        }
                        if (left <= 0) {
                            return null;
                        }
                        long slept = Math.min(left, JOB_TICK_NANOS);
                        long rest = jobAwait(slept);
                        if (timeoutS >= 0) {
                            left -= slept - rest;
                        }
                    }
                } finally {
                    reading = null;
                    if (state.equals(WAITING)) {
                        state = RUNNING;
                    }
                    changed.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }

        /** Lock held: the answer to a string READ (echoed unless secret), or null if none yet. */
        private String takeLine(int len) {
            Input head = queue.pollFirst();
            if (head == null) {
                return null;
            }
            String text = head.text();
            Matcher m = Pattern.compile("\r\n|\r|\n").matcher(text);
            if (m.find()) {
                // the rest of a multi-line unit stays queued
                queue.addFirst(new Input(head.seq(), text.substring(m.end()), head.secret(), head.unit()));
                text = text.substring(0, m.start());
            }
            if (len > 0 && text.length() > len) {
                text = text.substring(0, len);
            }
            if (!head.secret()) {
                log(text);
            }
            return text;
        }

        /** Lock held: one character for READ *c; an item's end is its Enter (13). */
        private String takeChar() {
            Input head = queue.peekFirst();
            String ch;
            boolean secret;
            if (head != null) {
                secret = head.secret();
                queue.pollFirst();
                if (head.text().isEmpty()) {
                    ch = "\r";
                } else {
                    ch = head.text().substring(0, 1);
                    queue.addFirst(new Input(head.seq(), head.text().substring(1), head.secret(), head.unit()));
                }
            } else if (typeAhead.length() > 0) {
                secret = typeAheadSecret;
                ch = typeAhead.substring(0, 1);
                typeAhead.deleteCharAt(0);
            } else {
                return null;
            }
            if (!secret && ch.charAt(0) >= ' ') {
                log(ch);
            }
            return ch;
        }

        private void hang(String args) {
            BigDecimal seconds = toNumber(whole(new Cursor(args)));
            long left = seconds.signum() <= 0 ? 0 : seconds.movePointRight(9).longValue();
            lock.lock();
            try {
                while (true) {
                    checkEnd(false); // a graceful close lets the HANG finish (within grace_ms)
                    checkInterrupt();
                    if (left <= 0) {
                        return;
                    }
                    long slept = left;
                    left -= slept - jobAwait(slept);
                }
            } finally {
                lock.unlock();
            }
        }

        private void namespace(String value) {
            String ns = value.toUpperCase(Locale.ROOT);
            if (!NAMESPACES.contains(ns)) {
                throw error("<NAMESPACE>", "*" + value);
            }
            lock.lock();
            try {
                namespace = ns;
            } finally {
                lock.unlock();
            }
        }

        private void transaction(int delta) {
            lock.lock();
            try {
                if (delta < 0 && tlevel == 0) {
                    throw error("<COMMIT>", "");
                }
                tlevel = delta == 0 ? 0 : tlevel + delta;
            } finally {
                lock.unlock();
            }
        }

        /** One expression that must be the whole argument. */
        private String whole(Cursor c) {
            String v = expr(c);
            if (!c.atEnd()) {
                throw error("<SYNTAX>", "");
            }
            return v;
        }

        /** term ( _ term | + term )*, left to right as ObjectScript evaluates */
        private String expr(Cursor c) {
            String v = term(c);
            while (true) {
                if (c.eat('_')) {
                    v = v + term(c);
                } else if (c.eat('+')) {
                    v = canonical(toNumber(v).add(toNumber(term(c))));
                } else {
                    return v;
                }
            }
        }

        private String term(Cursor c) {
            if (c.atEnd()) {
                throw error("<SYNTAX>", "");
            }
            char ch = c.peek();
            if (ch == '"') {
                String s = c.string();
                if (s == null) {
                    throw error("<SYNTAX>", "");
                }
                return s;
            }
            if (Character.isDigit(ch) || ch == '.' || ch == '-' || ch == '+') {
                String n = c.number();
                if (n == null) {
                    throw error("<SYNTAX>", "");
                }
                return canonical(new BigDecimal(n));
            }
            if (c.eat('$')) {
                String f = c.word().toLowerCase(Locale.ROOT);
                lock.lock();
                try {
                    return switch (f) {
                        case "namespace", "znspace" -> namespace;
                        case "tlevel", "tl" -> String.valueOf(tlevel);
                        case "job", "j" -> String.valueOf(pid);
                        case "username" -> owner;
                        case "zversion", "zv" -> ZVERSION;
                        case "roles" -> ROLES;
                        case "x" -> String.valueOf(column);
                        case "test", "t" -> dollarTest;
                        default -> throw error("<SYNTAX>", "");
                    };
                } finally {
                    lock.unlock();
                }
            }
            String n = c.name();
            if (n.isEmpty()) {
                throw error("<SYNTAX>", "");
            }
            String v = vars.get(n);
            if (v == null) {
                throw error("<UNDEFINED>", "*" + n);
            }
            return v;
        }
    }

    /** ObjectScript's canonical number: no trailing zeros, no leading zero before the point. */
    static String canonical(BigDecimal n) {
        if (n.signum() == 0) {
            return "0";
        }
        String s = n.stripTrailingZeros().toPlainString();
        if (s.startsWith("0.")) {
            return s.substring(1);
        }
        if (s.startsWith("-0.")) {
            return "-" + s.substring(2);
        }
        return s;
    }

    /** ObjectScript's numeric interpretation of a string: its leading number, else 0. */
    static BigDecimal toNumber(String s) {
        Matcher m = Pattern.compile("^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)").matcher(s.strip());
        return m.find() ? new BigDecimal(m.group().replace("+", "")) : BigDecimal.ZERO;
    }

    private static String quoteIfString(String v) {
        return v.matches("-?(\\d+(\\.\\d+)?|\\.\\d+)") && canonical(new BigDecimal(v)).equals(v)
                ? v : "\"" + v.replace("\"", "\"\"") + "\"";
    }

    /** A position in a command line or argument. */
    private static final class Cursor {
        private final String s;
        private int p;

        Cursor(String s) {
            this.s = s;
        }

        boolean atEnd() {
            return p >= s.length();
        }

        char peek() {
            return atEnd() ? '\0' : s.charAt(p);
        }

        void next() {
            p++;
        }

        boolean eat(char ch) {
            if (peek() == ch && !atEnd()) {
                p++;
                return true;
            }
            return false;
        }

        boolean startsWith(String t) {
            return s.startsWith(t, p);
        }

        void skipSpaces() {
            while (!atEnd() && s.charAt(p) == ' ') {
                p++;
            }
        }

        /** Letters (a command or $function name). */
        String word() {
            int b = p;
            while (!atEnd() && Character.isLetter(s.charAt(p))) {
                p++;
            }
            return s.substring(b, p);
        }

        /** A local variable name: [%]letter{letter|digit}. */
        String name() {
            int b = p;
            if (peek() == '%') {
                p++;
            }
            if (!atEnd() && Character.isLetter(s.charAt(p))) {
                while (!atEnd() && Character.isLetterOrDigit(s.charAt(p))) {
                    p++;
                }
                return s.substring(b, p);
            }
            p = b;
            return "";
        }

        /** A command's argument: up to the next space outside a string literal. */
        String argument() {
            int b = p;
            boolean quoted = false;
            while (!atEnd() && (quoted || s.charAt(p) != ' ')) {
                if (s.charAt(p) == '"') {
                    quoted = !quoted; // "" inside a literal toggles twice
                }
                p++;
            }
            return s.substring(b, p);
        }

        /** A string literal at the cursor, its value; null if unterminated. */
        String string() {
            StringBuilder v = new StringBuilder();
            p++; // opening quote
            while (!atEnd()) {
                char ch = s.charAt(p++);
                if (ch == '"') {
                    if (peek() == '"' && !atEnd()) {
                        v.append('"');
                        p++;
                    } else {
                        return v.toString();
                    }
                } else {
                    v.append(ch);
                }
            }
            return null;
        }

        /** A numeric literal, or null. */
        String number() {
            Matcher m = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)").matcher(s).region(p, s.length());
            if (!m.lookingAt()) {
                return null;
            }
            p = m.end();
            return m.group().replace("+", "");
        }
    }

    // ------------------------------------------------------------------------------------ SQL

    /**
     * A very small SQL: {@code SELECT <constants> [AS alias]}, and {@code SELECT * | ID, Name
     * FROM Sample.Person [WHERE ID|Name =|<>|<|>|<=|>= ?|literal] [ORDER BY col [ASC|DESC]]},
     * the table existing in USER and SAMPLES. Unknown table: SQLCODE -30; unknown column: -29;
     * anything else: -1.
     */
    private static final class Sql {
        private record Column(String name, String type) {
        }

        private static final List<Column> PERSON = List.of(new Column("ID", "INTEGER"), new Column("Name", "VARCHAR"));
        private static final List<Object[]> PEOPLE = List.of(
                new Object[]{1, "Alice"}, new Object[]{2, "Bob"}, new Object[]{3, "Carol"},
                new Object[]{4, "Dave"}, new Object[]{5, "Eve"});

        private static final Pattern SELECT = Pattern.compile(
                "(?is)^SELECT\\s+(?<list>.+?)(?:\\s+FROM\\s+(?<table>[%\\w.]+)"
                        + "(?:\\s+WHERE\\s+(?<col>\\w+)\\s*(?<op><>|<=|>=|=|<|>)\\s*(?<val>\\?|-?\\d+|'(?:[^']|'')*'))?"
                        + "(?:\\s+ORDER\\s+BY\\s+(?<ord>\\w+)(?:\\s+(?<dir>ASC|DESC))?)?)?\\s*;?\\s*$");
        private static final Pattern ITEM = Pattern.compile(
                "(?is)^\\s*(?<expr>\\*|-?\\d+|'(?:[^']|'')*'|\\?|[%\\w]+)(?:\\s+AS\\s+(?<alias>\\w+))?\\s*$");

        static ObjectNode run(Req req) {
            String query = req.str("query", true);
            long maxRows = req.num("max_rows", 100, 0, Integer.MAX_VALUE);
            String ns = req.str("namespace", false);
            ns = ns == null || ns.isEmpty() ? "USER" : ns.toUpperCase(Locale.ROOT);
            JsonNode params = req.node().get("params");
            if (params != null && !params.isNull() && !params.isArray()) {
                throw new Fault("BAD_REQUEST", "\"params\" must be an array");
            }
            List<JsonNode> args = new ArrayList<>();
            if (params != null && params.isArray()) {
                params.values().forEach(args::add);
            }
            if (!NAMESPACES.contains(ns)) {
                return failure(-400, "Namespace " + ns + " does not exist");
            }
            Matcher m = SELECT.matcher(query.strip());
            if (!m.matches()) {
                return failure(-1, "Invalid SQL statement: " + query.strip());
            }
            int[] nextParam = {0};
            List<String> items = splitList(m.group("list"));
            List<Column> columns = new ArrayList<>();
            List<Object[]> rows = new ArrayList<>();
            if (m.group("table") == null) {
                Object[] row = new Object[items.size()];
                for (int i = 0; i < items.size(); i++) {
                    Matcher im = ITEM.matcher(items.get(i));
                    if (!im.matches() || im.group("expr").equals("*")) {
                        return failure(-1, "Invalid SQL statement: " + query.strip());
                    }
                    String e = im.group("expr");
                    Object v;
                    if (e.equals("?")) {
                        v = value(args, nextParam[0]++);
                    } else if (e.startsWith("'") || e.matches("-?\\d+")) {
                        v = literal(e);
                    } else {
                        return failure(-29, "Field '" + e.toUpperCase(Locale.ROOT) + "' not found in the applicable tables");
                    }
                    String alias = im.group("alias");
                    columns.add(new Column(alias != null ? alias : "Expression_" + (i + 1),
                            v instanceof Number ? "INTEGER" : "VARCHAR"));
                    row[i] = v;
                }
                rows.add(row);
            } else {
                String table = m.group("table");
                if (!table.equalsIgnoreCase("Sample.Person") || !(ns.equals("USER") || ns.equals("SAMPLES"))) {
                    return failure(-30, "Table '" + table + "' not found");
                }
                List<Integer> pick = new ArrayList<>();
                for (String item : items) {
                    Matcher im = ITEM.matcher(item);
                    if (!im.matches()) {
                        return failure(-1, "Invalid SQL statement: " + query.strip());
                    }
                    if (im.group("expr").equals("*")) {
                        for (int i = 0; i < PERSON.size(); i++) {
                            pick.add(i);
                            columns.add(PERSON.get(i));
                        }
                        continue;
                    }
                    int col = column(im.group("expr"));
                    if (col < 0) {
                        return failure(-29, "Field '" + im.group("expr").toUpperCase(Locale.ROOT)
                                + "' not found in the applicable tables");
                    }
                    pick.add(col);
                    String alias = im.group("alias");
                    columns.add(alias == null ? PERSON.get(col) : new Column(alias, PERSON.get(col).type()));
                }
                int where = -1;
                Object operand = null;
                if (m.group("col") != null) {
                    where = column(m.group("col"));
                    if (where < 0) {
                        return failure(-29, "Field '" + m.group("col").toUpperCase(Locale.ROOT)
                                + "' not found in the applicable tables");
                    }
                    String val = m.group("val");
                    operand = val.equals("?") ? value(args, nextParam[0]++) : literal(val);
                }
                List<Object[]> matching = new ArrayList<>();
                for (Object[] person : PEOPLE) {
                    if (where < 0 || holds(person[where], m.group("op"), operand)) {
                        matching.add(person);
                    }
                }
                if (m.group("ord") != null) {
                    int ord = column(m.group("ord"));
                    if (ord < 0) {
                        return failure(-29, "Field '" + m.group("ord").toUpperCase(Locale.ROOT)
                                + "' not found in the applicable tables");
                    }
                    Comparator<Object[]> by = (a, b) -> compare(a[ord], b[ord]);
                    matching.sort("DESC".equalsIgnoreCase(m.group("dir")) ? by.reversed() : by);
                }
                for (Object[] person : matching) {
                    Object[] row = new Object[pick.size()];
                    for (int i = 0; i < pick.size(); i++) {
                        row[i] = person[pick.get(i)];
                    }
                    rows.add(row);
                }
            }
            ObjectNode o = MAPPER.createObjectNode();
            ArrayNode cols = o.putArray("columns");
            for (Column c : columns) {
                cols.addObject().put("name", c.name()).put("type", c.type());
            }
            ArrayNode out = o.putArray("rows");
            int n = (int) Math.min(maxRows, rows.size());
            for (int i = 0; i < n; i++) {
                ArrayNode r = out.addArray();
                for (Object v : rows.get(i)) {
                    if (v == null) {
                        r.addNull();
                    } else if (v instanceof Number num) {
                        r.add(num.longValue());
                    } else {
                        r.add(v.toString());
                    }
                }
            }
            o.put("row_count", n);
            o.put("truncated", rows.size() > n ? 1 : 0);
            o.put("sqlcode", 0);
            o.put("message", "");
            return o;
        }

        private static ObjectNode failure(int sqlcode, String message) {
            ObjectNode o = MAPPER.createObjectNode();
            o.putArray("columns");
            o.putArray("rows");
            o.put("row_count", 0);
            o.put("truncated", 0);
            o.put("sqlcode", sqlcode);
            o.put("message", message);
            return o;
        }

        private static List<String> splitList(String list) {
            List<String> items = new ArrayList<>();
            StringBuilder cur = new StringBuilder();
            boolean quoted = false;
            for (char ch : list.toCharArray()) {
                if (ch == '\'') {
                    quoted = !quoted;
                }
                if (ch == ',' && !quoted) {
                    items.add(cur.toString());
                    cur.setLength(0);
                } else {
                    cur.append(ch);
                }
            }
            items.add(cur.toString());
            return items;
        }

        private static int column(String name) {
            for (int i = 0; i < PERSON.size(); i++) {
                if (PERSON.get(i).name().equalsIgnoreCase(name)) {
                    return i;
                }
            }
            return -1;
        }

        private static Object literal(String text) {
            if (text.startsWith("'")) {
                return text.substring(1, text.length() - 1).replace("''", "'");
            }
            return Long.parseLong(text);
        }

        /** The i-th ? parameter; a missing one is NULL. */
        private static Object value(List<JsonNode> args, int i) {
            if (i >= args.size() || args.get(i).isNull()) {
                return null;
            }
            JsonNode v = args.get(i);
            if (v.isIntegralNumber()) {
                return v.longValue();
            }
            return v.asString();
        }

        private static boolean holds(Object cell, String op, Object operand) {
            if (cell == null || operand == null) {
                return false; // SQL: comparisons with NULL are never true
            }
            int c = compare(cell, operand);
            return switch (op) {
                case "=" -> c == 0;
                case "<>" -> c != 0;
                case "<" -> c < 0;
                case ">" -> c > 0;
                case "<=" -> c <= 0;
                default -> c >= 0;
            };
        }

        /** Numbers compare as numbers (a numeric string parameter too), everything else as text. */
        private static int compare(Object a, Object b) {
            BigDecimal x = numeric(a);
            BigDecimal y = numeric(b);
            if (x != null && y != null) {
                return x.compareTo(y);
            }
            return a.toString().compareTo(b.toString());
        }

        private static BigDecimal numeric(Object v) {
            if (v instanceof Number n) {
                return BigDecimal.valueOf(n.longValue());
            }
            String s = v.toString();
            return s.matches("-?\\d+(\\.\\d+)?") ? new BigDecimal(s) : null;
        }
    }
}
