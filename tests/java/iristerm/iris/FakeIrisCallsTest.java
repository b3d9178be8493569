package iristerm.iris;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Holds {@link FakeIrisCalls} to docs/iris-contract.md, so tests built on it can trust it. */
class FakeIrisCallsTest {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final FakeIrisCalls iris = new FakeIrisCalls("alice");
    /** every answer of the test, for the field-coverage check */
    private final List<JsonNode> answers = new ArrayList<>();

    @AfterEach
    void shutdown() {
        iris.shutdown();
        assertEquals(0, iris.liveJobs(), "every job thread ends");
    }

    // ----------------------------------------------------------------------------- helpers

    private JsonNode call(IrisCalls who, IrisMethod m, String json) {
        JsonNode a = MAPPER.readTree(who.call(m, json));
        answers.add(a);
        return a;
    }

    private JsonNode call(IrisMethod m, String json) {
        return call(iris, m, json);
    }

    private static String q(String s) {
        return MAPPER.writeValueAsString(s);
    }

    private String open() {
        return call(IrisMethod.OPEN, "{}").get("session").asString();
    }

    private long send(String session, String text, String extra) {
        JsonNode a = call(IrisMethod.SEND, "{\"session\":" + q(session) + ",\"text\":" + q(text) + extra + "}");
        assertEquals(1, a.get("accepted").asInt(), a.toString());
        return a.get("seq").asLong();
    }

    private long execute(String session, String code) {
        return send(session, code, ",\"execute\":true");
    }

    private static void assertFault(String code, JsonNode answer) {
        assertNotNull(answer.get("fault"), "expected a fault: " + answer);
        assertEquals(code, answer.get("fault").get("code").asString(), answer.toString());
        assertFalse(answer.get("fault").get("message").asString().isBlank());
    }

    /** Follows one session's log and events with Read, as the Java engine will. */
    private final class Term {
        final String session;
        final StringBuilder log = new StringBuilder();
        final List<JsonNode> events = new ArrayList<>();
        long from;
        long ev;
        JsonNode last;

        Term(String session) {
            this.session = session;
        }

        JsonNode read(long waitMs) {
            last = call(IrisMethod.READ, "{\"session\":" + q(session) + ",\"from\":" + from + ",\"ev\":" + ev
                    + ",\"wait_ms\":" + waitMs + "}");
            assertEquals(from, last.get("from").asLong());
            log.append(last.get("data").asString());
            from = last.get("next").asLong();
            assertEquals(log.length(), from, "next = from + length(data)");
            last.get("events").values().forEach(events::add);
            ev = last.get("ev_next").asLong();
            assertEquals(events.size(), ev);
            return last;
        }

        /** Reads until an event matches (bounded: 10 s), then returns it. */
        JsonNode until(Predicate<JsonNode> wanted) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int seen = 0;
            while (System.nanoTime() < deadline) {
                for (; seen < events.size(); seen++) {
                    if (wanted.test(events.get(seen))) {
                        return events.get(seen);
                    }
                }
                read(2000);
            }
            return fail("no such event within 10 s; log: " + log + " events: " + events);
        }

        JsonNode done(long seq) {
            JsonNode d = until(e -> e.get("type").asString().equals("done") && e.get("seq").asLong() == seq);
            read(0);
            return d;
        }

        /** The command's own output, by out_start/out_end. */
        String output(JsonNode done) {
            return log.substring(done.get("out_start").asInt(), done.get("out_end").asInt());
        }
    }

    // --------------------------------------------------------------------------- sessions

    @Test
    void openAnswersAReadySessionShowingItsPrompt() {
        JsonNode o = call(IrisMethod.OPEN, "{\"name\":\"work\",\"agent\":\"claude\"}");
        assertEquals("idle", o.get("state").asString());
        assertEquals("USER", o.get("namespace").asString());
        assertEquals("alice", o.get("owner").asString());
        assertEquals("work", o.get("name").asString());
        assertEquals("claude", o.get("agent").asString());
        assertTrue(o.get("pid").asInt() > 0);
        assertFalse(o.get("created").asString().isBlank());

        Term t = new Term(o.get("session").asString());
        JsonNode r = t.read(0);
        assertEquals("USER>", r.get("data").asString());
        assertEquals(5, r.get("end").asInt());
        assertEquals("idle", r.get("state").asString());
        assertEquals(0, r.get("tlevel").asInt());
        assertEquals(0, r.get("seq_done").asInt());
        assertTrue(r.get("reading").isNull());
        assertTrue(r.get("exit").isNull());
        assertEquals(0, r.get("events").size());
    }

    @Test
    void openInAMissingNamespaceFailsToStart() {
        assertFault("START_FAILED", call(IrisMethod.OPEN, "{\"namespace\":\"NOPE\"}"));
        assertEquals("%SYS", call(IrisMethod.OPEN, "{\"namespace\":\"%SYS\"}").get("namespace").asString());
    }

    @Test
    void aCommandEndsWithADoneEventBoundingExactlyItsOutput() {
        Term t = new Term(open());
        long seq = execute(t.session, "write \"hi\"");
        assertEquals(1, seq);
        JsonNode done = t.done(seq);
        assertEquals("hi", t.output(done));
        assertTrue(done.get("error").isNull());
        assertEquals("USER", done.get("namespace").asString());
        assertEquals(0, done.get("tlevel").asInt());
        assertTrue(done.get("elapsed_ms").asLong() >= 0);
        assertEquals("USER>write \"hi\"\r\nhi\r\nUSER>", t.log.toString());
        assertEquals(1, t.last.get("seq_done").asLong());
        assertEquals("idle", t.last.get("state").asString());
    }

    @Test
    void writeKnowsNewLinesConcatenationAndCanonicalNumbers() {
        Term t = new Term(open());
        assertEquals("a\r\nb", t.output(t.done(execute(t.session, "write \"a\",!,\"b\""))));
        assertEquals("say \"x\"", t.output(t.done(execute(t.session, "w \"say \"\"\"_\"x\"_\"\"\"\""))));
        assertEquals("1.5 .5 -.25", t.output(t.done(execute(t.session, "write 1.50,\" \",0.5,\" \",-0.250"))));
    }

    @Test
    void variablesPersistBetweenCommands() {
        Term t = new Term(open());
        t.done(execute(t.session, "set x=1"));
        assertEquals("1", t.output(t.done(execute(t.session, "write x"))));
        // without execute, each line is its own command with its own seq and done event
        long seq = send(t.session, "set y=\"two\" write y\nwrite !,x_y", "");
        assertEquals(4, seq);
        assertEquals("two", t.output(t.done(3)));
        assertEquals("\r\n1two", t.output(t.done(4)));
        assertEquals("x=1\r\ny=\"two\"\r\n", t.output(t.done(execute(t.session, "write"))));
    }

    @Test
    void anUndefinedVariableDecomposesLikeZerror() {
        Term t = new Term(open());
        JsonNode err = t.done(execute(t.session, "write undefinedVar")).get("error");
        assertEquals("<UNDEFINED>", err.get("code").asString());
        assertEquals("x+1^%Fake", err.get("location").asString());
        assertEquals("*undefinedVar", err.get("info").asString());
        assertEquals("<UNDEFINED>x+1^%Fake *undefinedVar", err.get("text").asString());
        assertEquals("write undefinedVar", err.get("source").asString());
        assertTrue(t.log.toString().endsWith("<UNDEFINED>x+1^%Fake *undefinedVar\r\nUSER>"), t.log.toString());
    }

    @Test
    void aMultiLineUnitRunsInOrderAndStopsAtItsFirstError() {
        Term t = new Term(open());
        long seq = execute(t.session, "set a=1\nwrite a,!\nwrite b\nwrite \"never\"");
        JsonNode done = t.done(seq);
        assertEquals("1\r\n", t.output(done));
        assertEquals("x+3^%Fake", done.get("error").get("location").asString());
        assertEquals("write b", done.get("error").get("source").asString());
        assertEquals(1, t.events.size(), "one unit, one done event");
        assertTrue(t.log.toString().startsWith("USER>set a=1\r\nwrite a,!\r\nwrite b\r\nwrite \"never\"\r\n1\r\n"));
    }

    @Test
    void anUnknownCommandIsASyntaxError() {
        Term t = new Term(open());
        JsonNode err = t.done(execute(t.session, "frobnicate 1")).get("error");
        assertEquals("<SYNTAX>", err.get("code").asString());
        assertEquals("", err.get("info").asString());
    }

    @Test
    void aReadWaitsForInputAndTheNextSendAnswersIt() {
        Term t = new Term(open());
        long seq = execute(t.session, "read name write \"Hello \",name");
        JsonNode read = t.until(e -> e.get("type").asString().equals("read"));
        assertEquals(seq, read.get("seq").asLong());
        assertEquals(0, read.get("single").asInt());
        assertEquals(-1, read.get("timeout").asInt());
        t.read(0);
        assertEquals("waiting_input", t.last.get("state").asString());
        assertEquals(seq, t.last.get("reading").get("seq").asLong());
        assertEquals(t.log.length(), read.get("at").asInt(), "the READ starts where the log ends");

        send(t.session, "Bob", "");
        JsonNode done = t.done(seq);
        assertEquals("BobHello Bob", t.output(done), "the answer is echoed, without its Enter");
        assertTrue(t.last.get("reading").isNull());
    }

    @Test
    void aSecretAnswerIsNotEchoed() {
        Term t = new Term(open());
        long seq = execute(t.session, "read pw write \"got \",pw");
        t.until(e -> e.get("type").asString().equals("read"));
        send(t.session, "hunter2", ",\"secret\":true");
        JsonNode done = t.done(seq);
        assertEquals("got hunter2", t.output(done));
        assertFalse(t.log.toString().contains("hunter2got"), "the answer itself is not echoed: " + t.log);
    }

    @Test
    void aSingleCharacterReadTakesOneKeyWithoutEnter() {
        Term t = new Term(open());
        long seq = execute(t.session, "read *c write \"=\",c");
        JsonNode read = t.until(e -> e.get("type").asString().equals("read"));
        assertEquals(1, read.get("single").asInt());
        assertEquals(0, send(t.session, "A", ",\"enter\":false"), "type-ahead without Enter queues no item");
        assertEquals("A=65", t.output(t.done(seq)));
    }

    @Test
    void aReadWithATimeoutGivesUp() {
        Term t = new Term(open());
        long seq = execute(t.session, "read x:1 write \"[\",x,\"]\"");
        JsonNode read = t.until(e -> e.get("type").asString().equals("read"));
        assertEquals(1, read.get("timeout").asInt());
        assertEquals("[]", t.output(t.done(seq)));
    }

    @Test
    void interruptEndsAHangWithInterrupt() {
        Term t = new Term(open());
        long started = System.nanoTime();
        long seq = execute(t.session, "write \"a\" hang 30 write \"b\"");
        while (!t.log.toString().endsWith("a")) {
            t.read(2000);
        }
        assertEquals("running", t.last.get("state").asString());
        assertEquals(1, call(IrisMethod.SIGNAL, "{\"session\":" + q(t.session) + ",\"signal\":\"INT\"}").get("sent").asInt());
        JsonNode done = t.done(seq);
        assertEquals("<INTERRUPT>", done.get("error").get("code").asString());
        assertEquals("a", t.output(done));
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(10));
        // at the prompt INT interrupts nothing, and does not leak into the next command
        call(IrisMethod.SIGNAL, "{\"session\":" + q(t.session) + ",\"signal\":\"INT\"}");
        assertTrue(t.done(execute(t.session, "hang 0.05")).get("error").isNull());
    }

    @Test
    void interruptEndsAReadToo() {
        Term t = new Term(open());
        long seq = execute(t.session, "read x");
        t.until(e -> e.get("type").asString().equals("read"));
        call(IrisMethod.SIGNAL, "{\"session\":" + q(t.session) + ",\"signal\":\"INT\"}");
        assertEquals("<INTERRUPT>", t.done(seq).get("error").get("code").asString());
    }

    @Test
    void theNamespaceChangePersistsAndIsReported() {
        Term t = new Term(open());
        JsonNode done = t.done(execute(t.session, "zn \"%SYS\""));
        assertEquals("%SYS", done.get("namespace").asString());
        assertEquals("%SYS", t.last.get("namespace").asString());
        assertTrue(t.log.toString().endsWith("%SYS>"));
        assertEquals("%SYS", t.output(t.done(execute(t.session, "write $namespace"))));
        assertEquals("USER", t.done(execute(t.session, "set $namespace=\"user\"")).get("namespace").asString());
        JsonNode err = t.done(execute(t.session, "zn \"NOPE\"")).get("error");
        assertEquals("<NAMESPACE>", err.get("code").asString());
        assertEquals("*NOPE", err.get("info").asString());
        assertEquals("USER", call(IrisMethod.LIST, "{}").get("sessions").get(0).get("namespace").asString());
    }

    @Test
    void theTransactionLevelIsReportedAndPrompted() {
        Term t = new Term(open());
        assertEquals(1, t.done(execute(t.session, "tstart")).get("tlevel").asInt());
        assertEquals(1, t.last.get("tlevel").asInt());
        assertTrue(t.log.toString().endsWith("TL1:USER>"));
        assertEquals(0, t.done(execute(t.session, "tcommit")).get("tlevel").asInt());
        assertEquals("<COMMIT>", t.done(execute(t.session, "tcommit")).get("error").get("code").asString());
    }

    @Test
    void haltEndsTheJob() {
        Term t = new Term(open());
        long seq = execute(t.session, "write \"bye\" halt");
        JsonNode exit = t.until(e -> e.get("type").asString().equals("exit"));
        assertEquals("halt", exit.get("reason").asString());
        t.read(0);
        assertEquals("exited", t.last.get("state").asString());
        assertEquals("halt", t.last.get("exit").get("reason").asString());
        assertFalse(t.last.get("exit").get("at").asString().isBlank());
        assertTrue(t.events.stream().noneMatch(e -> e.get("type").asString().equals("done")),
                "HALT cannot be caught: no done event");
        assertTrue(t.log.toString().endsWith("bye"));
        assertEquals(0, t.last.get("seq_done").asLong());
        assertTrue(seq > 0);

        assertFault("CLOSED", call(IrisMethod.SEND, "{\"session\":" + q(t.session) + ",\"text\":\"w 1\"}"));
        assertFault("CLOSED", call(IrisMethod.SIGNAL, "{\"session\":" + q(t.session) + ",\"signal\":\"INT\"}"));
        assertEquals("exited", call(IrisMethod.LIST, "{}").get("sessions").get(0).get("state").asString());
        JsonNode closed = call(IrisMethod.CLOSE, "{\"session\":" + q(t.session) + ",\"from\":" + (t.log.length() - 3) + "}");
        assertEquals("bye", closed.get("data").asString());
        assertEquals("halt", closed.get("exit").get("reason").asString());
        assertFault("NOT_FOUND", call(IrisMethod.READ, "{\"session\":" + q(t.session) + "}"));
    }

    @Test
    void killEndsTheJobAtOnce() {
        Term t = new Term(open());
        execute(t.session, "hang 30");
        JsonNode sent = call(IrisMethod.SIGNAL, "{\"session\":" + q(t.session) + ",\"signal\":\"KILL\"}");
        assertEquals("exited", sent.get("state").asString());
        assertEquals("killed", t.until(e -> e.get("type").asString().equals("exit")).get("reason").asString());
        assertFault("BAD_REQUEST", call(IrisMethod.SIGNAL, "{\"session\":" + q(open()) + ",\"signal\":\"USR1\"}"));
    }

    @Test
    void typeAheadRunsInOrder() {
        Term t = new Term(open());
        long first = execute(t.session, "hang 0.2 write 1");
        long second = execute(t.session, "write 2");
        long third = send(t.session, "write 3", "");
        assertEquals(List.of(1L, 2L, 3L), List.of(first, second, third));
        assertEquals("3", t.output(t.done(third)));
        assertEquals("1", t.output(t.done(first)));
        assertEquals("2", t.output(t.done(second)));
        assertEquals(3, t.last.get("seq_done").asLong());
    }

    @Test
    void aReadWaitsBoundedAndWakesAsSoonAsOutputComes() throws Exception {
        Term t = new Term(open());
        t.read(0);
        long started = System.nanoTime();
        t.read(300);
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(waited >= 250 && waited < 5000, "waited " + waited + " ms");

        long from = t.from;
        CompletableFuture<JsonNode> pending = CompletableFuture.supplyAsync(() -> MAPPER.readTree(iris.call(IrisMethod.READ,
                "{\"session\":" + q(t.session) + ",\"from\":" + from + ",\"ev\":99,\"wait_ms\":60000}")));
        Thread.sleep(100);
        started = System.nanoTime();
        execute(t.session, "write \"x\"");
        JsonNode woke = pending.get(5, TimeUnit.SECONDS);
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5));
        assertFalse(woke.get("data").asString().isEmpty());

        JsonNode page = call(IrisMethod.READ, "{\"session\":" + q(t.session) + ",\"from\":1,\"max\":3}");
        assertEquals("SER", page.get("data").asString());
        assertEquals(4, page.get("next").asInt());
        assertTrue(page.get("end").asInt() > 4);
    }

    @Test
    void gracefulCloseEndsAHangAfterGrace() {
        Term t = new Term(open());
        execute(t.session, "write \"z\" hang 30");
        while (!t.log.toString().endsWith("z")) {
            t.read(2000);
        }
        long started = System.nanoTime();
        JsonNode closed = call(IrisMethod.CLOSE, "{\"session\":" + q(t.session) + ",\"grace_ms\":300,\"from\":" + t.from + "}");
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(took >= 250 && took < 5000, "took " + took + " ms");
        assertEquals(1, closed.get("closed").asInt());
        assertEquals("", closed.get("data").asString());
        assertEquals("close", closed.get("exit").get("reason").asString());
        assertEquals(0, iris.liveJobs());
        assertFault("NOT_FOUND", call(IrisMethod.CLOSE, "{\"session\":" + q(t.session) + "}"));
    }

    @Test
    void gracefulCloseLetsAShortCommandFinish() {
        Term t = new Term(open());
        execute(t.session, "hang 0.2 write \"done\"");
        while (!t.log.toString().contains("\r\n")) {
            t.read(2000); // running: a graceful close does not start queued commands, it lets this one end
        }
        JsonNode closed = call(IrisMethod.CLOSE, "{\"session\":" + q(t.session) + ",\"grace_ms\":5000}");
        assertTrue(closed.get("data").asString().endsWith("done\r\nUSER>"), closed.toString());
    }

    @Test
    void forcedCloseIsImmediate() {
        Term t = new Term(open());
        execute(t.session, "hang 30");
        while (!t.log.toString().endsWith("hang 30\r\n")) {
            t.read(2000);
        }
        long started = System.nanoTime();
        JsonNode closed = call(IrisMethod.CLOSE, "{\"session\":" + q(t.session) + ",\"force\":true}");
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(3));
        assertTrue(closed.get("data").asString().startsWith("USER>hang 30\r\n"));
        assertEquals("close", closed.get("exit").get("reason").asString());
        assertEquals(0, iris.liveJobs());
    }

    @Test
    void anIdleSessionEndsAfterItsIdleTimeout() {
        Term t = new Term(call(IrisMethod.OPEN, "{\"idle_timeout_s\":1}").get("session").asString());
        assertEquals("idle", t.until(e -> e.get("type").asString().equals("exit")).get("reason").asString());
    }

    // ---------------------------------------------------------------------------- instances

    @Test
    void aCallThatReachesAnotherInstanceAnswersWrongInstanceNamingBoth() {
        Term t = new Term(open());
        FakeIrisCalls app2 = iris.onInstance("app2:IRIS");
        String sid = q(t.session);
        for (JsonNode a : List.of(call(app2, IrisMethod.SEND, "{\"session\":" + sid + ",\"text\":\"w 1\"}"),
                call(app2, IrisMethod.READ, "{\"session\":" + sid + ",\"wait_ms\":10000}"),
                call(app2, IrisMethod.SIGNAL, "{\"session\":" + sid + ",\"signal\":\"KILL\"}"),
                call(app2, IrisMethod.CLOSE, "{\"session\":" + sid + "}"))) {
            assertFault("WRONG_INSTANCE", a);
            String message = a.get("fault").get("message").asString();
            assertTrue(message.contains(FakeIrisCalls.INSTANCE) && message.contains("app2:IRIS"), message);
        }
        // nothing reached the job: it still runs and answers on its own instance
        long seq = execute(t.session, "write \"alive\"");
        t.until(e -> e.get("type").asString().equals("done") && e.get("seq").asLong() == seq);
        assertTrue(t.log.toString().contains("\nalive"), t.log::toString);

        JsonNode there = call(app2, IrisMethod.LIST, "{}");
        assertEquals("app2:IRIS", there.get("instance").asString());
        JsonNode row = there.get("sessions").get(0);
        assertEquals(FakeIrisCalls.INSTANCE, row.get("instance").asString());
        assertEquals("unknown", row.get("state").asString(), "only its own instance knows its state");
        JsonNode here = call(IrisMethod.LIST, "{}");
        assertEquals(FakeIrisCalls.INSTANCE, here.get("instance").asString());
        assertEquals("idle", here.get("sessions").get(0).get("state").asString());
    }

    @Test
    void afterAFailoverTheOldPrimarysSessionsHaveExitedForTheReasonInstance() {
        String s = open();
        assertEquals(FakeIrisCalls.INSTANCE, call(IrisMethod.LIST, "{}").get("sessions").get(0).get("instance").asString());
        FakeIrisCalls backup = iris.failOver("backup:IRIS");
        assertEquals(0, iris.liveJobs(), "the old primary's jobs are gone");
        JsonNode r = call(backup, IrisMethod.READ, "{\"session\":" + q(s) + "}");
        assertEquals("exited", r.get("state").asString(), r.toString());
        assertEquals("instance", r.get("exit").get("reason").asString());
        assertFault("CLOSED", call(backup, IrisMethod.SEND, "{\"session\":" + q(s) + ",\"text\":\"w 1\"}"));
        JsonNode row = call(backup, IrisMethod.LIST, "{}").get("sessions").get(0);
        assertEquals("exited", row.get("state").asString());
        assertEquals(FakeIrisCalls.INSTANCE, row.get("instance").asString());
        assertEquals("instance", call(backup, IrisMethod.CLOSE, "{\"session\":" + q(s) + "}").get("exit")
                .get("reason").asString());
    }

    // ------------------------------------------------------------------------ ownership, faults

    @Test
    void onlyTheOwnerMayTouchASession() {
        String s = open();
        FakeIrisCalls bob = iris.asUser("bob");
        String sid = q(s);
        assertFault("NOT_OWNER", call(bob, IrisMethod.SEND, "{\"session\":" + sid + ",\"text\":\"w 1\"}"));
        assertFault("NOT_OWNER", call(bob, IrisMethod.READ, "{\"session\":" + sid + "}"));
        assertFault("NOT_OWNER", call(bob, IrisMethod.SIGNAL, "{\"session\":" + sid + ",\"signal\":\"KILL\"}"));
        assertFault("NOT_OWNER", call(bob, IrisMethod.CLOSE, "{\"session\":" + sid + "}"));
        assertFault("NOT_OWNER", call(bob, IrisMethod.LIST, "{\"session\":" + sid + "}"));
        assertEquals(0, call(bob, IrisMethod.LIST, "{}").get("sessions").size());
        assertEquals("bob", call(bob, IrisMethod.PING, "{}").get("user").asString());

        String bobs = call(bob, IrisMethod.OPEN, "{}").get("session").asString();
        JsonNode mine = call(IrisMethod.LIST, "{}").get("sessions");
        assertEquals(1, mine.size());
        assertEquals(s, mine.get(0).get("session").asString());
        assertEquals("alice", mine.get(0).get("owner").asString());

        FakeIrisCalls admin = iris.asAdmin("root");
        assertEquals(2, call(admin, IrisMethod.LIST, "{}").get("sessions").size());
        assertEquals("USER>", call(admin, IrisMethod.READ, "{\"session\":" + q(bobs) + "}").get("data").asString());
    }

    /** S2: an administrator's override covers Read, List, Signal and Close, never Send (code as another user). */
    @Test
    void anAdministratorMayNotTypeIntoAnotherUsersSession() {
        String s = q(open());
        FakeIrisCalls admin = iris.asAdmin("root");
        assertFault("NOT_OWNER", call(admin, IrisMethod.SEND, "{\"session\":" + s + ",\"text\":\"w 1\"}"));
        assertEquals("USER>", call(admin, IrisMethod.READ, "{\"session\":" + s + "}").get("data").asString());
        assertEquals(1, call(admin, IrisMethod.SIGNAL, "{\"session\":" + s + ",\"signal\":\"INT\"}").get("sent").asInt());
        assertEquals(1, call(admin, IrisMethod.CLOSE, "{\"session\":" + s + "}").get("closed").asInt());
    }

    @Test
    void badRequestsAreFaultsNotExceptions() {
        String s = q(open());
        assertFault("NOT_FOUND", call(IrisMethod.READ, "{\"session\":\"999\"}"));
        assertFault("BAD_REQUEST", call(IrisMethod.READ, "{not json"));
        assertFault("BAD_REQUEST", call(IrisMethod.READ, "[1]"));
        assertFault("BAD_REQUEST", call(IrisMethod.READ, "{}"));
        assertFault("BAD_REQUEST", call(IrisMethod.SEND, "{\"session\":" + s + "}"));
        assertFault("BAD_REQUEST", call(IrisMethod.READ, "{\"session\":" + s + ",\"from\":\"0\"}"));
        assertFault("BAD_REQUEST", call(IrisMethod.READ, "{\"session\":" + s + ",\"from\":-1}"));
        assertFault("BAD_REQUEST", call(IrisMethod.SEND, "{\"session\":" + s + ",\"text\":\"w 1\",\"enter\":\"yes\"}"));
        assertFault("BAD_REQUEST", call(IrisMethod.SIGNAL, "{\"session\":" + s + "}"));
        assertFault("BAD_REQUEST", call(IrisMethod.SQL, "{}"));
        assertFault("BAD_REQUEST", call(IrisMethod.OPEN, null));
    }

    /** What the doctor's checks use: sums, ?n and $X, $TEST after a timed READ, $ROLES, an error in a routine. */
    @Test
    void theDoctorsVocabularyBehavesAsObjectScriptDoes() {
        Term t = new Term(open());
        assertEquals("2|" + " ".repeat(8) + "10|" + FakeIrisCalls.ROLES,
                t.output(t.done(execute(t.session, "write 1+1,\"|\",?10,$x,\"|\",$roles"))));
        assertEquals("0", t.output(t.done(execute(t.session, "read x:0 write $test"))));
        JsonNode error = t.done(execute(t.session, "do ##class(Terminal.Session).Str(\"\",\"\",\"\")")).get("error");
        assertEquals("<INVALID OREF>", error.get("code").asString());
        assertEquals("zStr+1^Terminal.Session.1", error.get("location").asString());
        assertFalse(error.get("source").asString().isBlank());
        assertTrue(call(IrisMethod.PING, "{\"check\":true}").get("store").get("ok").asBoolean());
    }

    @Test
    void pingAndListDescribeTheInstance() {
        JsonNode ping = call(IrisMethod.PING, "{}");
        assertEquals("alice", ping.get("user").asString());
        assertEquals("USER", ping.get("namespace").asString());
        assertEquals(FakeIrisCalls.ZVERSION, ping.get("iris").asString());
        assertFalse(ping.get("version").asString().isBlank());

        Term t = new Term(open());
        t.done(execute(t.session, "write 42"));
        JsonNode row = call(IrisMethod.LIST, "{\"session\":" + q(t.session) + "}").get("sessions").get(0);
        for (String f : List.of("session", "name", "owner", "agent", "namespace", "state", "pid", "created",
                "last_activity", "bytes")) {
            assertNotNull(row.get(f), f + " in " + row);
        }
        assertEquals(t.log.length(), row.get("bytes").asInt());
        assertEquals("idle", row.get("state").asString());
    }

    // -------------------------------------------------------------------------------- SQL

    @Test
    void sqlSelectsConstants() {
        JsonNode r = call(IrisMethod.SQL, "{\"query\":\"SELECT 1 AS one, 'x' AS two\"}");
        assertEquals(0, r.get("sqlcode").asInt());
        assertEquals("one", r.get("columns").get(0).get("name").asString());
        assertEquals("INTEGER", r.get("columns").get(0).get("type").asString());
        assertEquals("VARCHAR", r.get("columns").get(1).get("type").asString());
        assertEquals("[[1,\"x\"]]", r.get("rows").toString());
        assertEquals(1, r.get("row_count").asInt());
        assertEquals(0, r.get("truncated").asInt());
    }

    @Test
    void sqlReadsTheSampleTableWithParameters() {
        JsonNode all = call(IrisMethod.SQL, "{\"query\":\"SELECT * FROM Sample.Person\"}");
        assertEquals(5, all.get("row_count").asInt());
        assertEquals("ID", all.get("columns").get(0).get("name").asString());
        assertEquals("Name", all.get("columns").get(1).get("name").asString());

        JsonNode one = call(IrisMethod.SQL, "{\"query\":\"SELECT Name FROM Sample.Person WHERE ID = ?\",\"params\":[2]}");
        assertEquals("[[\"Bob\"]]", one.get("rows").toString());

        JsonNode some = call(IrisMethod.SQL,
                "{\"query\":\"select id, name from sample.person where id > ? order by id desc\",\"params\":[\"2\"],\"max_rows\":2}");
        assertEquals("[[5,\"Eve\"],[4,\"Dave\"]]", some.get("rows").toString());
        assertEquals(2, some.get("row_count").asInt());
        assertEquals(1, some.get("truncated").asInt());
    }

    @Test
    void sqlErrorsCarrySqlcodeAndMessage() {
        JsonNode missing = call(IrisMethod.SQL, "{\"query\":\"SELECT * FROM X\"}");
        assertEquals(-30, missing.get("sqlcode").asInt());
        assertEquals("Table 'X' not found", missing.get("message").asString());
        assertEquals(0, missing.get("rows").size());
        assertEquals(-1, call(IrisMethod.SQL, "{\"query\":\"SELEKT nonsense\"}").get("sqlcode").asInt());
        assertEquals(-29, call(IrisMethod.SQL, "{\"query\":\"SELECT Age FROM Sample.Person\"}").get("sqlcode").asInt());
        assertEquals(-30, call(IrisMethod.SQL, "{\"query\":\"SELECT * FROM Sample.Person\",\"namespace\":\"%SYS\"}")
                .get("sqlcode").asInt());
    }

    // ------------------------------------------------------------------------- connections

    @Test
    void aDroppedConnectionFailsOneCallThenWorksAgain() {
        String s = open();
        iris.resetCounts();
        iris.dropConnection();
        IrisUnavailableException e = assertThrows(IrisUnavailableException.class,
                () -> iris.call(IrisMethod.READ, "{\"session\":" + q(s) + "}"));
        assertTrue(e.getMessage().contains("dropped"));
        assertEquals("USER>", call(IrisMethod.READ, "{\"session\":" + q(s) + "}").get("data").asString());
        assertEquals(2, iris.calls(IrisMethod.READ));
        assertEquals(0, iris.calls(IrisMethod.SEND));
        assertEquals(2, iris.totalCalls());
    }

    @Test
    void aLostAnswerStillTookEffect() {
        Term t = new Term(open());
        iris.loseNextAnswer();
        assertThrows(IrisUnavailableException.class,
                () -> iris.call(IrisMethod.SEND, "{\"session\":" + q(t.session) + ",\"text\":\"write 7\",\"execute\":true}"));
        assertEquals("7", t.output(t.done(1)), "the command ran although its answer was lost");
    }

    @Test
    void closingAConnectionLeavesTheSessionsInIris() {
        String s = open();
        FakeIrisCalls again = iris.asUser("alice");
        iris.close();
        assertThrows(IrisUnavailableException.class, () -> iris.call(IrisMethod.PING, "{}"));
        assertEquals("idle", call(again, IrisMethod.READ, "{\"session\":" + q(s) + "}").get("state").asString());
        assertEquals(1, iris.liveJobs());
    }

    // --------------------------------------------------------------------------- coverage

    /** The fake produces every field the Java side reads (IrisFields.FIELDS_READ). */
    @Test
    void everyFieldJavaReadsIsProducedByTheFake() {
        Term t = new Term(open());
        call(IrisMethod.PING, "{\"check\":true}");
        t.done(execute(t.session, "write undefinedVar"));
        long seq = execute(t.session, "read x");
        t.until(e -> e.get("type").asString().equals("read"));
        t.read(0);
        call(IrisMethod.SIGNAL, "{\"session\":" + q(t.session) + ",\"signal\":\"INT\"}");
        t.done(seq);
        call(IrisMethod.LIST, "{}");
        call(IrisMethod.SQL, "{\"query\":\"SELECT 1 AS one\"}");
        call(IrisMethod.READ, "{\"session\":\"999\"}");
        execute(t.session, "halt");
        t.until(e -> e.get("type").asString().equals("exit"));
        t.read(0);
        call(IrisMethod.CLOSE, "{\"session\":" + q(t.session) + "}");

        Set<String> produced = new TreeSet<>();
        answers.forEach(a -> collectNames(a, produced));
        Set<String> missing = new TreeSet<>(IrisFields.FIELDS_READ);
        missing.removeAll(produced);
        assertTrue(missing.isEmpty(), "FakeIrisCalls never produces " + missing + "; it produced " + produced);
    }

    private static void collectNames(JsonNode n, Set<String> into) {
        if (n.isObject()) {
            n.properties().forEach(e -> {
                into.add(e.getKey());
                collectNames(e.getValue(), into);
            });
        } else if (n.isArray()) {
            n.values().forEach(v -> collectNames(v, into));
        }
    }
}
