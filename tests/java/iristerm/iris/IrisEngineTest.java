package iristerm.iris;

import iristerm.session.OutputLog;
import iristerm.session.ReadReason;
import iristerm.session.ReadRequest;
import iristerm.session.ReadResult;
import iristerm.session.Session;
import iristerm.session.SessionException;
import iristerm.session.SessionMeta;
import iristerm.session.Until;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The iris engine under the session model, against the contract fake: faults and lost connections. */
class IrisEngineTest {
    private final FakeIrisCalls alice = new FakeIrisCalls("alice");

    @AfterEach
    void stop() {
        alice.shutdown();
    }

    private Session open(IrisApi api) {
        return attach(api, api.call(IrisMethod.OPEN, IrisApi.request().put("agent", "a")));
    }

    /** The session {@code opened} describes, reached through {@code api}. */
    private static Session attach(IrisApi api, JsonNode opened) {
        SessionMeta meta = new SessionMeta("t1", "iris", "t", "a", "iris", List.of(), null, "USER", null, null, 0);
        Session s = new Session(meta, new OutputLog(1 << 16, null), null);
        s.attach(new IrisEngine(api, opened, s));
        return s;
    }

    private static ReadRequest untilPrompt(long waitMs, long mark) {
        return new ReadRequest(ReadRequest.DEFAULT_READER, waitMs, new Until(null, null, true, false), 1 << 20,
                false, true, false, null, mark);
    }

    @Test
    void anotherUsersCallIsRefusedWithTheApisOwnMessage() {
        IrisApi mine = new IrisApi(alice);
        String id = mine.call(IrisMethod.OPEN, IrisApi.request()).path(IrisFields.SESSION).asString();
        IrisApi bobs = new IrisApi(alice.asUser("bob"));
        IrisApi.Fault f = assertThrows(IrisApi.Fault.class,
                () -> bobs.call(IrisMethod.READ, IrisApi.request().put("session", id)));
        assertEquals("NOT_OWNER", f.code());
        assertTrue(f.getMessage().contains("NOT_OWNER"));
    }

    @Test
    void aDroppedConnectionFailsOneReadAndTheNextOneWorks() {
        Session s = open(new IrisApi(alice));
        long mark = s.send("write \"before\"", true, false);
        assertEquals(ReadReason.prompt, s.read(untilPrompt(5000, mark)).reason());
        long mark2 = s.send("write \"after\"", true, false);
        alice.dropConnection();
        SessionException e = assertThrows(SessionException.class, () -> s.read(untilPrompt(5000, mark2)));
        assertTrue(e instanceof IrisUnavailableException, e.toString());
        ReadResult r = s.read(untilPrompt(5000, mark2));
        assertEquals(ReadReason.prompt, r.reason(), r.toString());
        assertTrue(r.data().contains("after"), r.data());
    }

    @Test
    void aReadWithoutWaitingStillFetchesWhatIrisHas() {
        IrisApi api = new IrisApi(alice);
        Session s = open(api);
        String irisId = ((IrisEngine) s.engine()).irisSession();
        s.send("write \"ready\"", true, false);
        // wait for the command to finish in IRIS (its done event) without this session fetching anything
        long events = 0;
        boolean done = false;
        for (int i = 0; i < 20 && !done; i++) {
            JsonNode answer = api.call(IrisMethod.READ, IrisApi.request().put("session", irisId).put("from", 1 << 20)
                    .put("ev", events).put("wait_ms", 1000));
            for (JsonNode ev : answer.path("events")) {
                done |= "done".equals(ev.path("type").asString());
            }
            events = answer.path("ev_next").asLong(events);
        }
        assertTrue(done, "the command did not finish in the fake");
        ReadResult r = s.read(new ReadRequest(ReadRequest.DEFAULT_READER, 0, null, 1 << 20, false, true, false,
                null, 0));
        assertTrue(r.data().contains("ready"), r.toString());
    }

    @Test
    void aSessionClosedInIrisBecomesExited() {
        IrisApi api = new IrisApi(alice);
        Session s = open(api);
        String irisId = ((IrisEngine) s.engine()).irisSession();
        api.call(IrisMethod.CLOSE, IrisApi.request().put("session", irisId).put("force", true));
        ReadResult r = s.read(new ReadRequest(ReadRequest.DEFAULT_READER, 5000, new Until(null, null, false, true),
                1 << 20, false, true, false, null, 0));
        assertEquals(ReadReason.exit, r.reason());
        assertTrue(s.isExited());
    }

    @Test
    void aCallThatReachesAnotherInstanceIsAnErrorSayingWhatToDoAndTheSessionLivesOn() {
        JsonNode opened = new IrisApi(alice).call(IrisMethod.OPEN, IrisApi.request().put("agent", "a"));
        Session elsewhere = attach(new IrisApi(alice.onInstance("app2:IRIS")), opened);
        assertEquals(FakeIrisCalls.INSTANCE, ((IrisEngine) elsewhere.engine()).instance());
        for (Runnable call : List.<Runnable>of(() -> elsewhere.send("write 1", true, false),
                () -> elsewhere.read(untilPrompt(5000, 0)))) {
            SessionException e = assertThrows(SessionException.class, call::run);
            String m = e.getMessage();
            assertTrue(m.contains(FakeIrisCalls.INSTANCE) && m.contains("app2:IRIS"), m);
            assertTrue(m.contains("--iris-host") && m.contains("Mcp-Session-Id") && m.contains("[WRONG_INSTANCE]"), m);
        }
        assertFalse(elsewhere.isExited(), "the job runs on its own instance: not reported ended");
        Session home = attach(new IrisApi(alice), opened);
        long mark = home.send("write \"still here\"", true, false);
        ReadResult r = home.read(untilPrompt(5000, mark));
        assertTrue(r.data().contains("still here"), r.toString());
    }

    @Test
    void afterAMirrorFailoverTheOldPrimarysSessionHasExited() {
        JsonNode opened = new IrisApi(alice).call(IrisMethod.OPEN, IrisApi.request().put("agent", "a"));
        FakeIrisCalls newPrimary = alice.failOver("backup:IRIS");
        Session s = attach(new IrisApi(newPrimary), opened);
        ReadResult r = s.read(new ReadRequest(ReadRequest.DEFAULT_READER, 5000, new Until(null, null, false, true),
                1 << 20, false, true, false, null, 0));
        assertEquals(ReadReason.exit, r.reason(), r.toString());
        assertTrue(s.isExited());
    }
}
