package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import iristerm.doctor.Doctor;
import iristerm.iris.FakeIrisCalls;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Bridge.probe(), which Terminal.Installer.Check() calls through Terminal.Gateway.Probe(): one call back
 * into IRIS on the gateway thread IRIS called in on, answered with what IRIS saw there (the contract
 * fake's Ping) and the classes version the jar expects, which Check compares with the installed
 * Terminal.Session's VERSION.
 */
@Timeout(60)
class BridgeProbeTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private FakeIrisCalls iris;
    private FakeGateway gateway;

    @BeforeEach
    void start() {
        iris = new FakeIrisCalls("_SYSTEM");
        gateway = new FakeGateway(iris);
    }

    @AfterEach
    void stop() {
        iris.shutdown();
    }

    @Test
    void onTheGatewayThreadIrisAnswersAsTheCallingUser() throws Exception {
        Thread[] called = new Thread[1];
        JsonNode probe = JSON.readTree(gateway.call("alice", thread -> {
            called[0] = thread;
            return Bridge.probe(gateway);
        }));
        assertFalse(probe.has("error"), probe::toString);
        assertEquals("alice", probe.path("ping").path("user").asString(), probe::toString);
        assertEquals("USER", probe.path("ping").path("namespace").asString(), probe::toString);
        assertEquals(called[0].getName(), probe.path("thread").asString(), probe::toString);
        assertEquals(1, gateway.callbacks.size(), "one call back into IRIS");
        assertEquals(called[0], gateway.callbacks.get(0), "on the thread IRIS called in on");
    }

    @Test
    void itNamesTheClassesVersionTheJarExpectsAndTheJarsVersion() throws Exception {
        JsonNode probe = JSON.readTree(gateway.call("alice", thread -> Bridge.probe(gateway)));
        assertEquals(Doctor.CLASSES_VERSION, probe.path("classes").asString(), probe::toString);
        assertEquals(Bridge.version(), probe.path("jar").asString(), probe::toString);
    }

    /** Off the gateway thread the call back cannot work: the reason is the answer, nothing is thrown. */
    @Test
    void offTheGatewayThreadItAnswersWhyTheCallBackFailed() {
        JsonNode probe = JSON.readTree(Bridge.probe(gateway));
        assertFalse(probe.has("ping"), probe::toString);
        assertTrue(probe.path("error").asString().contains("not a gateway thread"), probe::toString);
        assertTrue(gateway.callbacks.isEmpty());
    }

    /** What Terminal.Gateway.Probe() gets where no IRIS called in (the real reentrant connection). */
    @Test
    void withoutIrisTheRealProbeSaysItWorksOnlyOnTheGatewayThread() {
        JsonNode probe = JSON.readTree(Bridge.probe());
        assertFalse(probe.has("ping"), probe::toString);
        assertTrue(probe.path("error").asString().contains("gateway thread"), probe::toString);
        assertEquals(Doctor.CLASSES_VERSION, probe.path("classes").asString(), probe::toString);
    }
}
