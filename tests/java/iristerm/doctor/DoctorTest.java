package iristerm.doctor;

import iristerm.iris.FakeIrisCalls;
import iristerm.iris.IrisMethod;
import iristerm.iris.IrisUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

/**
 * The doctor against the contract fake: an instance that keeps the contract passes every check, and
 * for every check an instance that breaks the contract in exactly that way makes that check FAIL
 * with what was seen, while the checks before it still pass.
 */
class DoctorTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String USER = "doctor";

    private final List<FakeIrisCalls> instances = new ArrayList<>();

    @AfterEach
    void stop() {
        instances.forEach(FakeIrisCalls::shutdown);
    }

    private FakeIrisCalls instance() {
        FakeIrisCalls fake = new FakeIrisCalls(USER);
        instances.add(fake);
        return fake;
    }

    private static Report doctor(FakeIrisCalls fake) {
        return Doctor.run(new Doctor.Setting(() -> fake, "install it"));
    }

    @Test
    void anInstanceThatKeepsTheContractPassesEveryCheckAndIsLeftAsFound() {
        FakeIrisCalls fake = instance();
        Report report = doctor(fake);
        assertTrue(report.ok(), report.text());
        assertEquals(Doctor.checks(new Doctor.Setting(() -> fake, "")).stream().map(Doctor.Check::name).toList(),
                report.findings().stream().map(Finding::check).toList());
        assertTrue(report.text().endsWith("all 16 checks passed\n"), report.text());
        assertTrue(report.findings().get(0).seen().contains("roles " + FakeIrisCalls.ROLES), report.text());
        assertEquals(0, fake.awaitJobsEnded(5_000), "the doctor's session must be gone");
        JsonNode json = JSON.readTree(report.json());
        assertTrue(json.path("ok").asBoolean());
        assertEquals(16, json.path("checks").size());
        assertEquals("write 1+1", json.path("checks").path(4).path("check").asString());
    }

    /** IRIS's own classes name the interrupt's error <EXTERNAL INTERRUPT>: that is an interrupt too (E5). */
    @Test
    void anInstanceWhoseInterruptIsNamedExternalInterruptPasses() {
        FakeIrisCalls fake = instance();
        fake.interruptAs("<EXTERNAL INTERRUPT>");
        Report report = doctor(fake);
        assertTrue(report.ok(), report.text());
        assertTrue(report.text().contains("hang 30 ended with <EXTERNAL INTERRUPT>"), report.text());
    }

    /** A misbehaviour, the check it must fail, and what its FAIL line must say. */
    private record Case(String check, String seen, Consumer<FakeIrisCalls> misbehave) {
    }

    private static List<Case> cases() {
        return List.of(
                new Case("login and privileges", "connection dropped", FakeIrisCalls::dropConnection),
                new Case("Terminal classes", "version \"0\"", f -> f.tamper(answer(IrisMethod.PING,
                        a -> a.put("version", "0")))),
                new Case("Terminal classes", "<CLASS DOES NOT EXIST>", f -> f.tamper(new FakeIrisCalls.Tamper() {
                    @Override
                    public String answer(IrisMethod method, String request, String answer) {
                        if (method == IrisMethod.PING) {
                            throw new IrisUnavailableException("IRIS call failed: <CLASS DOES NOT EXIST> *Terminal.Session", null);
                        }
                        return answer;
                    }
                })),
                new Case("IRIS side", "audit event enabled: IRISTerminal/Agent is disabled", f -> f.tamper(
                        answer(IrisMethod.PING, a -> a.putArray("checks").addObject().put("check", "audit event enabled")
                                .put("ok", false).put("detail", "IRISTerminal/Agent is disabled")))),
                new Case("open a session", "refused to run: IRISTerminal_Bridge is still held [START_FAILED]",
                        f -> f.tamperHello(h -> h.put("refused", "IRISTerminal_Bridge is still held"))),
                new Case("open a session", "does not exist", f -> f.tamper(request(IrisMethod.OPEN,
                        r -> r.put("namespace", "NOWHERE")))),
                new Case("write 1+1", "wrote \"3\"", f -> f.tamperLink(swap("write 1+1", "write 3"))),
                new Case("$X after write ?10", "write ?10,$x wrote \"         9\"",
                        f -> f.tamperLink(swap("write ?10,$x", "write ?9,9"))),
                new Case("variable kept between commands", "<UNDEFINED>",
                        f -> f.tamperLink(swap("write doctorv", "kill doctorv write doctorv"))),
                new Case("READ answered", "wrote \"no<no>\"", f -> f.tamperLink(swap("yes", "no"))),
                new Case("READ with timeout", "wrote \"1\"",
                        f -> f.tamperLink(swap("read doctort:1 write $test", "write 1"))),
                new Case("INT interrupts", "[GONE]", f -> {
                    // the INT goes to a process that is not the session's: the probe's HANG runs on
                    f.tamperLink(swap("hang 30", "hang 1"));
                    f.tamper(request(IrisMethod.SIGNAL, r -> r.put("pid", 1)));
                }),
                new Case("ZN and back", "reports namespace \"USER\"",
                        f -> f.tamperLink(swap("zn \"%SYS\"", "zn \"USER\""))),
                new Case("transaction level", "after tstart the session reports tlevel 0",
                        f -> f.tamperLink(swap("tstart", "quit"))),
                new Case("error with its source line", "ended without an error",
                        f -> f.tamperLink(swap(Doctor.ERROR_PROBE, "write 1"))),
                new Case("SQL", "select 1 as one answered", f -> f.tamperLink(swap("select 1 as one", "select 2 as one"))),
                new Case("runs as the caller", "runs as \"mallory\"",
                        f -> f.tamperLink(swap("write $username,\"/\",$roles", "write \"mallory/%All\""))),
                new Case("runs as the caller", "holding the web application's role IRISTerminal_Bridge",
                        f -> f.tamperLink(swap("write $username,\"/\",$roles",
                                "write $username,\"/%Developer,IRISTerminal_Bridge\""))),
                new Case("close ends the job", "did not close its link after bye", f -> f.ignoreBye(true)));
    }

    @TestFactory
    Stream<DynamicTest> eachMisbehaviourFailsItsCheckAndNoEarlierOne() {
        return cases().stream().map(c -> dynamicTest(c.check() + ": " + c.seen(), () -> {
            FakeIrisCalls fake = instance();
            c.misbehave().accept(fake);
            Report report = doctor(fake);
            assertFalse(report.ok(), report.text());
            List<Finding> findings = report.findings();
            int at = findings.stream().map(Finding::check).toList().indexOf(c.check());
            assertTrue(at >= 0, report.text());
            Finding f = findings.get(at);
            assertFalse(f.ok(), report.text());
            assertTrue(f.seen().contains(c.seen()), "expected \"" + c.seen() + "\" in: " + f.line());
            assertFalse(f.fix().isBlank(), f.line());
            assertTrue(f.line().startsWith("FAIL  " + c.check() + ": "), f.line());
            for (Finding before : findings.subList(0, at)) {
                assertTrue(before.ok(), "an earlier check failed too:\n" + report.text());
            }
            assertEquals(0, fake.awaitJobsEnded(5_000), "the doctor's session must be gone:\n" + report.text());
        }));
    }

    @Test
    void checksAfterAFailedPrerequisiteSayTheyDidNotRun() {
        FakeIrisCalls fake = instance();
        fake.tamper(request(IrisMethod.OPEN, r -> r.put("namespace", "NOWHERE")));
        Report report = doctor(fake);
        Finding write = report.findings().stream().filter(f -> f.check().equals("write 1+1")).findFirst().orElseThrow();
        assertFalse(write.ok());
        assertTrue(write.seen().startsWith("not run: no session is open"), write.line());
        assertTrue(fake.journal().stream().noneMatch(j -> j.startsWith("job ")), "no command may be run without a session");
        assertTrue(report.text().contains("checks failed"), report.text());
    }

    @Test
    void aCommandThatNeverEndsFailsItsCheckWithinItsBoundAndTheLaterSessionChecksDoNotRun() {
        FakeIrisCalls fake = instance();
        fake.tamperLink(swap("write 1+1", "hang 60"));
        long started = System.nanoTime();
        Report report = doctor(fake);
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertTrue(seconds < Doctor.COMMAND_BOUND_MS / 1000 + 20, "took " + seconds + " s");
        Finding write = report.findings().get(4);
        assertFalse(write.ok());
        assertTrue(write.seen().contains("no done mark"), write.line());
        Finding next = report.findings().get(5);
        assertTrue(next.seen().startsWith("not run: the session is still busy"), next.line());
        assertEquals(0, fake.awaitJobsEnded(5_000), "the busy session must be ended (forced close)");
    }

    // ------------------------------------------------------------------ held against cls/

    /** The error probe calls SQL.Run with "" as its request: its first line must dereference it. */
    @Test
    void theErrorProbeFailsInTheFirstLineOfSqlRun() throws Exception {
        Matcher m = Pattern.compile("ClassMethod Run\\(req As %DynamicObject, ns As %String\\)"
                + "[^{]*\\{\\s*\\n([^\\n]*)").matcher(Files.readString(Path.of("cls", "Terminal", "SQL.cls")));
        assertTrue(m.find(), "Terminal.SQL.Run(req, ns) is gone; change Doctor.ERROR_PROBE");
        assertTrue(m.group(1).contains("req.%"), "the first line of SQL.Run no longer dereferences req: " + m.group(1));
        assertTrue(Doctor.ERROR_PROBE.contains("##class(Terminal.SQL).Run(\"\""), Doctor.ERROR_PROBE);
    }

    /**
     * Every doctor line, printed standalone and by Terminal.Installer.Check(), has its row in README's
     * troubleshooting table, keyed by the check's name, and the row gives a fix.
     */
    @Test
    void everyCheckHasATroubleshootingRow() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        for (Doctor.Check c : Doctor.checks(new Doctor.Setting(() -> null, "install"))) {
            Matcher row = Pattern.compile("\n\\| `" + Pattern.quote(c.name()) + "` \\| ([^|\n]+) \\|").matcher(readme);
            assertTrue(row.find(), "README has no troubleshooting row | `" + c.name() + "` | … |");
            assertFalse(row.group(1).isBlank(), c.name());
        }
    }

    // -------------------------------------------------------------------- misbehaviours

    private static FakeIrisCalls.Tamper answer(IrisMethod method, Consumer<ObjectNode> change) {
        return new FakeIrisCalls.Tamper() {
            @Override
            public String answer(IrisMethod m, String request, String answer) {
                if (m != method) {
                    return answer;
                }
                ObjectNode a = (ObjectNode) JSON.readTree(answer);
                change.accept(a);
                return JSON.writeValueAsString(a);
            }
        };
    }

    private static FakeIrisCalls.Tamper request(IrisMethod method, Consumer<ObjectNode> change) {
        return new FakeIrisCalls.Tamper() {
            @Override
            public String request(IrisMethod m, String request) {
                if (m != method) {
                    return request;
                }
                ObjectNode r = (ObjectNode) JSON.readTree(request);
                change.accept(r);
                return JSON.writeValueAsString(r);
            }
        };
    }

    /** The engine receives {@code to} where the doctor sent {@code from}. */
    /** The job runs {@code to} where the doctor sent {@code from}. */
    private static UnaryOperator<String> swap(String from, String to) {
        return t -> t.equals(from) ? to : t;
    }

}
