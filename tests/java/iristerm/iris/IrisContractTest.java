package iristerm.iris;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

/**
 * Holds the Java side of docs/iris-contract.md against the ObjectScript sources in cls/: every
 * method Java calls ({@link IrisMethod}) is a public class method of {@link IrisMethod#CLASS} taking
 * {@link IrisMethod#ARITY} argument(s) and returning %String, and every JSON field Java reads
 * ({@link IrisFields#FIELDS_READ}) is produced somewhere in the Terminal classes. Nothing here needs
 * IRIS; a missing class file fails (it never skips or passes vacuously).
 */
class IrisContractTest {
    /** Terminal/*.cls that are not part of the Java ↔ IRIS JSON contract. */
    private static final Set<String> NOT_CONTRACT = Set.of("REST.cls", "Gateway.cls", "Installer.cls");

    // ------------------------------------------------------------------------------- methods

    @TestFactory
    Stream<DynamicTest> everyMethodJavaCallsIsAPublicClassMethodOfOneStringReturningString() {
        assertTrue(IrisMethod.values().length > 0);
        return Arrays.stream(IrisMethod.values()).map(m -> dynamicTest(
                IrisMethod.CLASS + "." + m.method() + " (" + m.name() + ")", () -> checkDeclared(m)));
    }

    private static void checkDeclared(IrisMethod m) {
        Path file = classFile(IrisMethod.CLASS);
        Udl.ClassDef cls = Udl.parse(read(file));
        assertEquals(IrisMethod.CLASS, cls.name(), file + " declares another class");
        String want = "ClassMethod " + m.method() + "(request As %String) As %String";
        List<Udl.Member> named = cls.members().stream().filter(x -> x.name().equals(m.method())).toList();
        if (named.isEmpty()) {
            List<String> near = cls.members().stream().map(Udl.Member::name)
                    .filter(n -> n.equalsIgnoreCase(m.method())).toList();
            fail(rel(file) + " declares no member " + m.method() + (near.isEmpty() ? "" : " (only " + near
                    + ": ObjectScript names are case-sensitive)") + "; Java calls " + IrisMethod.CLASS + "."
                    + m.method() + " (IrisMethod." + m.name() + "): declare `" + want + "`");
        }
        assertEquals(1, named.size(), rel(file) + " declares " + m.method() + " more than once");
        Udl.Member decl = named.get(0);
        String where = rel(file) + ":" + decl.line() + " `" + decl.declaration().replaceAll("\\s+", " ").strip() + "`";
        assertEquals("ClassMethod", decl.kind(), where + ": Java calls class methods; declare `" + want + "`");
        assertEquals(IrisMethod.ARITY, decl.args().size(), where + ": Java passes exactly " + IrisMethod.ARITY
                + " argument(s) (the request JSON), the declaration has " + decl.args());
        assertTrue(decl.returnType() != null && (decl.returnType().equalsIgnoreCase("%String")
                        || decl.returnType().equalsIgnoreCase("%Library.String")),
                where + ": must return %String (the answer JSON), returns " + decl.returnType());
        assertFalse(decl.isPrivate(), where + ": Java cannot call a Private method");
    }

    // ------------------------------------------------------------------- install and uninstall

    private static Udl.Member declared(String className, String method) {
        Udl.ClassDef cls = Udl.parse(read(classFile(className)));
        return cls.members().stream().filter(m -> m.name().equals(method)).findFirst()
                .orElseThrow(() -> new AssertionError(className + " declares no " + method));
    }

    // ------------------------------------------------------------- escalation (review C, C6)

    /**
     * The store's role is held only in small checked frames: every method of the registered classes that
     * calls AddRoles NEWs $ROLES first (the role ends with the method); Terminal.Engine.Run, whose loop waits
     * between commands, never escalates; every escalating engine method checks that it runs in the
     * session's own job (Mine or Job) before it touches a session (Probed reads none); Finish drops the role
     * before the user's variables die and the job halts, and Input drops it before each Finish.
     */
    @Test
    void theEngineHoldsTheStoresRoleOnlyInSmallCheckedFrames() {
        Udl.ClassDef engine = Udl.parse(read(classFile("Terminal.Engine")));
        assertFalse(member(engine, "Run").body().contains("AddRoles("), "Terminal.Engine.Run escalates: the job would"
                + " hold the store's role between commands, where a $ZTRAP handler or %OnClose of the user's may run");
        int escalating = 0;
        for (String className : List.of("Terminal.Engine", "Terminal.Session")) {
            for (Udl.Member m : Udl.parse(read(classFile(className))).members()) {
                int add = m.body().indexOf("AddRoles(");
                if (add < 0) {
                    continue;
                }
                escalating++;
                String where = className + "." + m.name() + " (line " + m.line() + ")";
                int newRoles = m.body().indexOf("New $Roles");
                assertTrue(newRoles >= 0 && newRoles < add, where + " calls AddRoles without NEW $ROLES before it:"
                        + " the store's role would outlive the method, in its caller's frame");
                if (className.equals("Terminal.Engine") && !m.name().equals("Probed")) {
                    String after = m.body().substring(add);
                    assertTrue(after.contains("..Mine(key)") || after.contains("..Job(key)"), where
                            + " escalates without checking that it runs in the session's own job (..Mine or ..Job)");
                }
            }
        }
        assertTrue(escalating >= 10, "found only " + escalating + " escalating methods: the parser missed bodies");
        String finish = member(engine, "Finish").body();
        int drop = finish.lastIndexOf("Set $Roles = \"\"");
        assertTrue(drop >= 0 && drop < finish.indexOf("Do ..Clean()") && drop < finish.lastIndexOf("Halt"),
                "Terminal.Engine.Finish must drop the store's role (Set $Roles = \"\") before Clean and Halt");
        String input = member(engine, "Input").body();
        Matcher call = Pattern.compile("Do \\.\\.Finish\\(").matcher(input);
        int calls = 0;
        while (call.find()) {
            calls++;
            String before = input.substring(0, call.start());
            String previous = before.substring(0, before.lastIndexOf('\n')).strip();
            previous = previous.substring(previous.lastIndexOf('\n') + 1).strip();
            assertEquals("Set $Roles = \"\"", previous, "Terminal.Engine.Input calls Finish with the store's role"
                    + " still in its frame: drop it on the line before");
        }
        assertTrue(calls > 0, "Terminal.Engine.Input no longer ends the job through Finish: update this test");
    }

    /**
     * Nothing of the user's runs in an escalated frame or at a context level of the engine's routine (review
     * D2, D3): every escalating method clears $ETRAP (NEWed) and $THROWOBJ before AddRoles; every redirect
     * label, which user code calls, NEWs and clears $ETRAP first; Terminal.Exec keeps the user's $ETRAP in
     * a frame of its own; Terminal.Engine.Run clears it at the job's outermost level.
     */
    @Test
    void noTrapOrThrownObjectOfTheUsersRunsInTheEnginesFrames() {
        for (String className : List.of("Terminal.Engine", "Terminal.Session")) {
            for (Udl.Member m : Udl.parse(read(classFile(className))).members()) {
                int add = m.body().indexOf("AddRoles(");
                if (add < 0) {
                    continue;
                }
                String where = className + "." + m.name() + " (line " + m.line() + ")";
                String before = m.body().substring(0, add);
                int newTrap = before.indexOf("New $ETrap");
                assertTrue(newTrap > before.indexOf("New $Roles") && before.indexOf("Set $ETrap = \"\"", newTrap) > newTrap,
                        where + " escalates without NEW $ETRAP and SET $ETRAP = \"\" before AddRoles: a $ETRAP the"
                                + " user set would run in its escalated frame");
                assertTrue(before.contains("Set $THROWOBJ = \"\""), where + " escalates without SET $THROWOBJ = \"\""
                        + " before AddRoles: an object the user threw could die (%OnClose) with the store's role");
            }
        }
        // Review D3's addendum: any process may call a public method of a registered class, with a $ETRAP of
        // its own; an error in that method's frame would run the trap at the class routine's level. So each
        // public method clears $ETRAP first (an error then unwinds to the caller), and the helpers are Private.
        for (String className : List.of("Terminal.Engine", "Terminal.Session")) {
            for (Udl.Member m : Udl.parse(read(classFile(className))).members()) {
                if (!Set.of("ClassMethod", "Method").contains(m.kind()) || m.isPrivate() || m.name().equals("Redirects")) {
                    continue;
                }
                String code = Udl.stripComments(m.body()).strip().replaceAll("\\s+", " ");
                assertTrue(code.startsWith("New $ETrap Set $ETrap = \"\"") || code.startsWith("New $Roles New $ETrap Set $ETrap = \"\""),
                        className + "." + m.name() + " (line " + m.line() + ") is public and does not start with `New $ETrap`,"
                                + " `Set $ETrap = \"\"`: make it Private, or clear the caller's trap first");
            }
        }
        Udl.ClassDef engine = Udl.parse(read(classFile("Terminal.Engine")));
        String redirects = member(engine, "Redirects").body();
        Matcher label = Pattern.compile("(?m)^([A-Za-z]+)(\\([a-z,]*\\))?\t(.*)$").matcher(redirects);
        int labels = 0;
        while (label.find()) {
            labels++;
            assertTrue(label.group(3).startsWith("New $ETrap Set $ETrap = \"\" "), "Terminal.Engine label "
                    + label.group(1) + " does not start with `New $ETrap Set $ETrap = \"\"`: user code calls it,"
                    + " and IRIS would run the user's $ETRAP at its context level");
        }
        assertTrue(labels >= 30, "found only " + labels + " redirect labels");
        String exec = member(Udl.parse(read(classFile("Terminal.Exec"))), "Run").body();
        assertTrue(exec.indexOf("New $ETrap") >= 0 && exec.indexOf("New $ETrap") < exec.indexOf("Xecute"),
                "Terminal.Exec.Run must NEW $ETRAP before it XECUTEs: the user's trap stays in its frame");
    }

    /**
     * Review D8: registry rows are never objects in an escalated frame (a stored row opens as the class its
     * storage names), and no class of the package can be subclassed.
     */
    @Test
    void registryRowsAreNeverOpenedAndEveryClassOfThePackageIsFinal() {
        try (Stream<Path> files = Files.list(classFile("Terminal.Session").getParent())) {
            for (Path file : files.filter(f -> f.toString().endsWith(".cls")).toList()) {
                String header = Udl.parse(read(file)).header();
                assertTrue(header.matches("(?s).*\\[[^\\]]*\\bFinal\\b[^\\]]*\\].*"), file.getFileName() + " is not Final: " + header);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String className : List.of("Terminal.Session", "Terminal.Engine", "Terminal.Exec", "Terminal.Audit")) {
            Udl.ClassDef c = Udl.parse(read(classFile(className)));
            for (Udl.Member m : c.members()) {
                String code = Udl.stripComments(m.body());
                for (String call : List.of("%OpenId(", "%DeleteId(", "%Open(", "%Delete(")) {
                    assertFalse(code.contains(call), className + "." + m.name() + " (line " + m.line() + ") calls "
                            + call + " on registry rows: read them with ...GetStored, delete them with DeleteRow");
                }
            }
        }
    }

    /** C4 at Open: the code-database guard runs with the caller's own roles, before Open escalates. */
    @Test
    void openRefusesAWriterOfTheCodeDatabaseBeforeItEscalates() {
        String open = declared(IrisMethod.CLASS, "Open").body();
        int guard = open.indexOf("..CodeGuard()");
        assertTrue(guard >= 0 && guard < open.indexOf("AddRoles("), "Terminal.Session.Open must call CodeGuard before AddRoles");
        String code = Udl.stripComments(declared(IrisMethod.CLASS, "CodeGuard").body());
        assertTrue(code.contains("..CodeDatabase(") && Udl.stripComments(declared(IrisMethod.CLASS, "CodeDatabase").body())
                .contains("##class(Terminal.Store).CodeLocation("), "CodeGuard must find the package's database with"
                + " Terminal.Store.CodeLocation (one piece of code for it), through CodeDatabase");
        assertFalse(code.contains("AddRoles("), "CodeGuard decides with the caller's own roles");
        // Review F4: a failed lookup refuses; it never lets the caller through.
        assertFalse(code.matches("(?s).*Quit:\\$\\$\\$ISERR\\(.*"), "CodeGuard lets the caller through when the code"
                + " database cannot be told: refuse (START_FAILED) instead");
        assertTrue(code.matches("(?s).*Do:\\$\\$\\$ISERR\\(sc\\) \\.\\.Throw\\(\"START_FAILED\".*"), "CodeGuard must refuse"
                + " (START_FAILED) when the code database cannot be told");
        assertTrue(read(projectRoot().resolve("docs/iris-contract.md")).contains("**Code database.**"),
                "CodeGuard's message points to docs/iris-contract.md, \"Code database\"");
    }

    /**
     * Review F12: breakpoints, watchpoints and stepping are per process and run their execute code in whatever
     * frame they reach, so every frame that adds the store's role turns them off first (Terminal.Engine.Undebug,
     * unescalated), and Terminal.SQL.Contain does too before a CSP process serves its next request (F11).
     */
    @Test
    void noDebuggerStateOfTheUsersReachesAnEscalatedFrame() {
        Udl.ClassDef engine = Udl.parse(read(classFile("Terminal.Engine")));
        String undebug = Udl.stripComments(member(engine, "Undebug").body());
        // BREAK "OFF" is documented as ZBREAK /CLEAR (every break- and watchpoint) with stepping, trace and debug off
        assertTrue(undebug.contains("Break \"OFF\""),
                "Terminal.Engine.Undebug must turn every breakpoint, watchpoint and stepping mode off (Break \"OFF\")");
        int escalating = 0;
        for (String className : List.of("Terminal.Engine", "Terminal.Session")) {
            for (Udl.Member m : Udl.parse(read(classFile(className))).members()) {
                String code = Udl.stripComments(m.body());
                int add = code.indexOf("AddRoles(");
                if (add < 0) {
                    continue;
                }
                escalating++;
                int off = Math.max(code.indexOf("..Undebug()"), code.indexOf("##class(Terminal.Engine).Undebug()"));
                assertTrue(off >= 0 && off < add, className + "." + m.name() + " (line " + m.line() + ") adds the store's"
                        + " role without calling Terminal.Engine.Undebug() before: a user's ZBREAK execute code or BREAK"
                        + " stepping would run in its escalated frame");
            }
        }
        assertTrue(escalating >= 10, "found only " + escalating + " escalating methods: the parser missed bodies");
        String contain = Udl.stripComments(member(Udl.parse(read(classFile("Terminal.SQL"))), "Contain").body());
        assertTrue(contain.indexOf("Undebug()") > contain.indexOf("..Statement("), "Terminal.SQL.Contain must clear the"
                + " statement's breakpoints and watchpoints (Terminal.Engine.Undebug) after it runs");
    }

    /**
     * Review F9/F3: on the redirect path (Log, Input) interrupts are off from before AddRoles until the store's
     * role is dropped, so no &lt;INTERRUPT&gt; lands in an escalated frame (a user's non-unwinding $ZTRAP would run
     * there) or in a Catch that swallows it; Interruptible turns them back on, and only with the role dropped.
     * Run's fault handler and the halt trap take the home namespace from the compile-time constant, never from a
     * process-private global user code can set (F10).
     */
    @Test
    void theRedirectPathHoldsTheStoresRoleOnlyWithInterruptsOff() {
        Udl.ClassDef engine = Udl.parse(read(classFile("Terminal.Engine")));
        for (String name : List.of("Log", "Input")) {
            String code = Udl.stripComments(member(engine, name).body());
            int add = code.indexOf("AddRoles(");
            int off = code.indexOf("SetInterruptEnable(0)");
            assertTrue(off >= 0 && off < add, "Terminal.Engine." + name + " escalates with interrupts on: turn them off"
                    + " (SetInterruptEnable(0)) before AddRoles");
            assertFalse(code.contains("SetInterruptEnable(1)"), "Terminal.Engine." + name + " turns interrupts on"
                    + " itself: only Interruptible may, after the role is dropped");
            Matcher on = Pattern.compile("\\.\\.Interruptible\\(").matcher(code);
            int calls = 0;
            while (on.find()) {
                calls++;
                String before = code.substring(0, on.start());
                assertTrue(before.lastIndexOf("Set $Roles = \"\"") > before.lastIndexOf("AddRoles("), "Terminal.Engine."
                        + name + " turns interrupts back on before the store's role is dropped");
            }
            assertTrue(calls > 0, "Terminal.Engine." + name + " never turns interrupts back on: a Signal INT would miss"
                    + " the rest of the command");
            String outerCatch = code.substring(code.lastIndexOf("} Catch"));
            outerCatch = outerCatch.substring(outerCatch.indexOf('{') + 1).strip();
            assertTrue(outerCatch.startsWith("Set $Roles = \"\""), "Terminal.Engine." + name + ": the outer Catch must"
                    + " drop the store's role on its first line");
        }
        String interruptible = Udl.stripComments(member(engine, "Interruptible").body());
        assertTrue(interruptible.indexOf("SetInterruptEnable(1)") >= 0 && !interruptible.contains("AddRoles("),
                "Terminal.Engine.Interruptible turns interrupts on and never escalates");
        String all = Udl.stripComments(read(classFile("Terminal.Engine")));
        assertFalse(all.contains("^||Terminal.Engine(\"home\")"), "Terminal.Engine takes its home namespace from"
                + " ^||Terminal.Engine(\"home\"), which user code can set: use ##class(Terminal.Store).#HOME");
    }

    /**
     * Review F9 for Terminal.Session: a command can call its escalating methods inside a session's job, where
     * interrupts are on while the command runs. Each escalating method turns them off first
     * (Terminal.Engine.Quiet) - itself, or every method that calls it does - and turns them back on (Loud) only
     * after the store's role is dropped.
     */
    @Test
    void sessionMethodsHoldTheStoresRoleOnlyWithInterruptsOff() {
        Udl.ClassDef session = Udl.parse(read(classFile(IrisMethod.CLASS)));
        int checked = 0;
        for (Udl.Member m : session.members()) {
            String code = Udl.stripComments(m.body());
            int add = code.indexOf("AddRoles(");
            if (add < 0) {
                continue;
            }
            checked++;
            int quiet = code.indexOf("##class(Terminal.Engine).Quiet()");
            if (quiet >= 0) {
                assertTrue(quiet < add, IrisMethod.CLASS + "." + m.name() + " turns interrupts off only after AddRoles");
                checkLoudAfterDrop(m.name(), code);
                continue;
            }
            List<Udl.Member> callers = session.members().stream()
                    .filter(c -> Udl.stripComments(c.body()).contains(".." + m.name() + "(")).toList();
            assertTrue(m.isPrivate() && !callers.isEmpty(), IrisMethod.CLASS + "." + m.name() + " (line " + m.line()
                    + ") escalates without Terminal.Engine.Quiet(): an <INTERRUPT> could land in its escalated frame");
            for (Udl.Member c : callers) {
                String caller = Udl.stripComments(c.body());
                int q = caller.indexOf("Quiet()");
                boolean viaGuard = caller.contains("..CodeGuard()") || c.name().equals("CodeGuard");
                assertTrue(viaGuard || (q >= 0 && q < caller.indexOf(".." + m.name() + "(")), IrisMethod.CLASS + "."
                        + c.name() + " calls " + m.name() + " without turning interrupts off first (Terminal.Engine.Quiet)");
            }
        }
        assertTrue(checked >= 9, "found only " + checked + " escalating methods in " + IrisMethod.CLASS);
        String open = Udl.stripComments(declared(IrisMethod.CLASS, "Open").body());
        assertTrue(open.indexOf("Quiet()") >= 0 && open.indexOf("Quiet()") < open.indexOf("..CodeGuard()"),
                "Terminal.Session.Open must turn interrupts off before CodeGuard (which escalates in CodeDatabase)");
        checkLoudAfterDrop("RunValue", Udl.stripComments(declared(IrisMethod.CLASS, "RunValue").body()));
    }

    /** Loud comes after the role is dropped: a Set $Roles = "" before it, or the escalated frame has returned. */
    private static void checkLoudAfterDrop(String name, String code) {
        int loud = code.indexOf("##class(Terminal.Engine).Loud(quiet)");
        assertTrue(loud >= 0, IrisMethod.CLASS + "." + name + " never turns interrupts back on (Loud)");
        String before = code.substring(0, loud);
        assertTrue(!before.contains("AddRoles(") || before.lastIndexOf("Set $Roles = \"\"") > before.lastIndexOf("AddRoles("),
                IrisMethod.CLASS + "." + name + " turns interrupts back on before dropping the store's role");
    }

    /**
     * Review F7: the job holds a liveness lock that dies with it and with a restart (Terminal.Engine.Stamp
     * takes it, incrementally, so no lock of the user's is touched), and IsJob trusts a held lock before the
     * clocks, so a clock step during a long command cannot make the session unkillable through the API.
     */
    @Test
    void aLiveJobIsProvenByItsLockNotOnlyByTheClocks() {
        String stamp = Udl.stripComments(member(Udl.parse(read(classFile("Terminal.Engine"))), "Stamp").body());
        int held = stamp.indexOf("If '##class(Terminal.Session).Holds(key, $Job)");
        assertTrue(held >= 0 && held < stamp.indexOf("Lock +^IRISTerminal.Run(key, \"job\"):0"),
                "Terminal.Engine.Stamp must take the liveness lock incrementally, only when it is not held");
        String isJob = Udl.stripComments(declared(IrisMethod.CLASS, "IsJob").body());
        int holds = isJob.indexOf("..Holds(key, pid)");
        assertTrue(holds >= 0 && holds < isJob.indexOf("..SameBoot(key)"), "Terminal.Session.IsJob must ask for the"
                + " liveness lock before it trusts or distrusts the clocks");
        assertTrue(Udl.stripComments(declared(IrisMethod.CLASS, "Holds").body())
                .contains("^$LOCK($Name(^IRISTerminal.Run(key, \"job\")), \"OWNER\")"), "Holds reads the lock's owner");
    }

    /**
     * Review F1, F2, F8, F11: whatever a contained statement leaves in the CSP process is removed before the roles
     * come back - the device's mnemonic space and redirection (set back whether or not $IO changed), $THROWOBJ,
     * the public request variable - and each clean-up step that releases objects is guarded on its own. Fault
     * asks only IRIS's exception classes anything.
     */
    @Test
    void aContainedStatementLeavesNoCodeOfItsOwnInTheProcess() {
        Udl.ClassDef sql = Udl.parse(read(classFile("Terminal.SQL")));
        String contain = Udl.stripComments(member(sql, "Contain").body());
        int statement = contain.indexOf("..Statement(");
        assertTrue(contain.indexOf("GetMnemonicRoutine()") >= 0 && contain.indexOf("GetMnemonicRoutine()") < statement
                && contain.indexOf("ReDirectIO()") >= 0 && contain.indexOf("ReDirectIO()") < statement,
                "Terminal.SQL.Contain must save the device's mnemonic routine and redirection before the statement");
        assertFalse(contain.contains("If $IO '= io"), "Terminal.SQL.Contain restores the device only when $IO changed:"
                + " a statement can set a mnemonic routine and redirection on the same device");
        assertTrue(contain.indexOf("ReDirectIO(redirected)") > statement && contain.indexOf("Use io::(") > statement,
                "Terminal.SQL.Contain must set the mnemonic space and redirection back after the statement");
        assertTrue(contain.indexOf("Set $THROWOBJ = \"\"") > statement, "Terminal.SQL.Contain must release $THROWOBJ");
        String[] lines = contain.split("\n");
        int kills = 0;
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].strip().startsWith("Kill")) {
                continue;
            }
            kills++;
            int j = i - 1;
            while (j >= 0 && lines[j].isBlank()) {
                j--;
            }
            assertTrue(j >= 0 && lines[j].strip().equals("Try {"), "Terminal.SQL.Contain: `" + lines[i].strip()
                    + "` runs the statement's %OnClose outside a Try of its own: a failure would skip the rest of the clean-up");
        }
        assertTrue(kills >= 3, "found only " + kills + " Kill lines in Terminal.SQL.Contain");
        assertFalse(member(sql, "PublicVariables").body().contains("\"pRequest\""), "Terminal.SQL.PublicVariables"
                + " skips pRequest: what the statement puts there would outlive the contained roles");
        String fault = Udl.stripComments(declared(IrisMethod.CLASS, "Fault").body());
        int guard = fault.indexOf("$ListFind($ListBuild(\"%Exception.General\"");
        assertTrue(guard >= 0 && guard < fault.indexOf("ex.Name") && guard < fault.indexOf("ex.DisplayString()"),
                "Terminal.Session.Fault must ask only IRIS's exception classes for Name/Data/DisplayString");
    }

    // --------------------------------------------------------------------------------- faults

    /**
     * Java tells WRONG_INSTANCE apart (IrisApi.Fault adds what to do on this server's side); Terminal.Session
     * must throw it and its Fault must keep it (Fault turns a code it does not list into INTERNAL).
     */
    @Test
    void theWrongInstanceFaultJavaExplainsIsOneTerminalSessionAnswers() {
        String code = IrisApi.Fault.WRONG_INSTANCE;
        Udl.Member fault = declared(IrisMethod.CLASS, "Fault");
        Matcher kept = Pattern.compile("\\$ListBuild\\(([^)]*)\\)").matcher(fault.body());
        assertTrue(kept.find(), "Terminal.Session.Fault lists no fault codes: " + fault.body());
        assertTrue(kept.group(1).contains("\"" + code + "\""), "Terminal.Session.Fault does not keep " + code
                + " (it would answer INTERNAL): " + kept.group(1));
        String session = Udl.producingCode(Udl.parse(read(classFile(IrisMethod.CLASS))));
        assertTrue(session.contains("Throw(\"" + code + "\""), "Terminal.Session never throws " + code);
    }

    // -------------------------------------------------------------------------------- fields

    @Test
    void everyFieldJavaReadsIsProducedByTheObjectScript() {
        List<String> fields = IrisFields.FIELDS_READ;
        assertFalse(fields.isEmpty(), "IrisFields.FIELDS_READ is empty");
        Path session = classFile(IrisMethod.CLASS);
        Map<String, String> code = contractCode(session.getParent());
        Set<String> missing = new TreeSet<>();
        for (String f : fields) {
            if (code.values().stream().noneMatch(c -> produces(c, f))) {
                missing.add(f);
            }
        }
        assertTrue(missing.isEmpty(), "Java reads " + missing + " but no ObjectScript in " + code.keySet()
                + " produces it (as {\"name\":…}, .%Set(\"name\",…), obj.name = … or obj.\"name\" = …; comments do"
                + " not count). Produce it in Terminal.Session/Engine/SQL, or stop reading it in Java"
                + " (IrisFields.FIELDS_READ) and docs/iris-contract.md.");
    }

    /** The comment-free code of every contract class in cls/Terminal, by file name. */
    static Map<String, String> contractCode(Path dir) {
        Map<String, String> code = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".cls")).sorted().toList()) {
                if (!NOT_CONTRACT.contains(f.getFileName().toString())) {
                    code.put(f.getFileName().toString(), Udl.producingCode(Udl.parse(read(f))));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return code;
    }

    /** Whether ObjectScript (or Python) {@code code} writes a JSON field called {@code f}. */
    static boolean produces(String code, String f) {
        String q = Pattern.quote(f);
        List<String> forms = new ArrayList<>(List.of(
                "\"" + q + "\"\\s*:",                 // {"f": …} dynamic-object literal (or a Python dict)
                "\"\"" + q + "\"\"\\s*:",             // "{""f"":…}" JSON built in a string
                "'" + q + "'\\s*:",                   // {'f': …} Python
                "%Set\\(\\s*\"" + q + "\"\\s*,",      // obj.%Set("f", …)
                "\\.\"" + q + "\"\\s*=",              // obj."f" = …
                "%JSONFIELDNAME\\s*=\\s*\"" + q + "\""));
        if (f.matches("%?[A-Za-z][A-Za-z0-9]*")) {
            forms.add("\\." + q + "\\s*=");           // obj.f = …  (an underscore would be concatenation)
        }
        for (String form : forms) {
            if (Pattern.compile(form).matcher(code).find()) {
                return true;
            }
        }
        return false;
    }

    // --------------------------------------------------------------------- parser self-tests

    /** The parser copes with what UDL allows, so a failure above is about the class, not the parser. */
    @Test
    void theUdlParserReadsRealisticDeclarations() {
        String udl = String.join("\n",
                "/// Doc with ClassMethod Fake(a, b) As %String in prose",
                "Include %occStatus",
                "",
                "Class Terminal.Example Extends (%Persistent, %JSON.Adaptor)",
                "[ Final, SqlTableName = Example ]",
                "{",
                "",
                "/// returns {\"session\":1} -- doc comments are not code",
                "Parameter VERSION = \"0.1\";",
                "",
                "Parameter TEMPLATE = {\"a\":1};",
                "",
                "Property Owner As %String(MAXLEN = 128) [ Required ];",
                "",
                "Property Nick As %String(%JSONFIELDNAME = \"nick_name\");",
                "",
                "// a line comment at member level",
                "/* a block comment",
                "ClassMethod Hidden(x) As %String",
                "*/",
                "ClassMethod Plain(req As %String) As %String",
                "{",
                "  set out = {\"state\":\"idle\", \"ev_next\":(..Next())}",
                "  do out.%Set(\"out_start\", 3)",
                "  set out.tlevel = $TLEVEL, out.\"seq_done\" = 7",
                "  // set out.commented = 1",
                "  set x = \"a // not a comment\" ; set out.alsoCommented = 1",
                "  if x = \"}\" { quit \"{\" }",
                "  quit out.%ToJSON()",
                "}",
                "",
                "ClassMethod Defaults(",
                "    a As %String = \"x,y\",",
                "    ByRef b As %DynamicObject = {{\"k\":[1,2]}},",
                "    Output c As %List,",
                "    d As %String(MAXLEN=\"\", VALUELIST=\",a,b\") = \"(\",",
                "    args...) As %Library.String [ Internal, SqlProc ]",
                "{",
                "wstr(s) write s quit",
                "}",
                "",
                "ClassMethod Hush(req As %String) As %String [ Private ]",
                "{",
                "}",
                "",
                "ClassMethod Open(req As %String) As %String [ Not Private, ProcedureBlock = 0 ]",
                "{ quit \"{}\" }",
                "",
                "Method Instance() As %Status",
                "{",
                "  quit $$$OK",
                "}",
                "",
                "ClassMethod Py(req As %String) As %String [ Language = python ]",
                "{",
                "    return json.dumps({'py_field': 1})",
                "}",
                "",
                "Storage Default",
                "{",
                "<Data name=\"ExampleDefaultData\">",
                "<Value name=\"1\"><Value>%%CLASSNAME</Value></Value>",
                "</Data>",
                "}",
                "",
                "}",
                "");
        Udl.ClassDef c = Udl.parse(udl);
        assertEquals("Terminal.Example", c.name());
        assertEquals(List.of("VERSION", "TEMPLATE", "Owner", "Nick", "Plain", "Defaults", "Hush", "Open", "Instance",
                "Py", "Default"), c.members().stream().map(Udl.Member::name).toList());

        Udl.Member plain = member(c, "Plain");
        assertEquals("ClassMethod", plain.kind());
        assertEquals(List.of("req As %String"), plain.args());
        assertEquals("%String", plain.returnType());
        assertFalse(plain.isPrivate());
        assertEquals(21, plain.line());

        Udl.Member defaults = member(c, "Defaults");
        assertEquals(5, defaults.args().size(), defaults.args().toString());
        assertEquals("%Library.String", defaults.returnType());
        assertEquals(List.of("Internal", "SqlProc"), defaults.keywords());
        assertFalse(defaults.isPrivate());

        assertTrue(member(c, "Hush").isPrivate());
        assertFalse(member(c, "Open").isPrivate());
        assertEquals(List.of(), member(c, "Instance").args());
        assertEquals("Method", member(c, "Instance").kind());
        assertEquals("%Status", member(c, "Instance").returnType());

        String code = Udl.producingCode(c);
        for (String f : List.of("state", "ev_next", "out_start", "tlevel", "seq_done", "py_field", "nick_name", "Owner")) {
            assertTrue(produces(code, f), f + " is produced in:\n" + code);
        }
        for (String f : List.of("session", "commented", "alsoCommented", "Fake", "a", "ExampleDefaultData")) {
            assertFalse(produces(code, f), f + " is not produced (comments, doc, storage) in:\n" + code);
        }
    }

    private static Udl.Member member(Udl.ClassDef c, String name) {
        return c.members().stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no member " + name));
    }

    // ------------------------------------------------------------------------------- files

    /** cls/Terminal/Session.cls for Terminal.Session; fails clearly when it does not exist. */
    static Path classFile(String className) {
        Path root = projectRoot();
        Path file = root.resolve("cls").resolve(className.replace('.', '/') + ".cls");
        if (!Files.isRegularFile(file)) {
            fail(rel(file) + " does not exist (looked in " + root.toAbsolutePath() + "): Java calls the class methods of "
                    + className + " listed in IrisMethod, so that class must be in cls/ as UDL");
        }
        return file;
    }

    private static Path projectRoot() {
        Path cwd = Path.of("").toAbsolutePath();
        if (Files.isDirectory(cwd.resolve("cls"))) {
            return cwd;
        }
        String basedir = System.getProperty("basedir");
        return basedir != null ? Path.of(basedir) : cwd; // surefire runs in the project root anyway
    }

    private static String rel(Path file) {
        Path root = projectRoot();
        return file.startsWith(root) ? root.relativize(file).toString() : file.toString();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------------------- the parser

    /**
     * Just enough of a UDL (.cls) reader: the class name and each member's declaration, parsed
     * formal spec, return type, keywords and body. It relies on UDL's layout: members start at the
     * beginning of a line, a body opens with "{" after the declaration and closes with "}" alone at
     * the start of a line (code lines are indented or are labels, never a lone "}").
     */
    static final class Udl {
        record ClassDef(String name, String header, List<Member> members) {
        }

        record Member(String kind, String name, String declaration, List<String> args, String returnType,
                      List<String> keywords, String body, int line) {
            boolean isPrivate() {
                for (String k : keywords) {
                    String n = k.replaceAll("\\s+", " ").strip().toLowerCase(Locale.ROOT);
                    if (n.equals("private") || n.matches("private ?= ?(1|true)")) {
                        return true;
                    }
                }
                return false;
            }

            boolean isPython() {
                return keywords.stream().anyMatch(k -> k.replaceAll("\\s+", "").equalsIgnoreCase("Language=python"));
            }
        }

        private static final Pattern CLASS = Pattern.compile("^Class\\s+(%?[\\w.]+)");
        private static final Pattern MEMBER = Pattern.compile("^(ClassMethod|Method|ClientMethod|Query|Property|"
                + "Parameter|Index|XData|Storage|Trigger|ForeignKey|Relationship|Projection)\\s+(\"[^\"]+\"|%?\\w+)");
        private static final Set<String> WITH_BODY = Set.of("ClassMethod", "Method", "ClientMethod", "Query", "XData",
                "Storage", "Trigger");
        private static final Set<String> CODE = Set.of("ClassMethod", "Method", "ClientMethod", "Trigger");

        static ClassDef parse(String text) {
            String[] lines = text.split("\r\n|\r|\n", -1);
            int i = 0;
            String name = null;
            StringBuilder header = new StringBuilder();
            boolean block = false;
            for (; i < lines.length; i++) {
                String t = lines[i].strip();
                if (block || t.startsWith("/*")) {
                    block = !t.contains("*/");
                    continue;
                }
                if (name == null) {
                    Matcher m = CLASS.matcher(t);
                    if (m.find()) {
                        name = m.group(1);
                    } else {
                        continue; // comments, Include, Import
                    }
                }
                header.append(header.length() > 0 ? " " : "").append(t);
                if (t.endsWith("{")) {
                    i++;
                    break;
                }
            }
            if (name == null) {
                throw new IllegalArgumentException("no `Class <name>` declaration");
            }
            List<Member> members = new ArrayList<>();
            while (i < lines.length) {
                String t = lines[i].strip();
                if (block || t.startsWith("/*")) {
                    block = !t.contains("*/");
                    i++;
                    continue;
                }
                if (t.isEmpty() || isComment(t)) {
                    i++;
                    continue;
                }
                if (t.startsWith("}")) {
                    break; // the class ends
                }
                Matcher m = MEMBER.matcher(t);
                if (!m.find()) {
                    i++;
                    continue;
                }
                int first = i + 1;
                String kind = m.group(1);
                boolean hasBody = WITH_BODY.contains(kind);
                StringBuilder decl = new StringBuilder();
                String rest = "";
                Scan scan = new Scan();
                while (i < lines.length) {
                    String line = lines[i++];
                    int end = scan.end(line, hasBody);
                    if (end >= 0) {
                        decl.append(line, 0, end);
                        rest = line.substring(end + 1);
                        break;
                    }
                    decl.append(line).append('\n');
                }
                StringBuilder body = new StringBuilder();
                if (hasBody) {
                    String r = rest.strip();
                    if (r.endsWith("}")) {
                        body.append(r, 0, r.length() - 1); // a body on one line: { quit 1 }
                    } else {
                        body.append(rest).append('\n');
                        while (i < lines.length && !lines[i].matches("}\\s*")) {
                            body.append(lines[i++]).append('\n');
                        }
                        i++;
                    }
                }
                members.add(member(kind, unquote(m.group(2)), decl.toString(), body.toString(), first));
            }
            return new ClassDef(name, header.toString(), members);
        }

        private static boolean isComment(String t) {
            return t.startsWith("//") || t.startsWith(";") || t.startsWith("#;");
        }

        private static String unquote(String n) {
            return n.startsWith("\"") ? n.substring(1, n.length() - 1) : n;
        }

        /** Where a declaration ends: the body's "{" (methods) or the final ";" (the rest). */
        private static final class Scan {
            boolean quoted;
            int parens;
            int brackets;
            int braces;

            int end(String line, boolean hasBody) {
                for (int k = 0; k < line.length(); k++) {
                    char ch = line.charAt(k);
                    if (ch == '"') {
                        quoted = !quoted;
                    } else if (quoted) {
                        continue;
                    } else if (ch == '(') {
                        parens++;
                    } else if (ch == ')') {
                        parens--;
                    } else if (ch == '[') {
                        brackets++;
                    } else if (ch == ']') {
                        brackets--;
                    } else if (parens == 0 && brackets == 0) {
                        if (ch == '{' && hasBody) {
                            return k;
                        } else if (ch == '{') {
                            braces++;
                        } else if (ch == '}') {
                            braces--;
                        } else if (ch == ';' && braces == 0 && !hasBody) {
                            return k;
                        }
                    }
                }
                return -1;
            }
        }

        private static Member member(String kind, String name, String decl, String body, int line) {
            String d = decl.replace('\n', ' ').strip();
            Matcher head = MEMBER.matcher(d);
            if (!head.find()) {
                throw new IllegalStateException("not a member declaration: " + d);
            }
            List<String> args = List.of();
            String after = d.substring(head.end());
            String s = after.stripLeading();
            if (s.startsWith("(")) {
                int close = matching(s, 0);
                args = split(s.substring(1, close)).stream().map(String::strip).filter(x -> !x.isEmpty()).toList();
                after = s.substring(close + 1);
            }
            String type = null;
            Matcher tm = Pattern.compile("^\\s*As\\s+(%?[\\w.]+)", Pattern.CASE_INSENSITIVE).matcher(after);
            if (tm.find()) {
                type = tm.group(1);
                after = after.substring(tm.end());
                String a = after.stripLeading();
                if (a.startsWith("(")) {
                    after = a.substring(matching(a, 0) + 1); // type parameters: %String(MAXLEN = 10)
                }
            }
            List<String> keywords = List.of();
            int open = after.indexOf('[');
            if (open >= 0) {
                int close = matching(after, open);
                keywords = split(after.substring(open + 1, close)).stream().map(String::strip)
                        .filter(x -> !x.isEmpty()).toList();
            }
            return new Member(kind, name, decl, args, type, keywords, body, line);
        }

        /** Index of the bracket closing the one at {@code open}, skipping strings and nesting. */
        private static int matching(String s, int open) {
            int depth = 0;
            boolean quoted = false;
            for (int k = open; k < s.length(); k++) {
                char ch = s.charAt(k);
                if (ch == '"') {
                    quoted = !quoted;
                } else if (!quoted && "([{".indexOf(ch) >= 0) {
                    depth++;
                } else if (!quoted && ")]}".indexOf(ch) >= 0 && --depth == 0) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unbalanced brackets in: " + s);
        }

        /** Splits at commas outside strings and brackets. */
        private static List<String> split(String s) {
            List<String> parts = new ArrayList<>();
            int depth = 0;
            boolean quoted = false;
            int from = 0;
            for (int k = 0; k < s.length(); k++) {
                char ch = s.charAt(k);
                if (ch == '"') {
                    quoted = !quoted;
                } else if (!quoted && "([{".indexOf(ch) >= 0) {
                    depth++;
                } else if (!quoted && ")]}".indexOf(ch) >= 0) {
                    depth--;
                } else if (!quoted && depth == 0 && ch == ',') {
                    parts.add(s.substring(from, k));
                    from = k + 1;
                }
            }
            parts.add(s.substring(from));
            return parts;
        }

        /**
         * The text that can produce JSON: method bodies without comments, and property
         * declarations (a %JSON.Adaptor class produces its properties' names).
         */
        static String producingCode(ClassDef c) {
            boolean jsonAdaptor = c.header().contains("%JSON.Adaptor");
            StringBuilder code = new StringBuilder();
            for (Member m : c.members()) {
                if (CODE.contains(m.kind())) {
                    code.append(m.isPython() ? m.body() : stripComments(m.body())).append('\n');
                } else if (m.kind().equals("Property")) {
                    code.append(m.declaration()).append('\n');
                    if (jsonAdaptor && !m.declaration().contains("%JSONINCLUDE")) {
                        code.append(".").append(m.name()).append(" = \n");
                    }
                }
            }
            return code.toString();
        }

        /** ObjectScript without its comments: //, ;, #; to the end of the line, and block comments. */
        static String stripComments(String s) {
            StringBuilder out = new StringBuilder();
            boolean quoted = false;
            for (int k = 0; k < s.length(); k++) {
                char ch = s.charAt(k);
                if (quoted) {
                    quoted = ch != '"';
                    out.append(ch);
                } else if (ch == '"') {
                    quoted = true;
                    out.append(ch);
                } else if (s.startsWith("//", k) || ch == ';' || s.startsWith("#;", k)) {
                    while (k < s.length() && s.charAt(k) != '\n') {
                        k++;
                    }
                    out.append('\n');
                } else if (s.startsWith("/*", k)) {
                    int end = s.indexOf("*/", k + 2);
                    k = end < 0 ? s.length() : end + 1;
                } else {
                    out.append(ch);
                }
                if (ch == '\n') {
                    quoted = false; // a string literal never spans lines
                }
            }
            return out.toString();
        }
    }
}
