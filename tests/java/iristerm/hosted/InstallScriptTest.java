package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./install} run as an administrator runs it, against a stand-in {@code iris} command on its PATH that
 * keeps an instance's namespaces and IPM as files and logs every {@code iris session} (its namespace and the
 * ObjectScript lines it was given). What is held: the namespace of the module's own is made (in %SYS) and IPM
 * mapped there from %SYS before anything is loaded, the load runs there with the sessions' namespace recorded
 * first, an existing namespace is used as it is, and a refusal stops the script before any load.
 */
class InstallScriptTest {

    /**
     * The stand-in: {@code iris qlist} names one running instance; {@code iris session I -U NS} reads its lines
     * and answers what the script looks for. State: {@code ns/<NS>} a namespace, {@code ipm/<NS>} IPM there.
     */
    private static final String FAKE_IRIS = """
            #!/usr/bin/env bash
            state=$FAKE_IRIS_STATE
            if [[ $1 == qlist ]]; then
            	echo "IRIS^$state/install^2024.1.0^running, since Fri Nov 27 2026^iris.cpf^1972^52773^62773^ok^"
            	exit 0
            fi
            [[ $1 == session && $3 == -U ]] || { echo "fake iris: $*" >&2; exit 2; }
            ns=$4
            input=$(cat)
            printf '=== %s %s\\n%s\\n' "$ns" "$(id -un)" "$input" >>"$state/log"
            if [[ -e $state/login && $(head -n 2 <<<"$input") != $'admin\nsecret' ]]; then
            	echo "Username:"
            	exit 1
            fi
            if [[ ! -e $state/ns/$ns ]]; then
            	echo "<NAMESPACE>"
            	exit 1
            fi
            if [[ $input == *'TerminalSetup.CodeDatabase).Home('* ]]; then
            	if [[ -n ${FAKE_HOME_REFUSES:-} ]]; then
            		echo "HOME=ERROR #5001: $FAKE_HOME_REFUSES"
            	else
            		made=$(sed -nE 's/.*Home\\("([^"]+)".*/\\1/p' <<<"$input" | grep -v '^set ' | head -n 1)
            		if [[ -e $state/ns/$made ]]; then echo "HOME=ok 0"; else touch "$state/ns/$made"; echo "HOME=ok 1"; fi
            	fi
            fi
            if [[ $input == *'enable -map -ns '* ]]; then
            	target=$(sed -nE 's/.*enable -map -ns ([^ ]+) -q.*/\\1/p' <<<"$input" | grep -v '^set ' | head -n 1)
            	[[ -e $state/ipm/$ns ]] && touch "$state/ipm/$target"
            fi
            if [[ $input == *'%IPM.Main'* && $input != *'enable -map'* ]]; then
            	if [[ -e $state/ipm/$ns ]]; then echo "IPM=1"; else echo "IPM=0"; fi
            fi
            if [[ $input == *'IPMMAIN='* ]]; then
            	if [[ -e $state/old-zpm ]]; then echo "IPMMAIN=0"; else echo "IPMMAIN=1"; fi
            fi
            if [[ $input == *'IPMFROM='* ]]; then
            	if [[ -e $state/ipm-from-user ]]; then echo "IPMFROM=0|/iris/mgr/user/"; else echo "IPMFROM=1|/iris/mgr/"; fi
            fi
            if [[ $input == *'zpm "load '* ]]; then
            	echo "IRIS Terminal check: all 26 checks passed"
            fi
            exit 0
            """;

    @TempDir
    Path tmp;
    private Path checkout;
    private Path state;
    private Path bin;
    /** where a run as root puts its copies (--safe-dir) */
    private Path safe;

    @AfterEach
    void removeSafeCopies() throws IOException {
        if (safe != null && !safe.startsWith(tmp) && Files.exists(safe)) {
            try (var all = Files.walk(safe)) {
                for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** Hosted review round 6, R6-9: root writes nowhere another user could change what it wrote. */
    @Test
    void asRootASafeDirectoryOthersMayWriteIsRefused() throws Exception {
        Assumptions.assumeTrue(root(), "the rule is root's");
        Files.createFile(state.resolve("ipm").resolve("%SYS"));
        Path open = Files.createDirectories(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Run run = installWith(List.of("--safe-dir", open.resolve("copies").toString()));
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains("is not root's alone") && run.out().contains(open.toString()), run.out());
        assertFalse(Files.exists(open.resolve("copies")), "nothing was written there");
    }

    @BeforeEach
    void instance() throws IOException {
        checkout = Files.createDirectories(tmp.resolve("checkout"));
        Files.copy(Path.of("install"), checkout.resolve("install"));
        Files.copy(Path.of("module.xml"), checkout.resolve("module.xml"));
        for (String dir : List.of("cls/TerminalSetup", "cls/Terminal", "tests/cls/IRISTerminalTest")) {
            Files.createDirectories(checkout.resolve(dir));
        }
        Files.copy(Path.of("cls/TerminalSetup/CodeDatabase.cls"), checkout.resolve("cls/TerminalSetup/CodeDatabase.cls"));
        Files.copy(Path.of("cls/Terminal/Installer.cls"), checkout.resolve("cls/Terminal/Installer.cls"));
        Files.copy(Path.of("tests/cls/IRISTerminalTest/AgentRun.cls"), checkout.resolve("tests/cls/IRISTerminalTest/AgentRun.cls"));
        // run as root the script copies there and requires it, and every directory above it, to be root's alone
        // (as Check's line 'bridge jar' does): not under /tmp, which everyone may write
        safe = root() ? Files.createTempDirectory(Path.of(System.getProperty("user.home")), "iris-terminal-mcp-safe-")
                : tmp.resolve("safe");
        Files.createDirectories(checkout.resolve("target"));
        Files.writeString(checkout.resolve("target/iris-terminal-mcp-hosted.jar"), "not a jar: --no-build takes it as it is");
        state = Files.createDirectories(tmp.resolve("state"));
        Files.createDirectories(state.resolve("ns"));
        Files.createDirectories(state.resolve("ipm"));
        for (String ns : List.of("%SYS", "USER")) {
            Files.createFile(state.resolve("ns").resolve(ns));
        }
        bin = Files.createDirectories(tmp.resolve("bin"));
        Path iris = bin.resolve("iris");
        Files.writeString(iris, FAKE_IRIS);
        Files.setPosixFilePermissions(iris, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Run(int exit, String out, List<Session> sessions) {
        /** The first session whose lines contain {@code text}, or -1. */
        int first(String text) {
            for (int i = 0; i < sessions.size(); i++) {
                if (sessions.get(i).lines.contains(text)) {
                    return i;
                }
            }
            return -1;
        }
    }

    private record Session(String namespace, String user, String lines) {
    }

    /** What the stand-in's Home answers instead of making the namespace, or null. */
    private String homeRefusal;
    /** more of the script's environment */
    private final Map<String, String> environment = new HashMap<>();

    private Run install(String... options) throws Exception {
        List<String> all = new ArrayList<>(List.of("--safe-dir", safe.toString()));
        all.addAll(Arrays.asList(options));
        return installWith(all);
    }

    private Run installWith(List<String> options) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", checkout.resolve("install").toString(), "--no-build",
                // named, so that a run as root copies nothing to /opt
                "--jar-at", "/opt/iris-terminal-mcp/iris-terminal-mcp-hosted.jar"));
        command.addAll(options);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":/usr/bin:/bin");
        pb.environment().put("FAKE_IRIS_STATE", state.toString());
        if (homeRefusal != null) {
            pb.environment().put("FAKE_HOME_REFUSES", homeRefusal);
        }
        pb.environment().putAll(environment);
        Process p = pb.start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "./install did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        List<Session> sessions = new ArrayList<>();
        Path log = state.resolve("log");
        if (Files.exists(log)) {
            Matcher m = Pattern.compile("(?m)^=== (\\S+) (\\S+)\\n((?:(?!=== ).*\\n?)*)").matcher(Files.readString(log));
            while (m.find()) {
                sessions.add(new Session(m.group(1), m.group(2), m.group(3)));
            }
        }
        return new Run(p.exitValue(), out, sessions);
    }

    @Test
    void aFreshInstanceGetsTheModulesOwnNamespaceWithIpmFromSysBeforeTheLoad() throws Exception {
        Files.createFile(state.resolve("ipm").resolve("%SYS"));
        Run run = install();
        assertEquals(0, run.exit(), run.out());
        assertEquals("%SYS", run.sessions().get(0).namespace(), "the login is probed in %SYS, which every instance has");
        int home = run.first("TerminalSetup.CodeDatabase).Home(\"TERMINALMCP\"");
        int enable = run.first("zpm \"enable -map -ns TERMINALMCP -q\"");
        int load = run.first("zpm \"load ");
        assertTrue(home >= 0 && enable > home && load > enable, "made, IPM mapped, then loaded: " + run.sessions());
        assertEquals("%SYS", run.sessions().get(home).namespace());
        assertTrue(run.sessions().get(home).lines().contains("DeletePackage(\"TerminalSetup\""),
                "the bootstrap loaded into %SYS for the call goes again");
        assertEquals("%SYS", run.sessions().get(enable).namespace(), "IPM comes from %SYS, never from USER");
        Session loaded = run.sessions().get(load);
        assertEquals("TERMINALMCP", loaded.namespace());
        if (root()) {
            // hosted review round 5, R5-1 and round 4, R4-5: as root IPM loads a copy only root can change, which the
            // instance's owner can read wherever the checkout lies
            Path module = safe.resolve("module");
            assertTrue(loaded.lines().contains("zpm \"load " + module + "/\""), loaded.lines());
            assertTrue(run.sessions().get(home).lines().contains(module + "/cls/TerminalSetup/CodeDatabase.cls"));
            for (String file : List.of("module.xml", "cls/TerminalSetup/CodeDatabase.cls", "cls/Terminal/Installer.cls",
                    "tests/cls/IRISTerminalTest/AgentRun.cls", "target/iris-terminal-mcp-hosted.jar")) {
                Path copy = module.resolve(file);
                assertTrue(Files.isRegularFile(copy), copy + " was not copied");
                assertEquals("root", Files.getOwner(copy).getName());
                assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(copy)), copy.toString());
            }
            assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(module.resolve("cls"))));
        } else {
            assertTrue(loaded.lines().contains("zpm \"load " + checkout + "/\""), loaded.lines());
        }
        String records = loaded.lines().substring(0, loaded.lines().indexOf("zpm \"load "));
        assertTrue(records.contains("set ^%IRISTerminal(\"sessions\")=\"USER\""), "sessions start in USER: " + records);
        assertTrue(records.contains("set ^%IRISTerminal(\"jar\")=\"/opt/iris-terminal-mcp/iris-terminal-mcp-hosted.jar\""), records);
        assertTrue(run.out().contains("Made the namespace TERMINALMCP"), run.out());
        assertTrue(run.out().contains("Installed iris-terminal-mcp into IRIS/TERMINALMCP."), run.out());
    }

    @Test
    void aSecondRunKeepsTheNamespaceAndTheSessionsNamespaceCanBeChosen() throws Exception {
        Files.createFile(state.resolve("ipm").resolve("%SYS"));
        assertEquals(0, install().exit());
        Files.delete(state.resolve("log"));
        Run again = install("--sessions-namespace", "APP", "--web-url", "https://iris.example:443", "--ssl-config", "Web");
        assertEquals(0, again.exit(), again.out());
        assertTrue(again.first("TerminalSetup.CodeDatabase).Home(\"TERMINALMCP\"") >= 0, "the home is checked again");
        assertEquals(-1, again.first("enable -map"), "IPM is there already");
        assertFalse(again.out().contains("Made the namespace"), again.out());
        String records = again.sessions().get(again.first("zpm \"load ")).lines();
        assertTrue(records.contains("set ^%IRISTerminal(\"sessions\")=\"APP\""), records);
        // hosted review round 4, R4-1: Install's own Check, inside the load, has the web server's address
        int check = records.indexOf("set ^%IRISTerminal(\"check\")=$listbuild(\"https://iris.example:443\",\"Web\")");
        assertTrue(check >= 0 && check < records.indexOf("zpm \"load "), records);
    }

    @Test
    void anExistingNamespaceIsUsedAsItIsAndSessionsStartThere() throws Exception {
        Files.createFile(state.resolve("ipm").resolve("USER"));
        Run run = install("--namespace", "USER");
        assertEquals(0, run.exit(), run.out());
        assertEquals(-1, run.first(".Home("), "no namespace is made or judged: " + run.sessions());
        Session loaded = run.sessions().get(run.first("zpm \"load "));
        assertEquals("USER", loaded.namespace());
        assertTrue(loaded.lines().contains("kill ^%IRISTerminal(\"sessions\")"), "an earlier choice does not linger");
    }

    /** Hosted review round 8, H8-1: the login README's command gives in the environment is the one used. */
    @Test
    void theLoginComesFromTheEnvironmentWithoutLiveTest() throws Exception {
        Files.createFile(state.resolve("ipm").resolve("%SYS"));
        Files.createFile(state.resolve("login"));
        environment.put("IRIS_USERNAME", "admin");
        environment.put("IRIS_PASSWORD", "secret");
        Run run = install();
        assertEquals(0, run.exit(), run.out());
        assertTrue(run.first("zpm \"load ") >= 0, "loaded: " + run.out());
    }

    /** Hosted review round 7, H7-6: Check cannot reach an https address without the client configuration. */
    @Test
    void anHttpsAddressWithoutAnSslConfigurationIsRefusedBeforeAnySession() throws Exception {
        Files.createFile(state.resolve("ipm").resolve("%SYS"));
        Run run = installWith(List.of("--web-url", "https://iris.example:443"));
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains("an https --web-url needs --ssl-config NAME"), run.out());
        assertEquals(-1, run.first("zpm \"load "), "nothing loaded");
    }

    @Test
    void aNamespaceThatIsNotTheModulesOwnIsRefusedBeforeAnyLoad() throws Exception {
        Files.createFile(state.resolve("ipm").resolve("%SYS"));
        homeRefusal = "namespace TERMINALMCP exists and keeps its globals in USER";
        Run run = install();
        assertEquals(1, run.exit(), run.out());
        assertTrue(run.out().contains("could not make the namespace TERMINALMCP: ERROR #5001: namespace TERMINALMCP exists"), run.out());
        assertEquals(-1, run.first("zpm \"load "), "nothing loaded");
    }

    /**
     * Hosted review round 4, R4-2: run as root, only the jar's copy is root's; every IRIS session runs as the
     * instance's owner (the owner of its mgr directory). Runs where the tests run as root (CI does).
     */
    @Test
    void asRootEverySessionRunsAsTheInstancesOwner() throws Exception {
        Assumptions.assumeTrue(root(), "needs root to switch users");
        Files.createFile(state.resolve("ipm").resolve("%SYS"));
        Path mgr = Files.createDirectories(state.resolve("install/mgr"));
        Files.setOwner(mgr, mgr.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        // the stand-in, run as nobody, reads and writes its state
        for (Path p = state; p.startsWith(tmp.getParent()) && !p.equals(tmp.getParent()); p = p.getParent()) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        try (var all = Files.walk(state)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxrwxrwx" : "rw-rw-rw-"));
            }
        }
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Run run = install();
        assertEquals(0, run.exit(), run.out());
        assertFalse(run.sessions().isEmpty());
        for (Session session : run.sessions()) {
            assertEquals("nobody", session.user(), "a session ran as " + session.user());
        }
        assertTrue(run.out().contains("Running IRIS as nobody, the instance's owner"), run.out());
    }

    @Test
    void withoutIpmInSysNothingIsMadeOrInstalledAndTheStepsArePrinted() throws Exception {
        Run run = install();
        assertEquals(0, run.exit(), run.out());
        assertEquals(-1, run.first("zpm \"load "), "nothing loaded");
        assertEquals(-1, run.first(".Home("), "no namespace made (hosted review round 5, R5-3)");
        assertEquals(-1, run.first("enable -map"), "no IPM to map");
        assertTrue(run.out().contains("Namespace TERMINALMCP does not exist in instance 'IRIS', and %SYS has no IPM to map there; nothing was made or installed"),
                run.out());
        assertTrue(run.out().contains("##class(TerminalSetup.CodeDatabase).Home(\"TERMINALMCP\")"), "the manual steps make it: " + run.out());
    }

    /**
     * IPM that %SYS cannot lend: nothing is made, mapped or loaded, and the reason is named. Hosted review round 5,
     * R5-2: IPM run from another database (one agents may write) is never mapped; round 7, H7-5: the older ZPM is
     * named as such, not as IPM from another database.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "ipm-from-user|IPM in %SYS runs from /iris/mgr/user/, not from %SYS's own database",
            "old-zpm|%SYS has the older ZPM (package %ZPM), not IPM 0.9 or later"})
    void ipmThatSysCannotLendIsNotMapped(String state, String reason) throws Exception {
        Files.createFile(this.state.resolve("ipm").resolve("%SYS"));
        Files.createFile(this.state.resolve(state));
        Run run = install();
        assertEquals(0, run.exit(), run.out());
        assertEquals(-1, run.first(".Home("), "nothing made");
        assertEquals(-1, run.first("enable -map"), "nothing mapped");
        assertEquals(-1, run.first("zpm \"load "), "nothing loaded");
        assertTrue(run.out().contains(reason), run.out());
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }
}
