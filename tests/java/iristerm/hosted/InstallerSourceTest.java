package iristerm.hosted;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Holds Terminal.Installer, Terminal.Audit's setup and the install script to the security and lifecycle rules
 * of the hosted deployment, as far as their text can show them (the behaviour itself is the %UnitTest suite's,
 * on a live instance): the agent role never opens the Java server, only the web application's application role
 * does; shared objects are recorded once per instance; Uninstall ends sessions before it deletes anything; an
 * existing audit event is never switched back on; the install script names the jar module.xml copies; and
 * Terminal.REST's error answers carry an id for messages.log, not internal detail. For the live check
 * (Installer.Check): every line it can print has a troubleshooting row and an explanation, it reports like the
 * doctor and reuses the doctor and Store.Check, its temporary user is deleted on every path, and ./install
 * exits on its verdict. Review E's rules: administrator-run code acts only on records in ^%IRISTerminal, the store
 * is the home namespace's and its routine application keeps every installation, Uninstall() removes every
 * installation of the namespace and survives a missing store, Define protects the server, and a caller's SQL runs
 * contained in the web request's process.
 */
class InstallerSourceTest {
    private static final Path INSTALLER = Path.of("cls", "Terminal", "Installer.cls");
    private static final Path AUDIT = Path.of("cls", "Terminal", "Audit.cls");
    private static final Path GATEWAY = Path.of("cls", "Terminal", "Gateway.cls");
    private static final Path STORE = Path.of("cls", "Terminal", "Store.cls");
    private static final Path SQL = Path.of("cls", "Terminal", "SQL.cls");

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }

    private static String parameter(String source, String name) {
        Matcher m = Pattern.compile("\\nParameter\\s+" + name + "\\s*=\\s*\"([^\"]*)\"\\s*;").matcher(source);
        assertTrue(m.find(), "no Parameter " + name);
        return m.group(1);
    }

    private static Set<String> list(String commaList) {
        return Arrays.stream(commaList.split(",")).map(s -> s.trim().toUpperCase()).filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
    }

    /** The body of a class method, from its opening brace line to the closing brace at column 0. */
    private static String method(String source, String name) {
        Matcher m = Pattern.compile("\\nClassMethod\\s+" + name + "\\(").matcher(source);
        assertTrue(m.find(), "no ClassMethod " + name);
        int open = source.indexOf("\n{\n", m.end());
        int close = source.indexOf("\n}\n", open);
        assertTrue(open > 0 && close > open, "cannot find the body of " + name);
        return source.substring(open, close);
    }

    private static int at(String body, String text) {
        int i = body.indexOf(text);
        assertTrue(i >= 0, "expected " + text);
        return i;
    }

    @Test
    void theAgentRoleHasNoPercentAndNeverOpensTheJavaServer() {
        String installer = read(INSTALLER);
        assertEquals("IRISTerminal_Agent", parameter(installer, "ROLE"));
        // the store names the agent role itself (a parameter reference each way would be a compile cycle)
        assertEquals(parameter(installer, "ROLE"), parameter(read(STORE), "AGENTROLE"));
        assertFalse(read(STORE).contains("##class(Terminal.Installer)"), "Terminal.Store reads nothing of Terminal.Installer");
        assertFalse(parameter(installer, "APPROLE").startsWith("%"), "role names without %");
        Set<String> agent = list(parameter(installer, "ROLERESOURCES"));
        Set<String> gateway = list(parameter(installer, "GATEWAYRESOURCES"));
        assertTrue(gateway.contains("%GATEWAY_OBJECT"), gateway.toString());
        assertTrue(gateway.contains(parameter(installer, "GWRESOURCE").toUpperCase()), gateway.toString());
        for (String resource : agent) {
            assertFalse(gateway.contains(resource), "the agent role grants " + resource + ", which opens the Java server");
        }
        // Created or completed, the agent role is stripped of every gateway grant.
        assertTrue(method(installer, "Install").contains("..EnsureRole(..#ROLE, ..#AGENTROLEDESCRIPTION, ..#ROLERESOURCES, ..#GATEWAYRESOURCES)"));
    }

    @Test
    void onlyTheApplicationRoleOpensTheServerAndTheServerRequiresItsOwnResource() {
        String installer = read(INSTALLER);
        assertTrue(list(parameter(installer, "APPROLERESOURCES")).contains(parameter(installer, "GWRESOURCE").toUpperCase()));
        assertTrue(method(installer, "Install").contains("..EnsureRole(..#APPROLE,"));
        String app = method(installer, "EnsureApp");
        assertTrue(app.contains("..MatchRolesWith($Get(cur(\"MatchRoles\")), 1)") && app.contains("Set props(\"MatchRoles\") = matchRoles"),
                "the web application must carry the application role");
        String protect = method(installer, "ProtectServer");
        assertTrue(protect.contains("..SetServerResource(name, ..#GWRESOURCE)"),
                "the server definition's Resource must be set to the installer's own resource");
        assertTrue(method(installer, "SetServerResource").contains("modifyServer({\"Name\":(pName), \"Resource\":(pResource)})"));
        // E9: an administrator's server gets back the Resource it had, before the installer's resource is deleted.
        String uninstall = method(installer, "UninstallOne");
        assertTrue(at(uninstall, "..SetServerResource(server, previous)") < at(uninstall, "..DeleteSecurity("));
        // E5: every Define (the path the error texts send administrators down) ends by setting the Resource again.
        String define = method(read(GATEWAY), "Define");
        assertTrue(at(define, "Do $System.external.modifyServer(def)") < at(define, "Set sc = ##class(Terminal.Installer).ProtectServer()"),
                "Define must protect the server after it changed the definition");
        assertFalse(define.substring(0, define.indexOf("Terminal.Installer).ProtectServer()")).contains("Quit:'changed"),
                "no early return may skip ProtectServer");
        // Terminal.Gateway explains a refused connection with the server's own resource, not %Gateway_Object.
        String explain = method(read(Path.of("cls", "Terminal", "Gateway.cls")), "Explain");
        assertTrue(explain.contains("##class(Terminal.Installer).ServerResource(name)"), "Gateway.Explain");
        assertFalse(explain.contains("Check(\"%Gateway_Object\""), "Gateway.Explain");
    }

    @Test
    void noFileNamesTheOldRole() {
        List<Path> files = Stream.concat(
                Stream.of("cls", "tests/cls", "tests/java", "docs", "java").map(Path::of).flatMap(InstallerSourceTest::walk),
                Stream.of(Path.of("README.md"), Path.of("install")))
                // pictures (docs/ui.png, the browser view's screenshot) name nothing
                .filter(f -> !f.toString().endsWith(".png")).toList();
        String old = "%IRISTerminal_Agent";
        for (Path file : files) {
            if (file.endsWith("InstallerSourceTest.java")) {
                continue;
            }
            String[] lines = read(file).split("\n");
            for (int i = 0; i < lines.length; i++) {
                // Only the installer's LEGACYROLE parameter, which removes the old role, and the docs' note on it.
                boolean legacy = lines[i].contains("LEGACYROLE") || lines[i].contains("earlier version");
                assertFalse(lines[i].contains(old) && !legacy, file + ":" + (i + 1) + " names the old role: " + lines[i].trim());
            }
        }
        assertEquals(old, parameter(read(INSTALLER), "LEGACYROLE"));
    }

    private static Stream<Path> walk(Path dir) {
        try {
            return Files.walk(dir).filter(Files::isRegularFile).toList().stream();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** {@code Do ..Line(pReport, "name", …)}: one line of Terminal.Installer.Check()'s table. */
    private static final Pattern CHECK_LINE = Pattern.compile("\\.\\.Line\\(pReport, \"([^\"]+)\"");
    /** The names of the lines Check prints when the server does not run (a literal list). */
    private static final Pattern NOT_RUN = Pattern.compile("For name = ((?:\"[^\"]+\"(?:, )?)+) \\{");

    /** Every line Terminal.Installer.Check() can print, by name (the doctor's own follow; DoctorTest holds those). */
    static List<String> checkLines() {
        String installer = read(INSTALLER);
        List<String> names = new java.util.ArrayList<>();
        Matcher m = CHECK_LINE.matcher(installer);
        while (m.find()) {
            if (!names.contains(m.group(1))) {
                names.add(m.group(1));
            }
        }
        Matcher notRun = NOT_RUN.matcher(method(installer, "Check"));
        assertTrue(notRun.find(), "Check's list of lines not run without a server");
        Matcher literal = Pattern.compile("\"([^\"]+)\"").matcher(notRun.group(1));
        while (literal.find()) {
            if (!names.contains(literal.group(1))) {
                names.add(literal.group(1));
            }
        }
        return names;
    }

    /**
     * The first live run is an administrator reading Check's table: each line it can print has a row in
     * README's troubleshooting table (keyed by the line's name) and is explained in docs/hosted.md.
     */
    @Test
    void everyCheckLineHasATroubleshootingRowAndAnExplanation() {
        List<String> names = checkLines();
        assertTrue(names.containsAll(List.of("web application", "web application authentication", "web application roles",
                "resources", "agent role", "run-data store", "server definition", "gateway resource", "bridge jar",
                "server running", "Java version", "jar matches classes", "reentrant call",
                "MCP through the web application", "engine checks")), names::toString);
        String readme = read(Path.of("README.md"));
        String hosted = read(Path.of("docs", "hosted.md"));
        for (String name : names) {
            assertTrue(readme.contains("\n| `" + name + "` |"), "README has no troubleshooting row | `" + name + "` |");
            assertTrue(hosted.contains("`" + name + "`"), "docs/hosted.md does not explain the check `" + name + "`");
        }
    }

    /** Check's lines carry the same fields and verdict as the doctor's table, and its status says whether all passed. */
    @Test
    void checkReportsLikeTheDoctorAndFailsItsStatusOnAFailedLine() {
        String installer = read(INSTALLER);
        String check = method(installer, "Check");
        assertTrue(check.contains("Quit:pReport.ok $$$OK"), "Check's status is OK only when every line passed");
        assertTrue(check.contains("..DoctorLines(pReport)") && method(installer, "DoctorLines").contains("##class(Terminal.Gateway).Doctor()"),
                "the engine checks are the doctor's, run through Terminal.Gateway.Doctor(), not a copy");
        assertTrue(method(installer, "StoreLines").contains("##class(Terminal.Store).Check(pNamespace)"), "Store.Check is reused");
        String line = method(installer, "Line");
        for (String field : List.of("\"check\"", "\"ok\"", "\"seen\"", "\"fix\"")) {
            assertTrue(line.contains(field), "a line has the doctor's field " + field);
        }
        String print = method(installer, "Print");
        assertTrue(print.contains("$Select(line.ok: \"ok  \", 1: \"FAIL\"), \"  \", line.check, \": \", line.seen")
                && print.contains("\" -> \", line.fix"), "printed as iristerm.doctor.Finding.line() prints");
        // Install ends with Check (when it starts the server), reporting but not failing on it.
        String install = method(installer, "Install");
        assertTrue(install.contains("If pStart && $$$ISERR(..Check(app))"), "Install runs Check at its end");
    }

    /** The temporary user of the MCP line is deleted on every path: after the Try/Catch, never inside it. */
    @Test
    void theTemporaryUserIsAlwaysDeleted() {
        String installer = read(INSTALLER);
        String mcp = method(installer, "McpVerdict");
        int made = at(mcp, "..TemporaryUser(pNamespace, .password)");
        int caught = at(mcp, "} Catch ex {");
        int dropped = at(mcp, "..DropTemporaryUsers(1)");
        assertTrue(made < caught && caught < dropped, "DropTemporaryUsers(1) must follow the Try/Catch that creates the user");
        assertFalse(mcp.substring(caught, dropped).contains("Quit"), "no return between the Catch and the deletion");
        // recorded before it exists, so that a killed Check's user is deleted by the next one
        String user = method(installer, "TemporaryUser");
        assertTrue(at(user, "Set ^%IRISTerminal(\"checkuser\", name) = $Job") < at(user, "Security.Users).Create("));
        assertTrue(at(mcp, "..DropTemporaryUsers(0)") < made, "leftovers are deleted first");
        // only the agent role and the namespace's database roles; a random password nobody else knows
        assertTrue(user.contains("roles = ..#ROLE") && user.contains("$System.Encryption.GenCryptRand("), user);
        assertFalse(user.contains("%All"), user);
    }

    /** ./install runs Check after loading the module and exits non-zero when it did not pass. */
    @Test
    void theInstallScriptRunsCheckAndExitsOnItsVerdict() {
        String script = read(Path.of("install"));
        assertTrue(script.contains("do ##class(Terminal.Installer).Check(, , $(os_string \"$web_url\"), $(os_string \"$ssl_config\"))"),
                "./install runs Check with the web server address it was given");
        assertTrue(script.contains("IRIS Terminal check: all [0-9]+ checks passed"), "./install reads Check's verdict line");
        assertTrue(method(read(INSTALLER), "Verdict").contains("\"IRIS Terminal check: \"_$Select(failed: failed_\" of \"_pReport.checks.%Size()_\" checks failed\", 1: \"all \"_pReport.checks.%Size()_\" checks passed\")"),
                "the verdict line ./install reads");
    }

    /**
     * Review G1: the MCP line takes the agent's first real step as the temporary agent user (session_open of an
     * iris session, which Terminal.Session's code guard refuses to a writer of the code database), runs
     * Terminal.Store.Check() as that user and reports its part "code database not writable" as a line of its own;
     * a refused session_open fails the line with the code-database fix.
     */
    @Test
    void theMcpLineOpensASessionAndJudgesTheCodeDatabaseAsTheAgent() {
        String installer = read(INSTALLER);
        String mcp = method(installer, "McpVerdict");
        int list = at(mcp, "\"session_list\", {})");
        int open = at(mcp, "\"session_open\", {\"kind\":\"iris\"");
        int run = at(mcp, "\"iris_execute\", {\"session\":(id), \"code\":\"write ##class(Terminal.Store).Check().%ToJSON()\"}");
        int close = at(mcp, "\"session_close\", {\"session\":(id)})");
        int delete = at(mcp, "..Rpc(\"DELETE\"");
        assertTrue(list < open && open < run && run < close && close < delete, "list, open, execute, close, then DELETE");
        assertTrue(mcp.contains("Set step = \"session_open\"") && mcp.contains("$Select(step=\"session_open\": openFix, 1: fix)"),
                "a refused session_open fails the MCP line with the code-database fix");
        assertTrue(method(installer, "Tool").contains("If result.isError {"), "a tool error is a failure, not an answer");
        assertTrue(method(installer, "Check").contains("Do ..Line(pReport, \"code database as an agent\", codeVerdict)"),
                "Check reports the agent's code database part");
        assertTrue(method(installer, "AgentCodeVerdict").contains("part.part=\"code database not writable\""));
        assertTrue(method(read(STORE), "Check").contains("Do ..Part(report, \"code database not writable\", $$$ISOK(codeSC) && 'codeWritable"),
                "Store.Check has the part, judged by the caller's own access");
    }

    /** Review G3: without a web server address the MCP line is "not checked" (ok), and says how to give one. */
    @Test
    void noWebServerAddressIsNotCheckedAndTheScriptTakesOne() throws Exception {
        String mcp = method(read(INSTALLER), "McpVerdict");
        assertTrue(mcp.contains("If pBaseURL = \"\" {\n\t\tSet pCodeVerdict = $ListBuild(1, \"not checked"), "no address: not checked");
        assertTrue(mcp.contains("Quit $ListBuild(1, \"not checked: no web server address known") && mcp.contains("./install --web-url https://host:port"),
                "the MCP line is not checked either, and names the option");
        for (String[] run : List.of(new String[] {"ftp://host", "1"}, new String[] {"https://host:443/path", "1"},
                new String[] {"https://host:443", "0"})) {
            Process p = new ProcessBuilder("bash", "install", "--web-url", run[0], "--print-steps").redirectErrorStream(true).start();
            p.getOutputStream().close();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "./install --print-steps did not finish");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(Integer.parseInt(run[1]), p.exitValue(), "--web-url " + run[0] + ": " + out);
            if (run[1].equals("1")) {
                assertTrue(out.contains("--web-url must be http(s)://host[:port], without a path"), out);
            }
        }
    }

    /** Review G4: a browser prompts for credentials only on a 401 with a Basic challenge; /ui's 401 carries one. */
    @Test
    void theBrowserViewsUnauthorizedAnswerChallengesForBasic() {
        String report = method(read(Path.of("cls", "Terminal", "REST.cls")), "ReportHttpStatusCode");
        int branch = at(report, "If (code = 401) && ($Piece(..Path(), \"/\", 2) = \"ui\") {");
        int challenge = at(report, "Do %response.SetHeader(\"WWW-Authenticate\", \"Basic realm=");
        int json = at(report, "Do ..WriteError(code, message");
        assertTrue(branch < challenge && challenge < json, "the challenge is set for /ui before the JSON-RPC answer of the rest");
    }

    /** Review G6: the REST class comment does not claim the 60 s bound for a tool's call back into IRIS. */
    @Test
    void theRestCommentSaysACallBackIntoIrisIsNotCutShort() {
        String rest = read(Path.of("cls", "Terminal", "REST.cls"));
        String comment = rest.substring(0, at(rest, "Class Terminal.REST "));
        assertTrue(comment.contains("is not cut short"), "the call back into IRIS is named as unbounded");
        assertFalse(comment.contains("That keeps a request under the Web"), "the old unqualified claim");
    }

    /** Review G5: a user of the temporary name that Check did not make is never recorded (so never deleted as
     * Check's), and the last Uninstall deletes recorded leftovers before it forgets the records. */
    @Test
    void temporaryUsersAreNeitherTakenOverNorOrphaned() {
        String installer = read(INSTALLER);
        String user = method(installer, "TemporaryUser");
        assertTrue(at(user, "If ##class(Security.Users).Exists(name) {") < at(user, "Set ^%IRISTerminal(\"checkuser\", name) = $Job"));
        String uninstall = method(installer, "UninstallOne");
        assertTrue(at(uninstall, "$$$ThrowOnError(..DropTemporaryUsers(0))") < at(uninstall, "\t\tKill ^%IRISTerminal\n"));
    }

    /** Review G2, G5, G6 minors, each as its text shows it. */
    @Test
    void reviewGMinorsHold() {
        String installer = read(INSTALLER);
        String store = read(STORE);
        // G2: the directory is the last piece of a destination, whatever the form
        assertTrue(method(store, "CodeLocation").contains("Do ..DestParts(dest, .system, .dir)"));
        assertTrue(method(store, "DestParts").contains("Set dir = $Piece(dest, \"^\", *)"));
        // G6: only <PROTECT> is the refusal the probe looks for
        String check = method(store, "Check");
        assertTrue(check.contains("Set:ex.Name'=\"<PROTECT>\" probeError = ex.DisplayString()") && check.contains("} ElseIf probeError '= \"\" {"));
        // G5: a planted record adopts the legacy role only with the earlier installer's Description
        assertTrue(method(installer, "AdoptLegacyRecords").contains("(..RoleDescription(..#LEGACYROLE)=..#AGENTROLEDESCRIPTION)"));
        // G5: Check judges HOME's installation, the only one Install makes
        assertTrue(method(installer, "Check").contains("ns = ##class(Terminal.Store).#HOME"));
        // G5: an SSE answer's data lines are joined, not only the last one taken
        assertTrue(method(installer, "Rpc").contains("text = ..SseData(text)"));
        assertTrue(method(installer, "SseData").contains("Set event = event_$Select(has: $Char(10), 1: \"\")_value"));
        // G5: a version that keeps no server Resource is not retried (each try stops the JVM)
        String protect = method(installer, "ProtectServer");
        assertTrue(protect.contains("If (previous '= ..#GWRESOURCE) && 'unsupported {")
                && protect.contains("Set ^%IRISTerminal(\"serverResourceUnsupported\") = $ZVersion"));
    }

    @Test
    void auditSetupLeavesAnExistingEventAsItIs() {
        String setup = method(read(AUDIT), "Setup");
        assertFalse(setup.contains("Modify("), "Setup must not change an existing event (an administrator may have disabled it)");
        assertTrue(at(setup, "Quit:##class(Security.Events).Exists(") < at(setup, "Security.Events).Create("));
    }

    @Test
    void sharedObjectsAreRecordedOncePerInstance() {
        String installer = read(INSTALLER);
        assertFalse(Pattern.compile("Set\\s+\\^Terminal\\.Installer\\(\"obj\"").matcher(installer).find(),
                "shared objects must not be recorded per namespace");
        assertFalse(installer.contains("Set ^Terminal.Audit("), "the audit event is recorded with the other shared objects");
        assertTrue(method(installer, "Record").contains("Set ^%IRISTerminal(\"obj\", pKind, pName)"));
        String uninstall = method(installer, "UninstallOne");
        int guard = at(uninstall, "Quit:'lastOfInstance");
        for (String deletion : List.of("Gateway).Remove()", "Audit).Teardown()", "Store).Teardown(", "..DeleteSecurity(")) {
            assertTrue(guard < at(uninstall, deletion), deletion + " must come after the check for other installations");
        }
        assertTrue(at(method(installer, "Install"), "Set ^%IRISTerminal(\"install\", ns, app)") < at(method(installer, "Install"), "..EnsureResources()"),
                "an installation is recorded before it creates anything, so that Uninstall can undo a partial one");
    }

    @Test
    void uninstallEndsSessionsBeforeDeletingAnything() {
        String installer = read(INSTALLER);
        String uninstall = method(installer, "UninstallOne");
        int end = at(uninstall, "..EndSessions()");
        for (String deletion : List.of("..DeleteApp(", "..ReleaseApp(", "Gateway).Remove()", "Audit).Teardown()", "Store).Teardown(", "..DeleteSecurity(", "Kill ^")) {
            assertTrue(end < at(uninstall, deletion), "sessions must end before " + deletion);
        }
        String sessions = method(installer, "EndSessions");
        assertTrue(at(sessions, "%ExistsId(\"Terminal.Session||EndAll\")") < at(sessions, "$ClassMethod(\"Terminal.Session\", \"EndAll\")"),
                "an older Terminal.Session without EndAll must not break Uninstall");
        // E8: no store, no session; a failing EndAll is reported and the uninstall goes on.
        assertTrue(at(sessions, "Quit:'##class(Terminal.Store).Exists() $$$OK") < at(sessions, "$ClassMethod(\"Terminal.Session\", \"EndAll\")"));
        assertTrue(sessions.strip().endsWith("Quit $$$OK"), "EndSessions must not fail the uninstall");
        // E9: EndAll ends the sessions of the whole instance, so only the last installation of the instance calls it.
        assertTrue(uninstall.contains("If lastOfInstance $$$ThrowOnError(..EndSessions())"));
    }

    /** E6: what administrator-run code acts on is never read from a global agents may write. */
    @Test
    void adminRunCodeActsOnlyOnRecordsInTheSystemGlobal() {
        String installer = read(INSTALLER), gateway = read(GATEWAY);
        Pattern namespaceGlobal = Pattern.compile("\\^Terminal\\.(Installer|Gateway|Audit)\\(");
        assertFalse(namespaceGlobal.matcher(gateway.lines().filter(l -> !l.startsWith("///")).collect(Collectors.joining("\n"))).find(),
                "Terminal.Gateway must keep its settings in ^%IRISTerminal");
        String adopt = method(installer, "AdoptLegacyRecords");
        String code = installer.replace(adopt, "").lines().filter(l -> !l.startsWith("///")).collect(Collectors.joining("\n"));
        Matcher m = namespaceGlobal.matcher(code);
        boolean found = m.find();
        assertFalse(found, "only AdoptLegacyRecords may read the earlier versions' globals: " + (found ? m.group() : ""));
        assertFalse(adopt.contains("Merge"), "earlier records must not be taken over as they are");
        assertFalse(adopt.contains("Record(\"app\""), "an earlier web application is an installation, never the installer's own");
        assertTrue(adopt.contains("info.dispatchClass = ..#DISPATCHCLASS"), "only an existing Terminal.REST application is adopted");
        assertTrue(method(gateway, "JarPath").contains("$Get(^%IRISTerminal(\"jar\"))"));
        assertTrue(method(gateway, "SetJarPath").contains("Set ^%IRISTerminal(\"jar\") = pPath"));
        assertTrue(method(installer, "CheckURL").contains("Set ^%IRISTerminal(\"check\")"));
        assertTrue(method(installer, "UninstallOne").contains("Set created = ''$Data(^%IRISTerminal(\"obj\", \"app\", app))"));
        assertTrue(method(installer, "EnsureApp").contains("Do ..Record(\"app\", pWebApp)"));
    }

    /** E7, E3: the store is HOME's, set up without an argument, and counted as created only when nothing of it existed. */
    @Test
    void installSetsUpTheStoreOfTheNamespaceTheClassesWereCompiledIn() {
        String install = method(read(INSTALLER), "Install");
        assertTrue(install.contains("ns = ##class(Terminal.Store).#HOME"));
        assertTrue(at(install, "If asked '= $ZConvert(ns, \"U\") {") < at(install, "Set ^%IRISTerminal(\"install\", ns, app)"), "another namespace is refused before anything is made");
        assertTrue(at(install, "Set storeWasThere = ##class(Terminal.Store).Exists()") < at(install, "##class(Terminal.Store).Setup()"));
        assertFalse(install.contains("Check(ns).ok"), "a failing check part does not make a store the installer's");
        assertTrue(method(read(INSTALLER), "UninstallOne").contains("ns = ##class(Terminal.Store).#HOME"), "Uninstall finds the records Install wrote");
    }

    /** E4: IPM's uninstall calls Uninstall() without a name; every installation of the namespace goes. */
    @Test
    void uninstallWithoutANameRemovesEveryInstallationOfTheNamespace() {
        String uninstall = method(read(INSTALLER), "Uninstall");
        assertTrue(at(uninstall, "Quit:pWebApp'=\"\" ..UninstallOne(pWebApp)") < at(uninstall, "$Order(^%IRISTerminal(\"install\", ns, app))"));
        assertTrue(uninstall.contains("..UninstallOne($List(apps, i))"));
        assertTrue(read(Path.of("module.xml")).contains("Method=\"Uninstall\""), "module.xml calls Uninstall");
    }

    /** E1: the routine application keeps every installation's code database, from records only administrators write. */
    @Test
    void theRoutineApplicationIsBuiltFromEveryInstallationsRecord() {
        String store = read(STORE);
        String setup = method(store, "Setup");
        assertTrue(at(setup, "Set ^%IRISTerminal(\"code\", ns) = codeDb") < at(setup, "Set entries = ..Entries()"));
        assertTrue(at(setup, "Set entries = ..Entries()") < at(setup, "Set appProps(\"Routines\") = entries"));
        assertTrue(method(store, "Entries").contains("$Order(^%IRISTerminal(\"code\", ns), 1, db)"));
        assertTrue(method(store, "Release").contains("Kill ^%IRISTerminal(\"code\""));
        assertTrue(method(read(INSTALLER), "UninstallOne").contains("If lastHere && 'lastOfInstance $$$ThrowOnError(##class(Terminal.Store).Release())"));
        // E9: %All is a role of the list, not a substring of a role's name.
        assertFalse(method(store, "Check").contains("$Roles [ \"%All\""));
    }

    /**
     * E10/D7: a caller's SQL runs contained in the process that may hold the web application's role: a frame
     * that is not a procedure block NEWs $ROLES, $ETRAP and (exclusively) the public variables; the frame inside
     * it removes transactions, process-private globals and public variables before the roles come back.
     */
    @Test
    void theCallersSqlRunsContained() {
        String sql = read(SQL);
        Matcher isolated = Pattern.compile("\\nClassMethod Isolated\\((\\w+) As %String\\) As %List \\[([^\\]]*)\\]").matcher(sql);
        assertTrue(isolated.find(), "Terminal.SQL.Isolated(one string)");
        String formal = isolated.group(1);
        assertTrue(isolated.group(2).contains("ProcedureBlock = 0"), "only a non-procedure frame may NEW the public variables");
        String body = method(sql, "Isolated");
        int roles = at(body, "New $Roles, $ETrap");
        assertTrue(roles < at(body, "Set $Roles = \"\", $ETrap = \"\"") && roles < at(body, "New (" + formal + ")"));
        assertTrue(at(body, "New (" + formal + ")") < at(body, "Quit ..Contain(" + formal + ")"));
        String contain = method(sql, "Contain");
        int statement = at(contain, "..Statement(pRequest)");
        for (String cleanup : List.of("TRollback 1", "$Order(^$||GLOBAL(g))", "Kill @$List(left, i)", "Halt:..PublicVariables()'=\"\"")) {
            assertTrue(statement < contain.lastIndexOf(cleanup), cleanup + " must follow the statement");
        }
        // Review F2: the request variable is public in Isolated, so the statement can set it; it is killed too.
        assertFalse(method(sql, "PublicVariables").contains("v'=\"" + formal + "\""), "the request of Isolated is cleaned like any other variable");
        String run = method(sql, "Run");
        assertTrue(run.contains("..Isolated("), "Run goes through Isolated");
        assertFalse(run.contains("%Execute") || run.contains("New $Roles"), "no statement outside the contained frames");
    }

    /** B7: the client gets an id for messages.log, never the exception text. */
    @Test
    void gatewayExplainAnswersAnIdNotTheExceptionText() {
        String explain = method(read(GATEWAY), "Explain");
        assertTrue(explain.contains("Set id = ##class(Terminal.REST).Logged(detail)"));
        assertFalse(explain.contains("$Extract(detail"), "no exception text in the client's message");
    }

    @Test
    void restErrorAnswersCarryAnIdNotInternalDetail() {
        String rest = read(Path.of("cls", "Terminal", "REST.cls"));
        String mcp = method(rest, "Mcp");
        String internal = mcp.substring(at(mcp, "} Catch ex {\n\t\t// Reached only by a defect here"));
        assertTrue(internal.contains("..Logged(ex.DisplayString())"), "the internal error's detail goes to messages.log");
        assertFalse(internal.replace("..Logged(ex.DisplayString())", "").contains("DisplayString()"), "no detail in the answer");
        String report = method(rest, "ReportHttpStatusCode");
        assertTrue(report.contains("..Logged($System.Status.GetErrorText(pSC))"), "a 5xx detail goes to messages.log");
        assertFalse(report.replace("..Logged($System.Status.GetErrorText(pSC))", "").contains("GetErrorText"), "no status text in the answer");
    }

    @Test
    void theInstallScriptNamesTheJarModuleXmlCopies() throws Exception {
        Matcher copy = Pattern.compile("<FileCopy Name=\"([^\"]+)\" Target=\"\\$\\{(mgr|lib)dir\\}([^\"]+)\"").matcher(read(Path.of("module.xml")));
        assertTrue(copy.find(), "module.xml: FileCopy");
        Process p = new ProcessBuilder("bash", "install", "--print-steps").redirectErrorStream(true).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "./install --print-steps did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        String dir = "<install-dir>/" + copy.group(2) + "/";
        assertTrue(out.contains("cp " + Path.of("").toAbsolutePath().resolve(copy.group(1)) + " " + dir + "\n"), out);
        assertTrue(out.contains("Install(\"" + dir + copy.group(3) + "\")"), out);
        assertFalse(out.contains("Building"), "--print-steps must not build");
    }
}
