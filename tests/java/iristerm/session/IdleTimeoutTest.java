package iristerm.session;

import iristerm.process.ProcessEngine;
import iristerm.process.ProcessSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Idle means idle: output is activity, and a session ended for idleness says so. */
class IdleTimeoutTest {
    @TempDir
    Path dir;

    @Test
    void aQuietSessionIsClosedAndSaysWhyWhileOnePrintingAwayLives() throws Exception {
        try (SessionManager m = new SessionManager(new SessionManager.Config(dir, 1 << 20, 8, Duration.ofSeconds(1), 20, 500))) {
            Session quiet = open(m, "sleep", "100");
            Session busy = open(m, "sh", "-c", "while :; do echo tick; sleep 0.1; done");
            await(quiet::isExited, "the quiet session is closed for its idle timeout");
            // both were last touched when they opened: a sweep that closed one for that would close both
            assertEquals("idle", quiet.endedBy());
            assertNull(busy.endedBy(), "output counts as activity");
            assertFalse(busy.isExited());
            String out = new String(quiet.log().read(0, 1 << 20).bytes(), StandardCharsets.UTF_8);
            assertTrue(out.contains("idle timeout"), out);
        }
    }

    private static Session open(SessionManager m, String command, String... args) {
        ProcessSpec spec = new ProcessSpec(command, List.of(args), ".", Map.of(), false, 80, 24);
        SessionMeta template = new SessionMeta(null, "process", command, "me", command, List.of(args), ".", null, "pipe",
                null, 0);
        return m.open("me", template, true, sink -> ProcessEngine.start(spec, null, sink, "idle-test"));
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what + " within 15 s");
            Thread.sleep(20);
        }
    }
}
