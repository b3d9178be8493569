package iristerm.iris;

import iristerm.session.SessionException;
import iristerm.session.SessionState;
import iristerm.session.Signal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The iris engine against the contract fake: a real link (a socket to a fake job that writes marks)
 * and a real JobLink; what is observed is what reached the job and what the sink received.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IrisEngineTest {
    private static final long BOUND_MS = 10_000;

    private FakeIrisCalls fake;
    private IrisApi api;
    private JobLink link;
    private Sink sink;
    private IrisEngine engine;

    /** What the engine delivered, and bounded waits on it that fail the test saying what did not happen. */
    private static final class Sink {
        final KeptOutput kept = new KeptOutput();

        String text() {
            return kept.text();
        }

        String text(long from, long to) {
            return kept.text(from, to);
        }

        boolean exited() {
            return kept.exited();
        }

        void await(BooleanSupplier done, String what) throws InterruptedException {
            if (!kept.await(done, BOUND_MS)) {
                throw new AssertionError(what + " did not happen within " + BOUND_MS + " ms; output: " + text());
            }
        }
    }

    /** The fake, reached as hosted mode reaches IRIS in the respects a test chooses. */
    private record Hosted(FakeIrisCalls fake, boolean anyThread, boolean runsAsCaller) implements IrisCalls {
        @Override
        public String call(IrisMethod method, String requestJson) {
            return fake.call(method, requestJson);
        }

        @Override
        public String describe() {
            return "fake IRIS, hosted (any thread: " + anyThread + ", as the caller: " + runsAsCaller + ")";
        }
    }

    @BeforeEach
    void open() throws InterruptedException {
        fake = new FakeIrisCalls("alice");
        api = new IrisApi(fake);
        link = new JobLink(fake.linkAddress());
        sink = new Sink();
        engine = new IrisEngine(api, link.start(api, null, null), new IrisEngine.Attribution("s1", "agent", "client"),
                null, sink.kept, "test");
        assertTrue(engine.awaitStarted(BOUND_MS), "no first prompt");
    }

    @AfterEach
    void close() {
        engine.terminate(true, 0);
        link.close();
        fake.shutdown();
    }

    private IrisEngine.Done run(String code) throws InterruptedException {
        long n = engine.execute(code, false);
        sink.await(() -> engine.done(n) != null && engine.state() == SessionState.idle, "command " + n);
        return engine.done(n);
    }

    private String output(IrisEngine.Done d) {
        return sink.text(d.outStart(), d.outEnd());
    }

    @Test
    void aCommandsOwnOutputLiesExactlyBetweenItsStartAndDoneMarks() throws InterruptedException {
        IrisEngine.Done d = run("write \"héllo\",!,\"wörld\"");
        assertEquals("héllo\r\nwörld", output(d));
        assertNull(d.error());
        assertEquals("USER", d.namespace());
        IrisEngine.Done e = run("write nosuch");
        assertEquals("<UNDEFINED>", e.error().code());
        assertEquals("*nosuch", e.error().info());
        assertEquals("", output(e), "the error text follows the done mark");
        assertTrue(sink.text().contains(e.error().text() + "\r\nUSER>"), sink.text());
    }

    @Test
    void theOutputNeverHoldsAMarkButALookalikeWithAnotherIdStays() throws InterruptedException {
        IrisEngine.Done d = run("write $c(27)_\"]7715;fedcba9876543210;{}\"_$c(7)");
        assertEquals("\u001b]7715;fedcba9876543210;{}\u0007", output(d));
        run("tstart");
        assertFalse(sink.text().contains("\u001b]7715;" + fake.job(engine.pid()).mark), "a mark reached the output");
        assertEquals(1, engine.tlevel());
    }

    @Test
    void everyCommandIsAuditedWholeBeforeItReachesTheJobEvenWhenMarkedSecret() throws InterruptedException {
        run("set a=1");
        engine.write("write a", true, true);
        sink.await(() -> fake.journal().contains("job x write a") && engine.state() == SessionState.idle, "write a");
        List<String> journal = fake.journal();
        assertTrue(journal.indexOf("audit command set a=1") < journal.indexOf("job x set a=1"), journal.toString());
        assertTrue(journal.indexOf("audit command write a") >= 0, "a secret command is audited whole: " + journal);
        assertTrue(journal.indexOf("audit command write a") < journal.indexOf("job x write a"), journal.toString());
        assertFalse(sink.text().contains("write a"), "a secret command is not echoed: " + sink.text());
    }

    @Test
    void anAnswerToAReadIsAuditedAsAnAnswerAndOnlyItMayBeSecret() throws InterruptedException {
        long n = engine.execute("read pw write \"<\"_pw_\">\"", false);
        sink.await(() -> engine.reading() != null && engine.reading().n() == n, "the READ");
        assertEquals(SessionState.waiting_input, engine.state());
        engine.write("s3cret", true, true);
        sink.await(() -> engine.done(n) != null && engine.state() == SessionState.idle, "the command's end");
        List<String> journal = fake.journal();
        assertTrue(journal.contains("audit answer secret 6"), journal.toString());
        assertTrue(journal.indexOf("audit answer secret 6") < journal.indexOf("job a s3cret"), journal.toString());
        assertEquals("<s3cret>", output(engine.done(n)), "a secret answer is not echoed");
    }

    @Test
    void typedAheadLinesRunOneAfterTheOtherAtEachPrompt() throws InterruptedException {
        engine.write("set x=1\nwrite x+1\n", true, false);
        sink.await(() -> fake.journal().contains("job x write x+1") && engine.state() == SessionState.idle, "both");
        assertTrue(sink.text().contains("write x+1\r\n2"), sink.text());
    }

    @Test
    void theCallersClaimsReachTheAuditAsOneLineOfAtMost200Characters() {
        assertEquals("evil client  forged: line", IrisEngine.claim("evil client\r\nforged: line"));
        assertEquals(IrisEngine.MAX_CLAIM, IrisEngine.claim("x".repeat(500)).length());
        assertEquals("", IrisEngine.claim(null));
    }

    @Test
    void anAuditThatFailsRefusesTheCommandWithItsMessage() {
        fake.failAudits("the audit database is full");
        SessionException e = assertThrows(SessionException.class, () -> engine.execute("write 1", false));
        assertTrue(e.getMessage().contains("the audit database is full") && e.getMessage().contains("AUDIT_FAILED"),
                e.getMessage());
        assertThrows(SessionException.class, () -> engine.write("write 2", true, false));
        assertTrue(fake.journal().stream().noneMatch(j -> j.startsWith("job ")), fake.journal().toString());
        assertEquals(SessionState.idle, engine.state());
    }

    @Test
    void inputIRISKeepsNoAuditRecordOfIsDeliveredAndTheLogSaysSoOnce() throws InterruptedException {
        fake.keepNoAuditRecords();
        PrintStream err = System.err;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
        try {
            assertEquals("1", output(run("write 1")));
            assertEquals("2", output(run("write 2")));
        } finally {
            System.setErr(err);
        }
        String log = said.toString(StandardCharsets.UTF_8);
        assertEquals(1, log.split("kept no audit record of input to session s1", -1).length - 1, log);
        assertTrue(log.contains("user alice"), log);
    }

    @Test
    void intEndsARunningCommandAndIsRefusedAtThePrompt() throws InterruptedException {
        SessionException idle = assertThrows(SessionException.class, () -> engine.signal(Signal.INT));
        assertTrue(idle.getMessage().contains("no command to interrupt"), idle.getMessage());
        long n = engine.execute("hang 30", false);
        sink.await(() -> engine.started(n) >= 0, "the command's start");
        engine.signal(Signal.INT);
        sink.await(() -> engine.done(n) != null, "the interrupted command's end");
        assertEquals("<INTERRUPT>", engine.done(n).error().code());
    }

    @Test
    void aStatementRunsInTheJobAndOnlyAtItsPrompt() throws Exception {
        long n = engine.execute("hang 30", false);
        sink.await(() -> engine.started(n) >= 0, "the command's start");
        SessionException busy = assertThrows(SessionException.class,
                () -> engine.sql("select 1 as one", null, null, 10));
        assertTrue(busy.getMessage().contains("still running"), busy.getMessage());
        engine.signal(Signal.INT);
        sink.await(() -> engine.state() == SessionState.idle, "the prompt");
        var r = engine.sql("select 1 as one", tools.jackson.databind.json.JsonMapper.builder().build().createArrayNode(),
                null, 10).get(BOUND_MS, TimeUnit.MILLISECONDS);
        assertEquals(0, r.path("sqlcode").asInt(-1), r.toString());
        assertEquals(1, r.path("rows").path(0).path(0).asInt());
        int audited = fake.journal().indexOf("audit sql select 1 as one\n[]");
        assertTrue(audited >= 0 && audited < fake.journal().indexOf("job q select 1 as one"),
                "the statement and its parameters are audited before the job runs it: " + fake.journal());
    }

    @Test
    void aJobThatDropsItsLinkIsAnEndedSession() throws InterruptedException {
        engine.execute("halt", false);
        sink.await(sink::exited, "the exit");
        assertEquals(SessionState.exited, engine.state());
        assertThrows(SessionException.class, () -> engine.execute("write 1", false));
    }

    @Test
    void closeEndsAJobThatIgnoresByeWithKillAfterTheGrace() throws InterruptedException {
        fake.ignoreBye(true);
        int signalsBefore = fake.calls(IrisMethod.SIGNAL);
        long t0 = System.nanoTime();
        engine.terminate(false, 300);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < 8_000, "terminate is bounded");
        assertTrue(sink.exited());
        assertTrue(fake.journal().contains("job bye"), fake.journal().toString());
        assertEquals(signalsBefore + 1, fake.calls(IrisMethod.SIGNAL), "KILL after the grace");
        assertEquals(0, fake.awaitJobsEnded(5_000));
    }

    @Test
    void closeAtThePromptIsByeAlone() throws InterruptedException {
        engine.terminate(false, 5_000);
        assertTrue(sink.exited());
        assertEquals(0, fake.calls(IrisMethod.SIGNAL), "a job that takes its bye needs no signal");
        assertEquals(0, fake.awaitJobsEnded(5_000));
    }

    /** Hosted: IRIS may be called only on a request's thread; the idle timeout and shutdown run on others. */
    @Test
    void offARequestThreadWhereIrisMayNotBeCalledCloseIsByeAndClosingTheLink() throws InterruptedException {
        IrisApi hosted = new IrisApi(new Hosted(fake, false, false));
        Sink other = new Sink();
        IrisEngine busy = new IrisEngine(hosted, link.start(hosted, null, null),
                new IrisEngine.Attribution("s2", "agent", null), null, other.kept, "hosted");
        assertTrue(busy.awaitStarted(BOUND_MS));
        long n = busy.execute("hang 30", false);
        other.await(() -> busy.started(n) >= 0, "the command's start");
        int signals = fake.calls(IrisMethod.SIGNAL);
        busy.terminate(false, 200);
        assertTrue(other.exited());
        assertEquals(signals, fake.calls(IrisMethod.SIGNAL), "no IRIS call off a request's thread");
    }

    /** The job drops an interrupt that comes before its command's start mark (E7): the INT waits for that start. */
    @Test
    void anIntSentBeforeTheCommandStartsWaitsForItsStartAndThenEndsIt() throws InterruptedException {
        fake.delayStarts(500);
        long n = engine.execute("hang 30", false);
        engine.signal(Signal.INT);
        sink.await(() -> engine.done(n) != null, "the interrupted command's end");
        assertEquals("<INTERRUPT>", engine.done(n).error().code());
    }

    @Test
    void anIntForACommandThatDoesNotStartInTimeIsRefusedSayingSoAndNothingIsSent() {
        fake.delayStarts(IrisEngine.START_WAIT_MILLIS + 5_000);
        engine.execute("write 1", false);
        int signals = fake.calls(IrisMethod.SIGNAL);
        SessionException e = assertThrows(SessionException.class, () -> engine.signal(Signal.INT));
        assertTrue(e.getMessage().contains("has not started") && e.getMessage().contains("nothing was sent"),
                e.getMessage());
        assertEquals(signals, fake.calls(IrisMethod.SIGNAL), "no Signal call");
    }

    /** READ x:0 ends at once: a typed-ahead line given to it as its answer would be dropped by the job (E13). */
    @Test
    void typeAheadIsNotGivenToAReadWithTimeoutZeroButRunsAtTheNextPrompt() throws InterruptedException {
        engine.write("read x:0 write \"[\",x,\"]\"\nwrite \"next\"\n", true, false);
        sink.await(() -> fake.journal().contains("job x write \"next\"") && engine.state() == SessionState.idle,
                "the second line run as a command");
        assertTrue(fake.journal().stream().noneMatch(j -> j.startsWith("job a")), fake.journal().toString());
        assertTrue(sink.text().contains("[]"), "the READ took nothing: " + sink.text());
    }

    /** A mark past the limit ends the session (the link can no longer be read), and says so (E8). */
    @Test
    void aMarkPastTheLimitEndsTheSessionSayingWhy() throws InterruptedException {
        fake.job(engine.pid()).writeMark("{\"e\":\"sql\",\"pad\":\"" + "x".repeat(IrisEngine.MAX_MARK_BYTES) + "\"}");
        sink.await(sink::exited, "the end of the session");
        assertTrue(sink.text().contains("the session has ended: the IRIS job sent a mark longer than"), sink.text());
    }

    /** The job reads a line into one IRIS string: a longer one would be lost there, after its audit (E11). */
    @Test
    void inputTooLongForOneIrisStringIsRefusedBeforeItIsAudited() throws InterruptedException {
        String big = "write \"" + "x".repeat(IrisEngine.MAX_LINE_CHARS) + "\"";
        SessionException e = assertThrows(SessionException.class, () -> engine.execute(big, false));
        assertTrue(e.getMessage().contains("nothing was audited or sent"), e.getMessage());
        // a control character travels as a six-character escape
        String escapes = "\u0001".repeat(IrisEngine.MAX_LINE_CHARS / 6 + 1);
        e = assertThrows(SessionException.class, () -> engine.write(escapes, true, false));
        assertTrue(e.getMessage().contains("nothing was audited or sent"), e.getMessage());
        assertThrows(SessionException.class, () -> engine.sql("select ?", JsonMapper.builder().build()
                .createArrayNode().add(big), null, 10));
        assertTrue(fake.journal().isEmpty(), fake.journal().toString());
        assertNull(run("write 1").error(), "the session goes on");
    }

    /**
     * Hosted, IRIS runs each call as its caller: an Audit or Signal that says it ran as another user than the
     * session's owner is refused (E10); one that names no user (classes of an earlier version) is not.
     */
    @Test
    void hostedAnAuditOrSignalThatRanAsAnotherUserIsRefused() throws InterruptedException {
        IrisApi hosted = new IrisApi(new Hosted(fake, true, true));
        String owner = hosted.ownerUser("ALICE");
        Sink other = new Sink();
        IrisEngine alices = new IrisEngine(hosted, link.start(hosted, null, owner),
                new IrisEngine.Attribution("s2", "ALICE", null), owner, other.kept, "hosted");
        try {
            assertTrue(alices.awaitStarted(BOUND_MS));
            long n = alices.execute("hang 30", false);
            other.await(() -> alices.started(n) >= 0, "the command's start, audited as alice");
            fake.tamper(new FakeIrisCalls.Tamper() {
                @Override
                public String answer(IrisMethod method, String request, String answer) {
                    return answer.replace("\"user\":\"alice\"", "\"user\":\"mallory\"");
                }
            });
            SessionException signal = assertThrows(SessionException.class, () -> alices.signal(Signal.INT));
            assertTrue(signal.getMessage().contains("as user mallory, not as ALICE"), signal.getMessage());
            other.await(() -> alices.done(n) != null && alices.state() == SessionState.idle, "the prompt");
            SessionException audit = assertThrows(SessionException.class, () -> alices.execute("write 2", false));
            assertTrue(audit.getMessage().contains("as user mallory, not as ALICE")
                    && audit.getMessage().contains("not delivered"), audit.getMessage());
            assertFalse(fake.journal().contains("job x write 2"), fake.journal().toString());
            fake.tamper(new FakeIrisCalls.Tamper() {
                @Override
                public String answer(IrisMethod method, String request, String answer) {
                    return answer.replace(",\"user\":\"alice\"", "");
                }
            });
            long m = alices.execute("write 3", false);
            other.await(() -> alices.done(m) != null, "a command audited by classes that name no user");
        } finally {
            alices.terminate(true, 0);
        }
    }
}
