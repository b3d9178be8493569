package iristerm.session;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SessionStoreTest {
    @TempDir
    Path dir;

    @Test
    void damagedEntriesAreSkippedAndTheRestLoads() throws Exception {
        SessionStore store = new SessionStore(dir);
        SessionMeta meta = new SessionMeta("good", "process", "n", "o", "bash", List.of(), "/", null, "pty", null, 1);
        store.save(new SessionStore.Stored(meta, 1, 0, null, 2L, null));
        Files.createDirectories(dir.resolve("sessions/empty"));
        Files.writeString(dir.resolve("sessions/empty/meta.json"), "{}");
        Files.createDirectories(dir.resolve("sessions/junk"));
        Files.writeString(dir.resolve("sessions/junk/meta.json"), "not json");
        assertEquals(List.of("good"), store.loadAll().stream().map(s -> s.meta().id()).toList());

        try (SessionManager m = new SessionManager(new SessionManager.Config(dir, 4096, 4, Duration.ofHours(1), 10,
                100))) {
            assertEquals(1, m.list("o").size());
            assertEquals(SessionState.exited, m.list("o").get(0).state());
        }
    }
}
