package iristerm.hosted;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Holds what the ObjectScript side calls through the External Java Server against the Java bridge:
 * every {@code ..Invoke(..#BRIDGE, "method", args…)} (Terminal.Gateway's one call into Java) in cls/Terminal
 * names a public static method
 * of the class {@code Parameter BRIDGE} names, taking that many String arguments and returning a
 * String — the only type that crosses the gateway.
 */
class BridgeContractTest {
    private static final Path CLS = Path.of("cls", "Terminal");
    private static final Pattern BRIDGE_PARAM = Pattern.compile("Parameter\\s+BRIDGE\\s*=\\s*\"([^\"]+)\"");
    private static final Pattern INVOKE = Pattern.compile("\\.Invoke\\(\\s*\\.\\.#BRIDGE\\s*,\\s*\"(\\w+)\"([^)]*)\\)");

    record Call(String file, String method, int arity) {
    }

    private static List<Call> calls() throws Exception {
        List<Call> out = new ArrayList<>();
        for (String file : List.of("Gateway.cls", "REST.cls")) {
            String text = Files.readString(CLS.resolve(file));
            Matcher m = INVOKE.matcher(text);
            while (m.find()) {
                String rest = m.group(2).trim();
                int arity = rest.isEmpty() ? 0 : rest.split(",", -1).length - 1;
                out.add(new Call(file, m.group(1), arity));
            }
        }
        return out;
    }

    @Test
    void theBridgeClassTheObjectScriptNamesIsThisOne() throws Exception {
        Matcher m = BRIDGE_PARAM.matcher(Files.readString(CLS.resolve("Gateway.cls")));
        assertTrue(m.find(), "Terminal.Gateway must declare Parameter BRIDGE");
        assertEquals(Bridge.class.getName(), m.group(1));
    }

    @Test
    void everyInvokedMethodExistsWithThatManyStringArguments() throws Exception {
        List<Call> calls = calls();
        assertFalse(calls.isEmpty(), "no ..Invoke(..#BRIDGE, …) found in cls/Terminal: the parser no longer matches");
        assertTrue(calls.stream().anyMatch(c -> c.method().equals("handle") && c.arity() == 3), calls::toString);
        assertTrue(calls.stream().anyMatch(c -> c.method().equals("doctor") && c.arity() == 0), calls::toString);
        assertTrue(calls.stream().anyMatch(c -> c.method().equals("probe") && c.arity() == 0), calls::toString);
        assertTrue(calls.stream().anyMatch(c -> c.method().equals("ui") && c.arity() == 4), calls::toString);
        assertTrue(calls.stream().anyMatch(c -> c.method().equals("version") && c.arity() == 0), calls::toString);
        // the user a request is for is IRIS's to say ($USERNAME of the calling process, which the bridge asks for),
        // never an argument that whatever calls Terminal.Gateway could set
        String rest = Files.readString(CLS.resolve("REST.cls"));
        Matcher relay = Pattern.compile("Do \\.\\.Relay\\(([^\\n]*)\\)\\n").matcher(rest);
        int relays = 0;
        while (relay.find()) {
            relays++;
            assertFalse(relay.group(1).contains("$Username"), "Terminal.REST passes a user to the bridge: " + relay.group());
        }
        assertEquals(2, relays, "the parser found Terminal.REST's two Relay calls");
        for (Call c : calls) {
            Method found = Arrays.stream(Bridge.class.getMethods())
                    .filter(m -> m.getName().equals(c.method()) && m.getParameterCount() == c.arity())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(c.file() + " invokes " + c.method() + " with " + c.arity()
                            + " arguments, but " + Bridge.class.getName() + " has no such public method"));
            assertTrue(Modifier.isStatic(found.getModifiers()), found + " must be static");
            assertEquals(String.class, found.getReturnType(), found + " must return String");
            for (Class<?> p : found.getParameterTypes()) {
                assertEquals(String.class, p, found + ": only strings cross the gateway");
            }
        }
    }

    /**
     * Terminal.Gateway.Doctor() turns what Bridge.doctor() returns into a %DynamicObject: it is the
     * doctor's JSON table even when the checks cannot reach IRIS (here: no gateway thread to call back on).
     */
    @Test
    void theDoctorAnswersItsTableAsJsonAlsoWhenIrisIsOutOfReach() throws Exception {
        tools.jackson.databind.JsonNode table = tools.jackson.databind.json.JsonMapper.builder().build()
                .readTree(Bridge.doctor());
        assertFalse(table.path("ok").asBoolean(true), table.toString());
        tools.jackson.databind.JsonNode login = table.path("checks").path(0);
        assertEquals("login and privileges", login.path("check").asString(), table.toString());
        assertFalse(login.path("ok").asBoolean(true), table.toString());
        assertTrue(login.path("seen").asString().contains("gateway thread"), table.toString());
        assertFalse(login.path("fix").asString().isBlank(), table.toString());
    }

    /**
     * Engine review round 8, E8-7: what a user may see and run is asked of a public Terminal.Session method that sets
     * the request's added roles aside first, never of {@code $SYSTEM.Security.Check} in that process, which holds the
     * web application's role.
     */
    @Test
    void privilegesAreAskedWithTheLoginsRolesOnly() throws Exception {
        String session = Files.readString(CLS.resolve("Session.cls"));
        Matcher holds = Pattern.compile("\\nClassMethod " + GatewayPrivileges.METHOD
                + "\\(resource As %String, permission As %String\\) As %Boolean\\n\\{\\n([^}]*)\\}").matcher(session);
        assertTrue(holds.find(), "Terminal.Session declares no public " + GatewayPrivileges.METHOD + "(resource, permission) As %Boolean");
        String body = holds.group(1);
        assertTrue(body.indexOf("New $Roles") < body.indexOf("Set $Roles = \"\"")
                && body.indexOf("Set $Roles = \"\"") < body.indexOf("$System.Security.Check(resource, permission)"), body);
        assertTrue(body.contains("Quit:$ListFind($ListFromString($Roles), ##class(Terminal.Engine).#BRIDGEROLE) 0"),
                "0 while the bridge role is still held: " + body);
        String java = Files.readString(Path.of("java", "iristerm", "hosted", "GatewayPrivileges.java"));
        assertFalse(java.contains("\"%SYSTEM.Security\""), "the bridge asks %SYSTEM.Security directly");
    }

    /** {@code ##class(Terminal.Gateway).Name(}: a call from another Terminal class into Terminal.Gateway. */
    private static final Pattern GATEWAY_CALL = Pattern.compile("##class\\(Terminal\\.Gateway\\)\\.(\\w+)\\(");

    /**
     * Terminal.Installer.Check() reaches Java only through Terminal.Gateway (Start, CheckJava, Probe, Doctor,
     * Status): every Gateway method the Installer calls is a class method Gateway declares, and the Gateway
     * methods that cross into Java are held to the bridge by the test above.
     */
    @Test
    void everyGatewayMethodTheInstallerCallsExists() throws Exception {
        String installer = Files.readString(CLS.resolve("Installer.cls"));
        String gateway = Files.readString(CLS.resolve("Gateway.cls"));
        Matcher m = GATEWAY_CALL.matcher(installer);
        List<String> called = new ArrayList<>();
        while (m.find()) {
            called.add(m.group(1));
            assertTrue(Pattern.compile("\\nClassMethod\\s+" + m.group(1) + "\\(").matcher(gateway).find(),
                    "Terminal.Installer calls Terminal.Gateway." + m.group(1) + "(), which Gateway.cls does not declare");
        }
        assertTrue(called.containsAll(List.of("Start", "CheckJava", "Probe", "Doctor", "Status")), called::toString);
        assertTrue(Pattern.compile("ClassMethod Probe\\(\\)[^{]*\\{[^}]*Invoke\\(\\.\\.#BRIDGE, \"probe\"\\)").matcher(gateway).find(),
                "Terminal.Gateway.Probe() must invoke Bridge.probe()");
    }

    /** {@code ..Invoke("java.lang.System", "getProperty", "java.specification.version")}: a JDK class by name. */
    private static final Pattern JDK_INVOKE = Pattern.compile(
            "\\.Invoke\\(\\s*\"(java\\.[\\w.]+)\"\\s*,\\s*\"(\\w+)\"((?:\\s*,\\s*\"[^\"]*\")*)\\s*\\)");

    /**
     * The Java version check asks the JDK itself (an older JVM cannot load the bridge, built for
     * release 17): every such call names a public static String method of a JDK class, with literal
     * String arguments that this JVM answers.
     */
    @Test
    void everyJdkMethodTheObjectScriptInvokesExistsAndAnswers() throws Exception {
        Matcher m = JDK_INVOKE.matcher(Files.readString(CLS.resolve("Gateway.cls")));
        int seen = 0;
        while (m.find()) {
            seen++;
            List<String> args = new ArrayList<>();
            Matcher literal = Pattern.compile("\"([^\"]*)\"").matcher(m.group(3));
            while (literal.find()) {
                args.add(literal.group(1));
            }
            Class<?>[] types = new Class<?>[args.size()];
            Arrays.fill(types, String.class);
            Method method = Class.forName(m.group(1)).getMethod(m.group(2), types);
            assertTrue(Modifier.isStatic(method.getModifiers()), method + " must be static");
            assertEquals(String.class, method.getReturnType(), method + " must return String");
            assertNotNull(method.invoke(null, args.toArray()), method + " answered null for " + args);
        }
        assertTrue(seen > 0, "Terminal.Gateway no longer asks the JVM for its Java version");
    }

    /** Terminal.Gateway.BridgeJVMArgs() names the properties the bridge and slf4j-simple read. */
    @Test
    void theJvmArgumentsNameTheDataDirectoryAndLogFileProperties() throws Exception {
        String gateway = Files.readString(CLS.resolve("Gateway.cls"));
        Matcher body = Pattern.compile("ClassMethod BridgeJVMArgs\\(\\)[^{]*\\{([^}]*)\\}").matcher(gateway);
        assertTrue(body.find(), "Terminal.Gateway must have BridgeJVMArgs()");
        assertTrue(body.group(1).contains("..Property(\"" + HostedConfig.DATA_DIR_PROPERTY + "\","), body.group(1));
        assertTrue(body.group(1).contains("..Property(\"org.slf4j.simpleLogger.logFile\","), body.group(1));
        // hosted review round 7 (H7-1): nothing attaches to the bridge's JVM, and Check requires it
        assertTrue(body.group(1).contains("_..#NOATTACH") && gateway.contains("Parameter NOATTACH = \"-XX:+DisableAttachMechanism\";"), body.group(1));
        String installer = Files.readString(CLS.resolve("Installer.cls"));
        assertTrue(installer.contains("Quit:'$ListFind(##class(Terminal.Gateway).SplitJVMArgs(pGateway.jvmArgs), noAttach) $ListBuild(0,"), "Check's server definition line");
        // engine review round 7 (E7-2): the audit record's size is counted in UTF-8 and as IRIS keeps the text
        String audit = Files.readString(CLS.resolve("Audit.cls"));
        assertTrue(audit.contains("kept = $Length(data) * $Select($ZIsWide(data): 2, 1: 1)")
                && audit.contains("Throw:(bytes>..#MAXDATA)||(kept>..#MAXDATA)"), "both sizes are held to the record's");
    }

    /**
     * The namespace an agent's session starts in reaches the bridge as the JVM argument HostedConfig reads, which
     * Install passes to Define every time (its value replaces an earlier one), taken from ./install's record.
     */
    @Test
    void installNamesTheSessionNamespaceInTheJvmArgumentTheBridgeReads() throws Exception {
        String gateway = Files.readString(CLS.resolve("Gateway.cls"));
        assertTrue(gateway.contains("Parameter SESSIONNAMESPACE = \"" + HostedConfig.SESSION_NAMESPACE_PROPERTY + "\";"),
                "Terminal.Gateway's SESSIONNAMESPACE is the property HostedConfig reads");
        String installer = Files.readString(CLS.resolve("Installer.cls"));
        assertTrue(installer.contains("Quit $ZConvert($Get(^%IRISTerminal(\"sessions\"), pNamespace), \"U\")")
                && installer.contains("Set sessions = ..SessionNamespace(ns)"), "the record's namespace, else the endpoint's own");
        assertTrue(installer.contains("##class(Terminal.Gateway).Property(##class(Terminal.Gateway).#SESSIONNAMESPACE, sessions)"),
                "passed to the bridge");
        assertTrue(installer.contains("##class(Terminal.Gateway).Define(pPort, pJavaHome, sessionArg, .serverCreated)"),
                "passed as the JVM arguments that replace a -D of the same name");
        String script = Files.readString(Path.of("install"));
        assertTrue(script.contains("set ^%IRISTerminal(\"sessions\")="), "./install records it before the load");
    }
    /** {@code Do ..Relay("Ui", a, b, …)} in Terminal.REST: a Terminal.Gateway class method and its arguments. */
    private static final Pattern RELAY = Pattern.compile("\\.\\.Relay\\(\"(\\w+)\"((?:,[^,()]+(?:\\([^)]*\\))?)*)\\)");

    /** Terminal.REST relays each route to a Terminal.Gateway class method that takes as many arguments as it passes. */
    @Test
    void everyRelayedGatewayMethodTakesTheArgumentsPassed() throws Exception {
        String gateway = Files.readString(CLS.resolve("Gateway.cls"));
        Matcher m = RELAY.matcher(Files.readString(CLS.resolve("REST.cls")));
        List<String> relayed = new ArrayList<>();
        while (m.find()) {
            int passed = m.group(2).isEmpty() ? 0 : m.group(2).substring(1).split(",(?![^(]*\\))").length;
            Matcher declared = Pattern.compile("ClassMethod " + m.group(1) + "\\(([^)]*)\\)").matcher(gateway);
            assertTrue(declared.find(), "Terminal.REST relays to Terminal.Gateway." + m.group(1) + ", which does not exist");
            int params = declared.group(1).isBlank() ? 0 : declared.group(1).split(",").length;
            assertEquals(params, passed, "Terminal.Gateway." + m.group(1) + " takes " + params + " arguments, "
                    + "Terminal.REST passes " + passed);
            relayed.add(m.group(1));
        }
        assertTrue(relayed.containsAll(List.of("Call", "Ui")), "Terminal.REST relays " + relayed);
    }

    /** {@code <Route Url="…" Method="…" Call="Ui"…/>} */
    private static final Pattern UI_ROUTE = Pattern.compile("<Route Url=\"([^\"]+)\" Method=\"(\\w+)\" Call=\"Ui\"");

    /**
     * Every address the page uses (its files, its API) reaches the bridge through a route of Terminal.REST:
     * %CSP.REST turns each {@code :name} of a route's Url into one path segment.
     */
    @Test
    void terminalRestRoutesEveryAddressOfTheView() throws Exception {
        String rest = Files.readString(CLS.resolve("REST.cls"));
        List<String> routes = new ArrayList<>();
        Matcher m = UI_ROUTE.matcher(rest);
        while (m.find()) {
            routes.add(m.group(2) + " " + m.group(1).replaceAll(":\\w+", "[^/]+"));
        }
        for (String address : List.of("GET /ui", "GET /ui/", "GET /ui/app.js", "GET /ui/app.css", "GET /ui/vendor/xterm.js",
                "GET /ui/vendor/xterm.css", "GET /ui/api/sessions", "GET /ui/api/sessions/ab12/output",
                "POST /ui/api/sessions/ab12/interrupt", "POST /ui/api/sessions/ab12/close")) {
            assertTrue(routes.stream().anyMatch(address::matches), address + " has no route among " + routes);
        }
    }
}
