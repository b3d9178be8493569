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
 * Terminal.REST's error answers carry an id for messages.log, not internal detail.
 */
class InstallerSourceTest {
    private static final Path INSTALLER = Path.of("cls", "Terminal", "Installer.cls");
    private static final Path AUDIT = Path.of("cls", "Terminal", "Audit.cls");

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
        assertFalse(parameter(installer, "APPROLE").startsWith("%"), "role names without %");
        Set<String> agent = list(parameter(installer, "ROLERESOURCES"));
        Set<String> gateway = list(parameter(installer, "GATEWAYRESOURCES"));
        assertTrue(gateway.contains("%GATEWAY_OBJECT"), gateway.toString());
        assertTrue(gateway.contains(parameter(installer, "GWRESOURCE").toUpperCase()), gateway.toString());
        for (String resource : agent) {
            assertFalse(gateway.contains(resource), "the agent role grants " + resource + ", which opens the Java server");
        }
        // Created or completed, the agent role is stripped of every gateway grant.
        assertTrue(method(installer, "Install").contains("..EnsureRole(..#ROLE, \"IRIS Terminal: agent users of the MCP endpoint\", ..#ROLERESOURCES, ..#GATEWAYRESOURCES)"));
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
        assertTrue(protect.contains("modifyServer({\"Name\":(name), \"Resource\":(..#GWRESOURCE)})"),
                "the server definition's Resource must be set to the installer's own resource");
        assertTrue(method(installer, "Install").indexOf("..ProtectServer()") > method(installer, "Install").indexOf("Gateway).Define("));
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
        String uninstall = method(installer, "Uninstall");
        int guard = at(uninstall, "Quit:$Data(^%IRISTerminal(\"install\"))");
        for (String deletion : List.of("Gateway).Remove()", "Audit).Teardown()", "Store).Teardown(", "..DeleteSecurity(")) {
            assertTrue(guard < at(uninstall, deletion), deletion + " must come after the check for other installations");
        }
        assertTrue(at(method(installer, "Install"), "Set ^%IRISTerminal(\"install\", ns, app)") < at(method(installer, "Install"), "..EnsureResources()"),
                "an installation is recorded before it creates anything, so that Uninstall can undo a partial one");
    }

    @Test
    void uninstallEndsSessionsBeforeDeletingAnything() {
        String installer = read(INSTALLER);
        String uninstall = method(installer, "Uninstall");
        int end = at(uninstall, "..EndSessions()");
        for (String deletion : List.of("..DeleteApp(", "..ReleaseApp(", "Gateway).Remove()", "Audit).Teardown()", "Store).Teardown(", "..DeleteSecurity(", "Kill ^")) {
            assertTrue(end < at(uninstall, deletion), "sessions must end before " + deletion);
        }
        String sessions = method(installer, "EndSessions");
        assertTrue(at(sessions, "%ExistsId(\"Terminal.Session||EndAll\")") < at(sessions, "$ClassMethod(\"Terminal.Session\", \"EndAll\")"),
                "an older Terminal.Session without EndAll must not break Uninstall");
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
