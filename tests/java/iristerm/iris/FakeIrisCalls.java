package iristerm.iris;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An in-memory stand-in for {@code Terminal.Session} and the session jobs it starts, answering
 * exactly as docs/iris-contract.md says, so Java can be tested against every state of the link
 * without an IRIS instance.
 *
 * <p><b>What is simulated.</b> Open starts a job on its own daemon thread, as the real JOB runs
 * independently of its caller: it connects to the host and port Open names, sends its hello with
 * the ticket, and then speaks the link: it writes the prompt, the echoed command and the output with
 * marks in it, and takes the lines Java sends ({@code x}, {@code a}, {@code q}, {@code bye}). It does
 * not interpret ObjectScript; it understands a small vocabulary (one line may hold several commands
 * separated by a space, as in ObjectScript; abbreviations work):
 * <ul>
 * <li>{@code write} / {@code w}: {@code !} is a new line ({@code \r\n}); arguments are expressions;
 *     no argument lists the variables. Expressions: {@code "string"} ({@code ""} escapes a quote),
 *     numbers (canonical: {@code 1.50} is {@code 1.5}, {@code 0.5} is {@code .5}), variables,
 *     {@code $namespace}, {@code $tlevel}, {@code $job}, {@code $username}, {@code $roles}
 *     ({@link #ROLES}), {@code $zversion}, {@code $x} (the column), {@code $test},
 *     {@code $char(n)} / {@code $c(n)}, joined with {@code _} or added with {@code +} (left to
 *     right). {@code ?n} moves to column n with spaces. An undefined variable raises
 *     {@code <UNDEFINED>} with info {@code *name}.</li>
 * <li>{@code set} / {@code s} {@code name=expr[,name=expr]}; {@code set $namespace="NS"} switches
 *     namespace; {@code kill} / {@code k} [{@code name,...}].</li>
 * <li>{@code read} / {@code r}: {@code read x}, {@code read x#5}, {@code read x:10} (timeout seconds;
 *     on timeout {@code x=""}), {@code read *c} (one character; {@code c} is its code, 13 for an empty
 *     answer, -1 on timeout), and {@code "prompt"} / {@code !} arguments: a {@code read} mark, then the
 *     {@code a} line for that READ answers it (echoed unless {@code echo:false}), and a {@code readend}
 *     mark. A READ with a timeout sets {@code $test}.</li>
 * <li>{@code hang N} / {@code h N}: sleeps N seconds (decimals allowed); Signal INT ends the command
 *     with {@code <INTERRUPT>} (or the name {@link #interruptAs} gives), as it does a READ.</li>
 * <li>{@code zn "NS"} / {@code set $namespace="NS"}: namespaces USER, %SYS and SAMPLES exist; another
 *     name raises {@code <NAMESPACE>} with info {@code *NS}.</li>
 * <li>{@code tstart} / {@code ts}, {@code tcommit} / {@code tc} ({@code <COMMIT>} at level 0),
 *     {@code trollback} / {@code tro}: the transaction level is shown in the prompt ({@code TL1:USER>}).</li>
 * <li>{@code halt} (or {@code h} without argument): the job closes its link without a {@code bye}.</li>
 * <li>{@code do ##class(Terminal.SQL).Run("",…)} fails inside that routine: {@code <INVALID OREF>}
 *     at {@code zRun+1^Terminal.SQL.1} with that line as its source; any other {@code do} raises
 *     {@code <SYNTAX>}.</li>
 * <li>{@code quit} / {@code q} ends the line; {@code //} or {@code ;} starts a comment; any other
 *     command raises {@code <SYNTAX>}.</li>
 * </ul>
 * Errors decompose as the engine does them: code {@code <UNDEFINED>}, location {@code x+N^%Fake}
 * (N = line of the unit), info {@code *name}, text {@code <UNDEFINED>x+1^%Fake *name}, source = the
 * line; the error text follows the {@code done} mark on its own line, before the next prompt.
 * A statement ({@code q}) writes nothing: a {@code start} mark, a {@code sql} mark, then a {@code prompt}
 * mark.
 *
 * <p><b>Observing.</b> {@link #journal()} lists, in order, every Audit this instance recorded and every
 * line a job received, so a test can check that input was audited before it reached the job.
 * {@link #failAudits}, {@link #ignoreBye}, {@link #delayStarts}, {@link #tamperHello} and {@link #tamper} make
 * the instance misbehave in one chosen way. One instance is one connection as one IRIS user; {@link #asUser} gives
 * another connection to the same simulated instance. {@link #shutdown()} ends every job.
 *
 * <p>Everything is thread-safe; every wait is bounded and re-checks its condition after a wake-up.
 */
public final class FakeIrisCalls implements IrisCalls {
    /** Namespaces the fake instance has. */
    public static final Set<String> NAMESPACES = Set.of("USER", "%SYS", "SAMPLES");
    /** The routine name errors point into. */
    public static final String ROUTINE = "%Fake";
    /** The instance ($SYSTEM, "node:INSTANCE"). */
    public static final String INSTANCE = "fakehost:IRIS";
    /** What Ping reports as {@code $ROLES}, and {@code $roles} in a session. */
    public static final String ROLES = "%Developer";
    /** What Ping reports as {@code $ZVERSION}. */
    public static final String ZVERSION = "IRIS for UNIX (FakeIrisCalls) 2025.1 (Build 0)";

    private static final long STOP_WAIT_MS = 5_000;
    /** A job waiting for input wakes at least this often to re-check (a lost signal costs a tick). */
    private static final long JOB_TICK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final World world;
    private final String user;
    private volatile boolean closed;

    /** A new simulated instance, connected as {@code user} (who owns the jobs it opens). */
    public FakeIrisCalls(String user) {
        this(new World(), user);
    }

    private FakeIrisCalls(World world, String user) {
        this.world = world;
        this.user = user;
    }

    /** Another connection to the same instance, as {@code user}. */
    public FakeIrisCalls asUser(String user) {
        return new FakeIrisCalls(world, user);
    }

    public String user() {
        return user;
    }

    /** The next call fails as a dropped connection does. */
    public void dropConnection() {
        world.dropBefore.incrementAndGet();
    }

    /** Rewrites requests or answers: one way to misbehave, chosen by a test. */
    public interface Tamper {
        default String request(IrisMethod method, String request) {
            return request;
        }

        default String answer(IrisMethod method, String request, String answer) {
            return answer;
        }
    }

    public void tamper(Tamper tamper) {
        world.tamper = tamper;
    }

    /** Audit answers AUDIT_FAILED with {@code message} (null: records again). */
    public void failAudits(String message) {
        world.auditFailure = message;
    }

    /** Audit answers {@code audited: 0}, as IRIS does where the instance does not audit or the event is disabled. */
    public void keepNoAuditRecords() {
        world.auditsKept = false;
    }

    /**
     * Jobs wait {@code millis} between taking a command and starting it (its {@code start} mark), as a busy
     * instance may; a kill still ends them at once.
     */
    public void delayStarts(long millis) {
        world.startDelayNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** The error an INT raises in the jobs ({@code <INTERRUPT>} unless told), as an instance may name it. */
    public void interruptAs(String code) {
        world.interruptCode = code;
    }

    /** Jobs take {@code bye} and go on waiting, as a job stuck in user code would. */
    public void ignoreBye(boolean ignore) {
        world.ignoreBye = ignore;
    }

    /** Rewrites the hello each new job sends (e.g. to refuse, or to name another pid). */
    public void tamperHello(UnaryOperator<ObjectNode> change) {
        world.hello = change;
    }

    /** Rewrites what the link brings a job (the code of x, the text of a, the query of q) before the job sees it. */
    public void tamperLink(UnaryOperator<String> change) {
        world.link = change;
    }

    /** Waits, at most {@code millis}, for every job to end; how many still run. */
    public int awaitJobsEnded(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (Job j : world.jobs.values()) {
            try {
                j.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return liveJobs();
    }

    /** Every Audit ("audit KIND [secret] TEXT") and every line a job received ("job T TEXT"), in order. */
    public List<String> journal() {
        return List.copyOf(world.journal);
    }

    public int calls(IrisMethod method) {
        return world.counts.get(method.ordinal());
    }

    /** How many jobs are running. */
    public int liveJobs() {
        return (int) world.jobs.values().stream().filter(j -> j.thread.isAlive()).count();
    }

    /** The job with this pid, for tests that make it misbehave, or null. */
    public Job job(long pid) {
        return world.jobs.get((int) pid);
    }

    /** Ends every job (bounded) and fails later calls. */
    public void shutdown() {
        closed = true;
        for (Job j : world.jobs.values()) {
            j.kill();
        }
        for (Job j : world.jobs.values()) {
            j.awaitThread();
        }
    }

    @Override
    public String call(IrisMethod method, String requestJson) {
        world.counts.incrementAndGet(method.ordinal());
        if (closed) {
            throw new IrisUnavailableException("fake IRIS is shut down", null);
        }
        if (world.dropBefore.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new IrisUnavailableException("fake IRIS: connection dropped", null);
        }
        String request = world.tamper.request(method, requestJson);
        return world.tamper.answer(method, request, answer(method, request));
    }

    @Override
    public String describe() {
        return "fake IRIS as " + user;
    }

    private static final class World {
        final Map<Integer, Job> jobs = new ConcurrentHashMap<>();
        final AtomicInteger nextPid = new AtomicInteger(40_000);
        final AtomicIntegerArray counts = new AtomicIntegerArray(IrisMethod.values().length);
        final AtomicInteger dropBefore = new AtomicInteger();
        final List<String> journal = new CopyOnWriteArrayList<>();
        volatile Tamper tamper = new Tamper() {
        };
        volatile String auditFailure;
        volatile boolean auditsKept = true;
        volatile boolean ignoreBye;
        volatile long startDelayNanos;
        volatile String interruptCode = "<INTERRUPT>";
        volatile UnaryOperator<ObjectNode> hello = h -> h;
        volatile UnaryOperator<String> link = t -> t;
    }

    // ------------------------------------------------------------------------------ the methods

    private String answer(IrisMethod method, String requestJson) {
        ObjectNode out;
        try {
            Req req = Req.parse(requestJson);
            out = switch (method) {
                case PING -> ping(req);
                case OPEN -> open(req);
                case SIGNAL -> signal(req);
                case AUDIT -> audit(req);
            };
        } catch (Fault f) {
            out = f.toJson();
        } catch (RuntimeException e) {
            // the real class catches everything and answers INTERNAL; never a thrown error
            out = new Fault("INTERNAL", "fake IRIS failed: " + e).toJson();
        }
        return MAPPER.writeValueAsString(out);
    }

    private ObjectNode ping(Req req) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("version", "2");
        o.put("user", user);
        o.put("roles", ROLES);
        o.put("namespace", "USER");
        o.put("iris", ZVERSION);
        o.put("instance", INSTANCE);
        if (req.flag("check", false)) {
            ArrayNode checks = o.putArray("checks");
            for (String c : List.of("version", "bridge role held", "roles dropped", "audit event enabled")) {
                checks.addObject().put("check", c).put("ok", true).put("detail", "fake");
            }
        }
        return o;
    }

    private ObjectNode open(Req req) {
        String host = req.str("host", true);
        long port = req.num("port", -1, 1, 65535);
        String ticket = req.str("ticket", true);
        if (!ticket.matches("[A-Za-z0-9_-]{43}")) {
            throw new Fault("BAD_REQUEST", "\"ticket\" must be 43 base64url characters");
        }
        String ns = req.str("namespace", false);
        ns = ns == null || ns.isEmpty() ? "USER" : ns.toUpperCase(Locale.ROOT);
        if (!NAMESPACES.contains(ns)) {
            throw new Fault("BAD_REQUEST", "namespace " + ns + " does not exist");
        }
        Job job = new Job(world.nextPid.incrementAndGet(), user, host, (int) port, ticket, ns);
        world.jobs.put(job.pid, job);
        job.thread.start();
        ObjectNode o = MAPPER.createObjectNode();
        o.put("pid", job.pid);
        o.put("namespace", ns);
        return o;
    }

    private ObjectNode signal(Req req) {
        long pid = req.num("pid", -1, 1, Integer.MAX_VALUE);
        String signal = req.str("signal", true);
        Job job = world.jobs.get((int) pid);
        if (job == null || !job.thread.isAlive()) {
            throw new Fault("GONE", "no process " + pid);
        }
        switch (signal) {
            case "INT" -> job.interrupt();
            case "KILL" -> job.kill();
            default -> throw new Fault("BAD_REQUEST", "\"signal\" must be INT or KILL");
        }
        return MAPPER.createObjectNode().put("sent", 1).put("user", user);
    }

    private ObjectNode audit(Req req) {
        String kind = req.str("kind", true);
        if (!List.of("command", "answer", "sql").contains(kind)) {
            throw new Fault("BAD_REQUEST", "\"kind\" must be command, answer or sql");
        }
        req.str("session", true);
        req.str("agent", true);
        req.str("namespace", true);
        String text = req.str("text", true);
        boolean secret = req.flag("secret", false) && kind.equals("answer");
        if (world.auditFailure != null) {
            throw new Fault("AUDIT_FAILED", world.auditFailure);
        }
        world.journal.add("audit " + kind + (secret ? " secret " + text.length() : " " + text));
        return MAPPER.createObjectNode().put("audited", world.auditsKept ? 1 : 0).put("user", user);
    }

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

    /** Ends the job thread: HALT, bye, a kill, the link gone. */
    private static final class JobEnd extends RuntimeException {
        JobEnd(String reason) {
            super(reason, null, false, false);
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

    /**
     * One session job: connects to the link, says hello, then runs what the link sends. Its state
     * is guarded by {@link #lock}; every change signals {@link #changed}, which the job waits on.
     */
    public final class Job implements Runnable {
        final int pid;
        final String owner;
        final String host;
        final int port;
        final String ticket;
        final String mark = HexFormat.of().formatHex(RANDOM.generateSeed(8));
        final Thread thread;
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        private final Object writing = new Object();
        private volatile Socket socket;
        private OutputStream out;

        // guarded by lock
        private final Deque<JsonNode> inbox = new ArrayDeque<>();
        private boolean linkGone;
        private boolean interruptsOn;
        private boolean interrupt;
        private String endReason;
        private String namespace;
        private int tlevel;
        private int column;

        // job thread only
        private final Map<String, String> vars = new TreeMap<>();
        private String dollarTest = "0";
        private long cmdSeq;
        private long readNo;
        private String curLine = "";
        private int curLineNo;

        Job(int pid, String owner, String host, int port, String ticket, String namespace) {
            this.pid = pid;
            this.owner = owner;
            this.host = host;
            this.port = port;
            this.ticket = ticket;
            this.namespace = namespace;
            this.thread = new Thread(this, "fake-iris-job-" + pid);
            thread.setDaemon(true);
        }

        // ----- from Signal

        /** INT: honoured only while a command runs (interrupts are off at the prompt). */
        void interrupt() {
            lock.lock();
            try {
                if (interruptsOn) {
                    interrupt = true;
                    changed.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }

        /** KILL (Terminate): the job ends now, whatever it does. */
        public void kill() {
            lock.lock();
            try {
                endReason = "killed";
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            Socket s = socket;
            if (s != null) {
                closeQuietly(s);
            }
        }

        /** Writes a mark whose JSON is {@code json}, as a broken job could; whether the link took it all. */
        public boolean writeMark(String json) {
            try {
                raw("\u001b]7715;" + mark + ";" + json + "\u0007");
                return true;
            } catch (JobEnd linkGone) {
                return false;
            }
        }

        void awaitThread() {
            try {
                thread.join(STOP_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        // ----- the job thread

        @Override
        public void run() {
            try {
                Socket s = new Socket(host, port);
                socket = s;
                out = s.getOutputStream();
                ObjectNode hello = MAPPER.createObjectNode().put("ticket", ticket).put("pid", pid).put("user", owner)
                        .put("roles", ROLES).put("namespace", namespace).put("iris", ZVERSION)
                        .put("instance", INSTANCE).put("mark", mark);
                hello = world.hello.apply(hello);
                raw(MAPPER.writeValueAsString(hello) + "\n");
                if (hello.has("refused")) {
                    return;
                }
                Thread reader = new Thread(() -> readLink(s), "fake-iris-link-" + pid);
                reader.setDaemon(true);
                reader.start();
                prompt();
                while (true) {
                    take(next());
                }
            } catch (JobEnd | IOException e) {
                // halted, killed, told to end, or the link is gone: the job ends with its link
            } finally {
                Socket s = socket;
                if (s != null) {
                    closeQuietly(s);
                }
            }
        }

        /** The link's lines, as the job's TCP device would read them. */
        private void readLink(Socket s) {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    ObjectNode n = (ObjectNode) MAPPER.readTree(line);
                    for (String field : List.of("code", "text", "query")) {
                        if (n.path(field).isString()) {
                            n.put(field, world.link.apply(n.path(field).asString()));
                        }
                    }
                    lock.lock();
                    try {
                        inbox.addLast(n);
                        changed.signalAll();
                    } finally {
                        lock.unlock();
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the link is gone
            } finally {
                lock.lock();
                try {
                    linkGone = true;
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }

        /** Waits at the prompt for the next line from the link. */
        private JsonNode next() {
            lock.lock();
            try {
                while (true) {
                    checkEnd();
                    JsonNode n = inbox.pollFirst();
                    if (n != null) {
                        return n;
                    }
                    if (linkGone) {
                        throw new JobEnd("link");
                    }
                    jobAwait(JOB_TICK_NANOS);
                }
            } finally {
                lock.unlock();
            }
        }

        private void take(JsonNode in) {
            String t = in.path("t").asString("");
            switch (t) {
                case "x" -> {
                    world.journal.add("job x " + in.path("code").asString(""));
                    execute(in.path("n").asLong(), in.path("code").asString(""), in.path("echo").asBoolean(true));
                }
                case "q" -> {
                    world.journal.add("job q " + in.path("query").asString(""));
                    statement(in);
                }
                case "bye" -> bye();
                default -> {
                    // an answer for a READ that no longer waits is dropped
                }
            }
        }

        private void bye() {
            world.journal.add("job bye");
            if (world.ignoreBye) {
                return;
            }
            mark(MAPPER.createObjectNode().put("e", "bye").put("reason", "close"));
            throw new JobEnd("close");
        }

        /** Runs one command unit: echo, start mark, output, done mark, error text, the next prompt. */
        private void execute(long n, String code, boolean echo) {
            List<String> lines = List.of(code.split("\r\n|\r|\n", -1));
            if (echo) {
                for (String line : lines) {
                    emit(line + "\r\n");
                }
            }
            lock.lock();
            try {
                for (long left = world.startDelayNanos; left > 0; ) {
                    checkEnd();
                    left = jobAwait(left);
                }
                // an interrupt IRIS kept from before the command arrives now and is dropped
                interrupt = false;
                interruptsOn = true;
            } finally {
                lock.unlock();
            }
            cmdSeq = n;
            mark(MAPPER.createObjectNode().put("e", "start").put("n", n));
            long started = System.nanoTime();
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
                interruptsOn = false;
                interrupt = false;
            } finally {
                lock.unlock();
            }
            ObjectNode done = MAPPER.createObjectNode().put("e", "done").put("n", n).put("ns", namespace)
                    .put("tl", tlevel).put("ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            if (error != null) {
                done.set("error", error.toJson());
            }
            mark(done);
            if (column != 0) {
                emit("\r\n");
            }
            if (error != null) {
                emit(error.text() + "\r\n");
            }
            prompt();
        }

        private void statement(JsonNode q) {
            ObjectNode req = MAPPER.createObjectNode().put("query", q.path("query").asString(""))
                    .put("max_rows", q.path("max_rows").asLong(100));
            req.set("params", q.path("params"));
            req.put("namespace", q.path("namespace").asString(namespace));
            mark(MAPPER.createObjectNode().put("e", "start").put("n", q.path("n").asLong()));
            ObjectNode result = Sql.run(new Req(req));
            ObjectNode m = MAPPER.createObjectNode().put("e", "sql").put("n", q.path("n").asLong());
            m.set("result", result);
            mark(m);
            // as the engine's Answered: its prompt, on a fresh line (the one before it still holds the last prompt)
            if (column != 0) {
                emit("\r\n");
            }
            prompt();
        }

        private void prompt() {
            emit((tlevel > 0 ? "TL" + tlevel + ":" : "") + namespace + ">");
            mark(MAPPER.createObjectNode().put("e", "prompt").put("ns", namespace).put("tl", tlevel));
        }

        /** Output as the terminal shows it; the column is kept for $X and the prompt's new line. */
        private void emit(String s) {
            int nl = Math.max(s.lastIndexOf('\n'), s.lastIndexOf('\r'));
            column = nl < 0 ? column + s.length() : s.length() - nl - 1;
            raw(s);
        }

        private void mark(ObjectNode m) {
            raw("\u001b]7715;" + mark + ";" + MAPPER.writeValueAsString(m) + "\u0007");
        }

        /** A write to the link; a link that fails ends the job at once, as the contract says. */
        private void raw(String s) {
            synchronized (writing) {
                try {
                    out.write(s.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } catch (IOException e) {
                    throw new JobEnd("link");
                }
            }
        }

        /** Lock held. A kill ends the job wherever it is. */
        private void checkEnd() {
            if (endReason != null) {
                throw new JobEnd(endReason);
            }
        }

        /** Lock held. An INT that arrived while the command ran raises <INTERRUPT> now. */
        private void checkInterrupt() {
            if (interrupt) {
                interrupt = false;
                throw error(world.interruptCode, "");
            }
        }

        private long jobAwait(long nanos) {
            try {
                return changed.awaitNanos(nanos);
            } catch (InterruptedException e) {
                throw new JobEnd("killed");
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
                        checkEnd();
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

        /** The one class method DO the fake knows, failing as the real Terminal.SQL.Run does on "". */
        private void doCall(String args) {
            if (args.startsWith("##class(Terminal.SQL).Run(\"\"")) {
                throw new OsError("<INVALID OREF>", "", "zRun+1^Terminal.SQL.1", "Set query = req.%Get(\"query\")");
            }
            throw error("<SYNTAX>", "");
        }

        /** WRITE ?n: spaces up to column n. */
        private void tab(int col) {
            lock.lock();
            try {
                if (col > column) {
                    emit(" ".repeat(col - column));
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
         * A READ: a {@code read} mark, then the {@code a} line for this READ answers it (one character
         * of it for {@code READ *c}); a {@code readend} mark says how it ended. Returns null on timeout.
         */
        private String awaitAnswer(boolean single, int len, int timeoutS) {
            long r = ++readNo;
            ObjectNode read = MAPPER.createObjectNode().put("e", "read").put("r", r).put("n", cmdSeq).put("len", len);
            if (timeoutS >= 0) {
                read.put("timeout", timeoutS);
            } else {
                read.putNull("timeout");
            }
            mark(read.put("single", single ? 1 : 0));
            String how = "error";
            // the job ends (bye, a lost link): as the engine's Leave and LinkFailed halt, no readend follows
            boolean ending = false;
            lock.lock();
            try {
                long left = timeoutS < 0 ? Long.MAX_VALUE : TimeUnit.SECONDS.toNanos(timeoutS);
                while (true) {
                    checkEnd();
                    if (interrupt) {
                        how = "interrupt";
                        checkInterrupt();
                    }
                    // as the engine's Input: time is up before anything buffered is looked at (READ x:0 takes nothing)
                    if (left <= 0) {
                        how = "timeout";
                        return null;
                    }
                    JsonNode in = inbox.pollFirst();
                    if (in != null) {
                        String t = in.path("t").asString("");
                        if (t.equals("bye")) {
                            bye();
                        } else if (t.equals("a") && in.path("r").asLong() == r) {
                            world.journal.add("job a " + in.path("text").asString(""));
                            String text = in.path("text").asString("");
                            String got = single ? (text.isEmpty() ? "\r" : text.substring(0, 1))
                                    : len > 0 && text.length() > len ? text.substring(0, len) : text;
                            // as the engine's Input: an answer is echoed, a single character never
                            if (in.path("echo").asBoolean(true) && !single && !got.isEmpty()) {
                                emit(got);
                            }
                            how = "answer";
                            return got;
                        }
                        continue;
                    }
                    if (linkGone) {
                        throw new JobEnd("link");
                    }
                    long slept = Math.min(left, JOB_TICK_NANOS);
                    long rest = jobAwait(slept);
                    if (timeoutS >= 0) {
                        left -= slept - rest;
                    }
                }
            } catch (JobEnd end) {
                ending = true;
                throw end;
            } finally {
                lock.unlock();
                if (!ending) {
                    mark(MAPPER.createObjectNode().put("e", "readend").put("r", r).put("how", how));
                }
            }
        }

        private void hang(String args) {
            BigDecimal seconds = toNumber(whole(new Cursor(args)));
            long left = seconds.signum() <= 0 ? 0 : seconds.movePointRight(9).longValue();
            lock.lock();
            try {
                while (true) {
                    checkEnd();
                    checkInterrupt();
                    if (left <= 0) {
                        return;
                    }
                    long slept = Math.min(left, JOB_TICK_NANOS);
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
                if ((f.equals("c") || f.equals("char")) && c.eat('(')) {
                    String code = expr(c);
                    if (!c.eat(')')) {
                        throw error("<SYNTAX>", "");
                    }
                    return new String(Character.toChars(toNumber(code).intValue()));
                }
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

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing is all that was wanted
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
