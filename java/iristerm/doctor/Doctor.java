package iristerm.doctor;

import iristerm.iris.IrisApi;
import iristerm.iris.IrisCalls;
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
 * gateway thread): a fixed list of {@link Check}s, each ending in one {@link Finding}. Nothing here
 * starts a thread (hosted, only the gateway thread may call IRIS); every wait ends at a deadline.
 */
public final class Doctor {
    /** The {@code version} Terminal.Session.Ping answers for the classes this jar was built with. */
    public static final String CLASSES_VERSION = "1";
    /** The role the store's escalation adds (Terminal.Store ROLE): user code must never hold it. */
    static final String STORE_ROLE = "IRISTerminal_Store";
    /** One command of a check may take this long (a timed READ takes 1 s, an interrupted HANG less). */
    static final long COMMAND_BOUND_MS = 15_000;
    /** Open answers within 10 s by contract; the first prompt follows. */
    static final long OPEN_BOUND_MS = 20_000;
    /** The location IRIS gives an error in routine code: label+offset^routine. */
    private static final Pattern ROUTINE_LOCATION = Pattern.compile("[%A-Za-z0-9]*(\\+[0-9]+)?\\^[%A-Za-z][A-Za-z0-9.]*");
    /** A command that fails inside a routine of the Terminal package (Str dereferences its first argument). */
    static final String ERROR_PROBE = "do ##class(Terminal.Session).Str(\"\",\"\",\"\")";

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
                    // the close check already failed and said why; the job idles out in IRIS
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
                new Check("run-data store", Need.PING, "as an administrator, run do ##class(Terminal.Store).Setup() in "
                        + "the namespace of the Terminal classes (" + install + " does it), then run doctor as an "
                        + "administrator (Check reads the security definitions)", Doctor::store),
                new Check("open a session", Need.PING, "read the message; START_FAILED names what the job lacked "
                        + "(the user needs the right to run code in the namespace, and the store must be set up)",
                        Doctor::open),
                new Check("write 1+1", Need.SESSION, session,
                        p -> expectOutput(p, "write 1+1", "2")),
                new Check("$X after write ?10", Need.SESSION, "the device's $X is wrong under redirected output; "
                        + "report it with the IRIS version ($ZVERSION)",
                        p -> expectOutput(p, "write ?10,$x", " ".repeat(10) + "10")),
                new Check("variable kept between commands", Need.SESSION, session, Doctor::variable),
                new Check("READ answered", Need.SESSION, "if the store check reports buffered output, a READ inside "
                        + "a command cannot reach the input queue; see the store line", Doctor::readAnswered),
                new Check("READ with timeout", Need.SESSION, session, Doctor::readTimeout),
                new Check("INT interrupts", Need.SESSION, "the store's role needs %Admin_Operate:USE to interrupt the "
                        + "session's job; run do ##class(Terminal.Store).Setup() again", Doctor::interrupt),
                new Check("ZN and back", Need.SESSION, "the user needs READ on the other namespace's databases; "
                        + "check its roles", Doctor::namespaces),
                new Check("transaction level", Need.SESSION, session, Doctor::transactions),
                new Check("error with its source line", Need.SESSION, "compile the Terminal classes keeping their "
                        + "generated code (flag k), so $TEXT finds the source line", Doctor::error),
                new Check("SQL", Need.PING, "the user needs SQL privileges in the namespace; read the message",
                        Doctor::sql),
                new Check("runs as the caller", Need.SESSION, "user code must run as the user who opened the session "
                        + "and without the store's role; reinstall the classes of this jar (" + install + ")",
                        Doctor::identity),
                new Check("close leaves nothing behind", Need.SESSION, session, Doctor::close));
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
                + orNone(p.ping.path(ROLES).asString("")) + "; " + p.ping.path("iris").asString("");
    }

    private static boolean classMissing(String message) {
        return message != null && (message.contains("<CLASS DOES NOT EXIST>") || message.contains("<METHOD DOES NOT EXIST>"));
    }

    private static String classes(Probe p) {
        if (p.ping == null) {
            throw new Failure("Ping failed: " + p.pingFailure);
        }
        String version = p.ping.path("version").asString("");
        if (!version.equals(CLASSES_VERSION)) {
            p.ping = null; // the checks that need the classes cannot trust them
            throw new Failure("Terminal.Session answers version \"" + version + "\"; this jar expects \""
                    + CLASSES_VERSION + "\"");
        }
        return "Terminal.Session version " + version + " in namespace " + p.ping.path(NAMESPACE).asString("?");
    }

    private static String store(Probe p) {
        JsonNode store = p.ping.path(STORE);
        if (!store.isObject()) {
            throw new Failure("Ping reported no store check (the classes are older than this jar)");
        }
        List<String> bad = new ArrayList<>();
        String output = "";
        for (JsonNode part : store.path(PARTS)) {
            String line = part.path(PART).asString("") + ": " + part.path(DETAIL).asString("");
            if (!part.path(OK).asBoolean(false)) {
                bad.add(line);
            } else if (part.path(PART).asString("").equals("output of commands")) {
                output = "; " + part.path(DETAIL).asString("");
            }
        }
        if (!store.path(OK).asBoolean(false) || !bad.isEmpty()) {
            throw new Failure(bad.isEmpty() ? "Terminal.Store.Check() reports a problem but names no part"
                    : String.join("; ", bad));
        }
        return store.path(PARTS).size() + " parts in place" + output;
    }

    private static String open(Probe p) {
        p.session = ProbeSession.open(p.api, OPEN_BOUND_MS);
        return "session " + p.session.id() + ", job " + p.session.pid() + " in " + p.session.namespace()
                + ", at its prompt";
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
        p.session.awaitEvent("read", seq, COMMAND_BOUND_MS);
        p.session.type("yes");
        ProbeSession.Ran r = clean(p.session.awaitDone(seq, COMMAND_BOUND_MS), "read doctorx");
        if (!r.output().endsWith("<yes>")) {
            throw new Failure("the READ answered with \"yes\" wrote " + quoted(r.output()) + ", expected it to end with \"<yes>\"");
        }
        return "a READ waited (read event), took \"yes\" sent with Send";
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
        p.session.awaitState("running", COMMAND_BOUND_MS);
        JsonNode sent = p.session.signal("INT");
        ProbeSession.Ran r = p.session.awaitDone(seq, COMMAND_BOUND_MS);
        String code = r.error() == null ? "" : r.error().path(CODE).asString("");
        if (!code.equals("<INTERRUPT>")) {
            throw new Failure("hang 30 ended after " + r.elapsedMs() + " ms " + (r.error() == null ? "without an error"
                    : "with " + r.error().path(TEXT).asString("")) + " (Signal answered " + sent + "), expected <INTERRUPT>");
        }
        return "hang 30 ended with <INTERRUPT> after " + r.elapsedMs() + " ms";
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
        JsonNode e = r.error();
        if (e == null) {
            throw new Failure(ERROR_PROBE + " ended without an error");
        }
        String code = e.path(CODE).asString("");
        String location = e.path(LOCATION).asString("");
        String source = e.path(SOURCE).asString("");
        if (!code.matches("<[A-Z ]+>") || !e.path(TEXT).asString("").startsWith(code)) {
            throw new Failure("the error was not decomposed: code " + quoted(code) + ", text " + quoted(e.path(TEXT).asString("")));
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
        JsonNode r = p.api.call(IrisMethod.SQL, IrisApi.request().put("query", "select 1 as one"));
        JsonNode column = r.path(COLUMNS).path(0);
        if (r.path(SQLCODE).asInt(-1) != 0 || !column.path(NAME).asString("").equalsIgnoreCase("one")
                || r.path(ROWS).path(0).path(0).asInt(-1) != 1) {
            throw new Failure("select 1 as one answered " + r);
        }
        return "select 1 as one answered one = 1";
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
        if (List.of(roles.split(",")).contains(STORE_ROLE)) {
            throw new Failure("user code runs holding the store's role " + STORE_ROLE + " ($ROLES " + roles + ")");
        }
        return "$USERNAME " + user + ", $ROLES " + orNone(roles);
    }

    private static String close(Probe p) {
        String id = p.session.id();
        JsonNode closed = p.session.close(false);
        p.session = null;
        if (closed.path("closed").asInt(0) != 1) {
            throw new Failure("Close answered " + closed);
        }
        for (JsonNode row : p.api.call(IrisMethod.LIST, IrisApi.request()).path(SESSIONS)) {
            if (row.path(SESSION).asString("").equals(id)) {
                throw new Failure("List still shows session " + id + " after Close (state "
                        + row.path(STATE).asString("?") + ")");
            }
        }
        return "session " + id + " closed; List no longer shows it";
    }

    // ------------------------------------------------------------------------------- helpers

    private static ProbeSession.Ran ranClean(Probe p, String code) {
        return clean(p.session.run(code, COMMAND_BOUND_MS), code);
    }

    private static ProbeSession.Ran clean(ProbeSession.Ran r, String code) {
        if (r.error() != null) {
            throw new Failure(code + " failed: " + r.error().path(TEXT).asString(r.error().toString()));
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
