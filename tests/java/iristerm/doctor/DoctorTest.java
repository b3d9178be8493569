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
        assertEquals(0, fake.liveJobs(), "the doctor's session must be gone");
        JsonNode json = JSON.readTree(report.json());
        assertTrue(json.path("ok").asBoolean());
        assertEquals(16, json.path("checks").size());
        assertEquals("write 1+1", json.path("checks").path(4).path("check").asString());
    }

    /** A misbehaviour, the check it must fail, and what its FAIL line must say. */
    private record Case(String check, String seen, Consumer<FakeIrisCalls> misbehave) {
    }

    private static final String PROBE_SESSION = "1";

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
                new Case("run-data store", "escalated access: could not reach the run data", f -> f.tamper(
                        answer(IrisMethod.PING, a -> {
                            ObjectNode store = a.putObject("store").put("ok", false);
                            store.putArray("parts").addObject().put("part", "escalated access").put("ok", false)
                                    .put("detail", "could not reach the run data");
                        }))),
                new Case("open a session", "START_FAILED", f -> f.tamper(request(IrisMethod.OPEN,
                        r -> r.put("namespace", "NOWHERE")))),
                new Case("write 1+1", "wrote \"3\"", f -> f.tamper(sendText("write 1+1", "write 3"))),
                new Case("$X after write ?10", "write ?10,$x wrote \"         9\"",
                        f -> f.tamper(sendText("write ?10,$x", "write ?9,9"))),
                new Case("variable kept between commands", "<UNDEFINED>",
                        f -> f.tamper(sendText("write doctorv", "kill doctorv write doctorv"))),
                new Case("READ answered", "wrote \"no<no>\"", f -> f.tamper(sendText("yes", "no"))),
                new Case("READ with timeout", "wrote \"1\"",
                        f -> f.tamper(sendText("read doctort:1 write $test", "write 1"))),
                new Case("INT interrupts", "without an error", f -> {
                    // the INT reaches another, idle session: the probe's HANG runs to its end
                    String idle = f.asUser(USER).call(IrisMethod.OPEN, "{}");
                    String other = JSON.readTree(idle).path("session").asString();
                    f.tamper(combine(sendText("hang 30", "hang 1"),
                            request(IrisMethod.SIGNAL, r -> r.put("session", other))));
                }),
                new Case("ZN and back", "reports namespace \"USER\"",
                        f -> f.tamper(sendText("zn \"%SYS\"", "zn \"USER\""))),
                new Case("transaction level", "after tstart the session reports tlevel 0",
                        f -> f.tamper(sendText("tstart", "quit"))),
                new Case("error with its source line", "ended without an error",
                        f -> f.tamper(sendText(Doctor.ERROR_PROBE, "write 1"))),
                new Case("error with its source line", "without its source line",
                        f -> f.tamper(answer(IrisMethod.READ, a -> a.path("events").forEach(e -> {
                            if (e.path("error").isObject()) {
                                ((ObjectNode) e.path("error")).put("source", "");
                            }
                        })))),
                new Case("SQL", "select 1 as one answered", f -> f.tamper(request(IrisMethod.SQL,
                        r -> r.put("query", "select 2 as one")))),
                new Case("runs as the caller", "runs as \"mallory\"",
                        f -> f.tamper(sendText("write $username,\"/\",$roles", "write \"mallory/%All\""))),
                new Case("runs as the caller", "holding the store's role IRISTerminal_Store",
                        f -> f.tamper(sendText("write $username,\"/\",$roles",
                                "write $username,\"/%Developer,IRISTerminal_Store\""))),
                new Case("close leaves nothing behind", "List still shows session " + PROBE_SESSION,
                        f -> f.tamper(answer(IrisMethod.LIST, a -> a.putArray("sessions").addObject()
                                .put("session", PROBE_SESSION).put("state", "exited")))));
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
            assertEquals(0, fake.liveJobs() - (c.check().equals("INT interrupts") ? 1 : 0),
                    "the doctor's session must be gone:\n" + report.text());
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
        assertEquals(0, fake.calls(IrisMethod.SEND), "no command may be sent without a session");
        assertTrue(report.text().contains("checks failed"), report.text());
    }

    @Test
    void aCommandThatNeverEndsFailsItsCheckWithinItsBoundAndTheLaterSessionChecksDoNotRun() {
        FakeIrisCalls fake = instance();
        fake.tamper(sendText("write 1+1", "hang 60"));
        long started = System.nanoTime();
        Report report = doctor(fake);
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertTrue(seconds < Doctor.COMMAND_BOUND_MS / 1000 + 20, "took " + seconds + " s");
        Finding write = report.findings().get(4);
        assertFalse(write.ok());
        assertTrue(write.seen().contains("no done event"), write.line());
        Finding next = report.findings().get(5);
        assertTrue(next.seen().startsWith("not run: the session is still busy"), next.line());
        assertTrue(report.findings().stream().filter(f -> f.check().equals("SQL")).findFirst().orElseThrow().ok(),
                "SQL needs no session:\n" + report.text());
        assertEquals(0, fake.liveJobs(), "the busy session must be ended (forced close)");
    }

    // ------------------------------------------------------------------ held against cls/

    @Test
    void theVersionTheDoctorExpectsIsTheOneTheClassesDeclare() throws Exception {
        assertEquals(Doctor.CLASSES_VERSION, parameter("Session.cls", "VERSION"));
    }

    @Test
    void theStoreRoleTheDoctorLooksForIsTheStoresRole() throws Exception {
        assertEquals(Doctor.STORE_ROLE, parameter("Store.cls", "ROLE"));
    }

    /** The error probe calls Str with "" as its request: its first line must dereference it. */
    @Test
    void theErrorProbeFailsInTheFirstLineOfStr() throws Exception {
        Matcher m = Pattern.compile("ClassMethod Str\\(req As %DynamicObject, name As %String, default As %String\\)"
                + "[^{]*\\{\\s*\\n([^\\n]*)").matcher(Files.readString(Path.of("cls", "Terminal", "Session.cls")));
        assertTrue(m.find(), "Terminal.Session.Str(req, name, default) is gone; change Doctor.ERROR_PROBE");
        assertTrue(m.group(1).contains("req.%"), "the first line of Str no longer dereferences req: " + m.group(1));
        assertTrue(Doctor.ERROR_PROBE.contains("##class(Terminal.Session).Str(\"\""), Doctor.ERROR_PROBE);
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

    private static String parameter(String file, String name) throws Exception {
        Matcher m = Pattern.compile("Parameter\\s+" + name + "\\s*=\\s*\"([^\"]*)\"")
                .matcher(Files.readString(Path.of("cls", "Terminal", file)));
        assertTrue(m.find(), file + " declares no Parameter " + name);
        return m.group(1);
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
    private static FakeIrisCalls.Tamper sendText(String from, String to) {
        return request(IrisMethod.SEND, r -> {
            if (r.path("text").asString("").equals(from)) {
                r.put("text", to);
            }
        });
    }

    private static FakeIrisCalls.Tamper combine(FakeIrisCalls.Tamper first, FakeIrisCalls.Tamper second) {
        return new FakeIrisCalls.Tamper() {
            @Override
            public String request(IrisMethod method, String request) {
                return second.request(method, first.request(method, request));
            }
        };
    }
}
