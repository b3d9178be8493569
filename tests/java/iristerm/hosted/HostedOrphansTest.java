package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import iristerm.iris.FakeIrisCalls;
import iristerm.session.SessionMeta;
import iristerm.session.SessionStore;

/**
 * A bridge started on a data directory whose sessions' processes outlived their bridge (its JVM was
 * killed: nothing of it ran its shutdown) ends them, as the standalone server does at start.
 */
@Timeout(60)
class HostedOrphansTest {
    /** what the bridge is given to end them: TERM, then KILL after its grace; generous for a loaded machine */
    private static final long END_SECONDS = 30;

    @TempDir
    Path dataDir;
    private Process orphan;
    private FakeIrisCalls iris;

    @AfterEach
    void stop() {
        Bridge.serveWith(null);
        if (iris != null) {
            iris.shutdown();
        }
        if (orphan != null) {
            orphan.destroyForcibly();
        }
    }

    @Test
    void aStartEndsWhatAKilledBridgesSessionsLeftRunning() throws Exception {
        // a marker as a session makes it (a UUID): only such markers are taken from the records
        String marker = java.util.UUID.randomUUID().toString();
        // a session's process as a bridge started it: it carries the session's marker in its environment
        ProcessBuilder sleeper = new ProcessBuilder("sleep", "600");
        sleeper.environment().put("IRIS_TERMINAL_SESSION", marker);
        orphan = sleeper.start();
        // and the session's record, written by a bridge that is gone (this pid, but another start: not us)
        SessionMeta meta = new SessionMeta("orphan01", "process", "bash", "_SYSTEM", "bash", List.of(), null, null,
                "pipe", null, System.currentTimeMillis());
        new SessionStore(dataDir).save(new SessionStore.Stored(meta, orphan.pid(), null, null, null, marker,
                ProcessHandle.current().pid(), 1L));
        assertTrue(orphan.isAlive(), "the stand-in process did not start");

        iris = new FakeIrisCalls("_SYSTEM");
        FakeGateway gateway = new FakeGateway(iris);
        gateway.call("_SYSTEM", thread -> {
            Bridge.serveWith(HostedServer.start(new HostedConfig(dataDir, false, Set.of(), null), gateway, gateway));
            return null;
        });
        assertTrue(orphan.waitFor(END_SECONDS, TimeUnit.SECONDS),
                "the bridge left the earlier bridge's session process running");
    }
}
