package iristerm.doctor;

import iristerm.iris.IrisApi;
import iristerm.iris.IrisCalls;
import iristerm.iris.IrisEngine;
import iristerm.iris.Interrupts;
import iristerm.iris.IrisMethod;
import iristerm.session.SessionException;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import static iristerm.iris.IrisFields.*;

/**
 * A live self-check of everything the Java side relies on in IRIS, run the same way standalone
 * ({@code doctor} over the Native API) and hosted (Terminal.Gateway.Doctor, reentrant on the
 * gateway thread): a fixed list of {@link Check}s, each ending in one {@link Finding}. IRIS is
 * called only on the thread that runs the doctor (hosted, only the gateway thread may call IRIS);
 * the probe session's link has threads of its own, which never call IRIS; every wait ends at a deadline.
 */
public final class Doctor {
    /** The {@code version} Terminal.Session.Ping answers for the classes this jar was built with. */
    public static final String CLASSES_VERSION = "2";
    /** The web application's role (hosted): no agent code may ever run holding it. */
    static final String BRIDGE_ROLE = "IRISTerminal_Bridge";
    /** One command of a check may take this long (a timed READ takes 1 s, an interrupted HANG less). */
    static final long COMMAND_BOUND_MS = 15_000;
    /** A job told to end closes its link at once; one that does not is a failure, found sooner than a stuck command. */
    static final long BYE_BOUND_MS = 5_000;
    /** Open answers within 10 s by contract; the first prompt follows. */
    static final long OPEN_BOUND_MS = 20_000;
    /** The location IRIS gives an error in routine code: label+offset^routine. */
    private static final Pattern ROUTINE_LOCATION = Pattern.compile("[%A-Za-z0-9]*(\\+[0-9]+)?\\^[%A-Za-z][A-Za-z0-9.]*");
    /** A command that fails inside a routine of the Terminal package (SQL.Run dereferences its first argument). */
    static final String ERROR_PROBE = "do ##class(Terminal.SQL).Run(\"\",\"\")";

    /** What a check needs before it can run. */
    enum Need { NOTHING, LOGIN, PING, SESSION }

    /** One check: its name, what it needs, the fix for when it fails, and the probe. */
    record Check(String name, Need need, String fix, Step step) {
    }

    /** Runs a check; returns what was seen when it passed, throws {@link Failure} when not. */
    @FunctionalInterface
    interface Step {
        String run(Probe p);
    }

    /** A check failed: what was seen (and, when it is more precise than the check's own, the fix). */
    static class Failure extends RuntimeException {
        final String fix;

        Failure(String seen) {
            this(seen, null);
        }

        Failure(String seen, String fix) {
            super(seen, null, false, false);
            this.fix = fix;
        }
    }

    /** A command did not end in time: the session is busy, so the checks after it cannot use it. */
    static final class Stuck extends Failure {
        Stuck(String seen) {
            super(seen);
        }
    }

    /** How to reach IRIS and how to install the classes there, as this mode does it. */
    public record Setting(Supplier<IrisCalls> connect, String install) {
    }

    /** What the checks share as they run in order. */
    static final class Probe {
        final Setting setting;
        IrisCalls calls;
        IrisApi api;
        /** Ping's answer, or null if it failed ({@link #pingFailure} says why) */
        JsonNode ping;
        String pingFailure;
        ProbeSession session;
        boolean sessionBusy;

        Probe(Setting setting) {
            this.setting = setting;
        }
    }

    private Doctor() {
    }

    /** Runs every check in order and ends what it started (the session, the connection). */
    public static Report run(Setting setting) {
        // the calling thread is the one that may call IRIS (hosted: the gateway thread)
        return IrisApi.serving(() -> runChecks(setting));
    }

    private static Report runChecks(Setting setting) {
        Probe p = new Probe(setting);
        List<Finding> findings = new ArrayList<>();
        try {
            for (Check c : checks(setting)) {
                findings.add(run(c, p));
            }
        } finally {
            if (p.session != null) {
                try {
                    p.session.close(true);
                } catch (RuntimeException e) {
                    // the close check already failed and said why; the job ends with its link
                }
            }
            if (p.calls != null) {
                p.calls.close();
            }
        }
        return new Report(findings);
    }

    private static Finding run(Check c, Probe p) {
        String missing = switch (c.need()) {
            case NOTHING -> null;
            case LOGIN -> p.api == null ? "no connection to IRIS (see above)" : null;
            case PING -> p.ping == null ? "the Terminal classes do not answer (see above)" : null;
            case SESSION -> p.session == null ? "no session is open (see above)"
                    : p.sessionBusy ? "the session is still busy with a command of an earlier check" : null;
        };
        if (missing != null) {
            return Finding.failed(c.name(), "not run: " + missing, "fix the first failure above, then run doctor again");
        }
        try {
            return Finding.passed(c.name(), c.step().run(p));
        } catch (Failure f) {
            if (f instanceof Stuck) {
                p.sessionBusy = true;
            }
            return Finding.failed(c.name(), f.getMessage(), f.fix != null ? f.fix : c.fix());
        } catch (RuntimeException e) {
            // an API fault or IRIS out of reach (SessionException), or anything else: reported by its message,
            // so that one broken check never hides the others
            return Finding.failed(c.name(), e.getMessage() == null ? "failed without a message" : e.getMessage(), c.fix());
        }
    }

    static List<Check> checks(Setting setting) {
        String install = setting.install();
        String session = "see the session's failure above; the Terminal classes must be those of this jar (" + install + ")";
        return List.of(
                new Check("login and privileges", Need.NOTHING, "check the host, superserver port, namespace, user and "
                        + "password; the user needs %Service_Bindings:USE to connect and READ on the namespace's "
                        + "databases", Doctor::login),
                new Check("Terminal classes", Need.LOGIN, "install the classes of this jar: " + install, Doctor::classes),
                new Check("IRIS side", Need.PING, "read the failing part's detail; as an administrator, run "
                        + install + " again (it enables the audit event and sets up the web application's role)",
                        Doctor::irisSide),
                new Check("open a session", Need.PING, "read the message: START_FAILED says why the job did not "
                        + "start or did not connect back (the IRIS host must reach this server's link address: "
                        + "standalone, set it with --iris-link HOST[:PORT])", Doctor::open),
                new Check("write 1+1", Need.SESSION, session,
                        p -> expectOutput(p, "write 1+1", "2")),
                new Check("$X after write ?10", Need.SESSION, "the device's $X is wrong under redirected output; "
                        + "report it with the IRIS version ($ZVERSION)",
                        p -> expectOutput(p, "write ?10,$x", " ".repeat(10) + "10")),
                new Check("variable kept between commands", Need.SESSION, session, Doctor::variable),
                new Check("READ answered", Need.SESSION, "a READ inside a command must read its answer from the "
                        + "link; reinstall the classes of this jar (" + install + ")", Doctor::readAnswered),
                new Check("READ with timeout", Need.SESSION, session, Doctor::readTimeout),
                new Check("INT interrupts", Need.SESSION, "interrupting the session's job needs %Admin_Operate:USE "
                        + "(hosted: the web application's role holds it; standalone: give it to this user)",
                        Doctor::interrupt),
                new Check("ZN and back", Need.SESSION, "the user needs READ on the other namespace's databases; "
                        + "check its roles", Doctor::namespaces),
                new Check("transaction level", Need.SESSION, session, Doctor::transactions),
                new Check("error with its source line", Need.SESSION, "compile the Terminal classes keeping their "
                        + "generated code (flag k), so $TEXT finds the source line", Doctor::error),
                new Check("SQL", Need.SESSION, "the user needs SQL privileges in the namespace; read the message",
                        Doctor::sql),
                new Check("runs as the caller", Need.SESSION, "user code must run as the user who opened the session "
                        + "and without the web application's role; reinstall the classes of this jar (" + install + ")",
                        Doctor::identity),
                new Check("close ends the job", Need.SESSION, session, Doctor::close));
    }

    // ---------------------------------------------------------------------------- the checks

    private static String login(Probe p) {
        p.calls = p.setting.connect().get();
        p.api = new IrisApi(p.calls);
        try {
            p.ping = p.api.call(IrisMethod.PING, IrisApi.request().put("check", true));
        } catch (IrisApi.Fault f) {
            // Terminal.Session ran as this user and refused: the login itself worked
            p.pingFailure = f.getMessage();
            return "logged in at " + p.calls.describe() + " (Ping refused; see the next line)";
        } catch (SessionException e) {
            if (classMissing(e.getMessage())) {
                p.pingFailure = e.getMessage();
                return "logged in at " + p.calls.describe() + " (Terminal.Session is missing; see the next line)";
            }
            throw e;
        }
        return "logged in at " + p.calls.describe() + " as " + p.ping.path(USER).asString("?") + ", roles "
                + orNone(p.ping.path(ROLES).asString("")) + "; " + p.ping.path(IRIS).asString("");
    }

    private static boolean classMissing(String message) {
        return message != null && (message.contains("<CLASS DOES NOT EXIST>") || message.contains("<METHOD DOES NOT EXIST>"));
    }

    private static String classes(Probe p) {
        if (p.ping == null) {
            throw new Failure("Ping failed: " + p.pingFailure);
        }
        String version = p.ping.path(VERSION).asString("");
        if (!version.equals(CLASSES_VERSION)) {
            p.ping = null; // the checks that need the classes cannot trust them
            throw new Failure("Terminal.Session answers version \"" + version + "\"; this jar expects \""
                    + CLASSES_VERSION + "\"");
        }
        return "Terminal.Session version " + version + " in namespace " + p.ping.path(NAMESPACE).asString("?");
    }

    /** Ping's own checks (docs/iris-contract.md, "Check"): each must be ok. */
    private static String irisSide(Probe p) {
        JsonNode checks = p.ping.path(CHECKS);
        if (!checks.isArray() || checks.isEmpty()) {
            throw new Failure("Ping reported no checks (the classes are older than this jar)");
        }
        List<String> bad = new ArrayList<>();
        for (JsonNode c : checks) {
            if (!c.path(OK).asBoolean(false)) {
                bad.add(c.path(CHECK).asString("?") + ": " + c.path(DETAIL).asString(""));
            }
        }
        if (!bad.isEmpty()) {
            throw new Failure(String.join("; ", bad));
        }
        return checks.size() + " checks passed";
    }

    private static String open(Probe p) {
        p.session = ProbeSession.open(p.api, OPEN_BOUND_MS);
        return "job " + p.session.pid() + " in " + p.session.namespace() + " connected back and is at its prompt";
    }

    private static String expectOutput(Probe p, String code, String expected) {
        ProbeSession.Ran r = ranClean(p, code);
        if (!r.output().equals(expected)) {
            throw new Failure(code + " wrote " + quoted(r.output()) + ", expected " + quoted(expected));
        }
        return code + " wrote " + quoted(r.output());
    }

    private static String variable(Probe p) {
        ranClean(p, "set doctorv=42");
        return expectOutput(p, "write doctorv", "42");
    }

    private static String readAnswered(Probe p) {
        long seq = p.session.send("read doctorx write \"<\"_doctorx_\">\"");
        p.session.awaitReading(seq, COMMAND_BOUND_MS);
        p.session.type("yes");
        ProbeSession.Ran r = clean(p.session.awaitDone(seq, COMMAND_BOUND_MS), "read doctorx");
        if (!r.output().endsWith("<yes>")) {
            throw new Failure("the READ answered with \"yes\" wrote " + quoted(r.output()) + ", expected it to end with \"<yes>\"");
        }
        return "a READ waited (read mark), took \"yes\" sent as its answer";
    }

    private static String readTimeout(Probe p) {
        ProbeSession.Ran r = ranClean(p, "read doctort:1 write $test");
        if (!r.output().equals("0")) {
            throw new Failure("read x:1 then write $test wrote " + quoted(r.output()) + ", expected \"0\" (timed out)");
        }
        return "timed out after " + r.elapsedMs() + " ms with $TEST 0";
    }

    private static String interrupt(Probe p) {
        long seq = p.session.send("hang 30");
        p.session.awaitStarted(seq, COMMAND_BOUND_MS);
        p.session.interrupt();
        ProbeSession.Ran r = p.session.awaitDone(seq, COMMAND_BOUND_MS);
        String code = r.error() == null ? "" : r.error().code();
        if (!Interrupts.is(code)) {
            throw new Failure("hang 30 ended after " + r.elapsedMs() + " ms " + (r.error() == null ? "without an error"
                    : "with " + r.error().text()) + ", expected " + Interrupts.EXPECTED);
        }
        return "hang 30 ended with " + code + " after " + r.elapsedMs() + " ms";
    }

    private static String namespaces(Probe p) {
        String home = p.session.namespace();
        String other = home.equalsIgnoreCase("%SYS") ? "USER" : "%SYS";
        expectNamespace(p, other);
        expectNamespace(p, home);
        return "ZN \"" + other + "\" and back to " + home;
    }

    private static void expectNamespace(Probe p, String ns) {
        ProbeSession.Ran r = ranClean(p, "zn \"" + ns + "\"");
        if (!r.namespace().equalsIgnoreCase(ns)) {
            throw new Failure("after zn \"" + ns + "\" the session reports namespace " + quoted(r.namespace()));
        }
    }

    private static String transactions(Probe p) {
        expectTlevel(p, "tstart", 1);
        expectTlevel(p, "trollback", 0);
        return "tstart gave $TLEVEL 1, trollback 0";
    }

    private static void expectTlevel(Probe p, String code, int tlevel) {
        ProbeSession.Ran r = ranClean(p, code);
        if (r.tlevel() != tlevel) {
            throw new Failure("after " + code + " the session reports tlevel " + r.tlevel() + ", expected " + tlevel);
        }
    }

    private static String error(Probe p) {
        ProbeSession.Ran r = p.session.run(ERROR_PROBE, COMMAND_BOUND_MS);
        IrisEngine.CommandError e = r.error();
        if (e == null) {
            throw new Failure(ERROR_PROBE + " ended without an error");
        }
        String code = e.code();
        String location = e.location();
        String source = e.source();
        if (!code.matches("<[A-Z ]+>") || !e.text().startsWith(code)) {
            throw new Failure("the error was not decomposed: code " + quoted(code) + ", text " + quoted(e.text()));
        }
        if (!ROUTINE_LOCATION.matcher(location).matches()) {
            throw new Failure(code + " came without a routine location (" + quoted(location) + ")");
        }
        if (source.isBlank()) {
            throw new Failure(code + " at " + location + " came without its source line");
        }
        return code + " at " + location + ": " + source.strip();
    }

    private static String sql(Probe p) {
        JsonNode r = p.session.sql("select 1 as one", COMMAND_BOUND_MS);
        JsonNode column = r.path("columns").path(0);
        if (r.path("sqlcode").asInt(-1) != 0 || !column.path("name").asString("").equalsIgnoreCase("one")
                || r.path("rows").path(0).path(0).asInt(-1) != 1) {
            throw new Failure("select 1 as one answered " + r);
        }
        return "select 1 as one answered one = 1 in the session's job";
    }

    private static String identity(Probe p) {
        ProbeSession.Ran r = ranClean(p, "write $username,\"/\",$roles");
        int slash = r.output().indexOf('/');
        String user = slash < 0 ? r.output() : r.output().substring(0, slash);
        String roles = slash < 0 ? "" : r.output().substring(slash + 1);
        String caller = p.ping.path(USER).asString("");
        if (!user.equals(caller)) {
            throw new Failure("the session's job runs as " + quoted(user) + ", the caller is " + quoted(caller));
        }
        if (List.of(roles.split(",")).contains(BRIDGE_ROLE)) {
            throw new Failure("user code runs holding the web application's role " + BRIDGE_ROLE + " ($ROLES "
                    + roles + ")");
        }
        return "$USERNAME " + user + ", $ROLES " + orNone(roles);
    }

    private static String close(Probe p) {
        long pid = p.session.pid();
        ProbeSession s = p.session;
        p.session = null;
        try {
            s.bye(BYE_BOUND_MS);
        } finally {
            s.close(true);
        }
        return "job " + pid + " ended on bye and closed its link";
    }

    // ------------------------------------------------------------------------------- helpers

    private static ProbeSession.Ran ranClean(Probe p, String code) {
        return clean(p.session.run(code, COMMAND_BOUND_MS), code);
    }

    private static ProbeSession.Ran clean(ProbeSession.Ran r, String code) {
        if (r.error() != null) {
            throw new Failure(code + " failed: " + r.error().text());
        }
        return r;
    }

    private static String quoted(String s) {
        return "\"" + s.replace("\r", "\\r").replace("\n", "\\n") + "\"";
    }

    private static String orNone(String roles) {
        return roles.isEmpty() ? "(none)" : roles;
    }
}
