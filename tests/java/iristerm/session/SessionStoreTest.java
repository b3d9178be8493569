package iristerm.session;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * Hosted review round 4, R4-3: in hosted mode every agent's IRIS process may write the data directory, so a
     * meta.json may name any id. One that is not its own directory's name, a path above all, is never loaded,
     * so the history's pruning deletes nothing outside the store; and the store refuses such an id outright.
     */
    @Test
    void anEntryNamingAnotherPlaceIsNeitherLoadedNorFollowed() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("precious"), "keep");
        SessionStore store = new SessionStore(dir.resolve("data"));
        for (String[] planted : new String[][] {{"evil", outside.toString()}, {"up", "../../outside"}, {"other", "good"}}) {
            Path entry = Files.createDirectories(dir.resolve("data/sessions").resolve(planted[0]));
            Files.writeString(entry.resolve("meta.json"), "{\"meta\":{\"id\":\"" + planted[1].replace("\\", "\\\\")
                    + "\",\"kind\":\"process\",\"name\":\"n\",\"owner\":\"o\",\"created\":0},\"pid\":1,\"endedAt\":1}");
        }
        // a session directory that is a link to another place, with a record that names it (hosted review round 6, R6-2)
        Path target = Files.createDirectories(dir.resolve("target"));
        Files.writeString(target.resolve("keep"), "keep");
        Files.writeString(target.resolve("meta.json"), "{\"meta\":{\"id\":\"linked\",\"kind\":\"process\",\"name\":\"n\","
                + "\"owner\":\"o\",\"created\":0},\"pid\":1,\"endedAt\":1}");
        Files.createSymbolicLink(dir.resolve("data/sessions/linked"), target);
        assertEquals(List.of(), store.loadAll(), "no planted entry is loaded");
        assertThrows(IllegalArgumentException.class, () -> store.delete("linked"));
        // a history of none: every earlier session beyond it is deleted, which must not reach outside
        try (SessionManager m = new SessionManager(new SessionManager.Config(dir.resolve("data"), 4096, 4,
                Duration.ofHours(1), 0, 100))) {
            assertEquals(0, m.list("o").size());
        }
        assertTrue(Files.exists(outside.resolve("precious")), "nothing outside the store was deleted");
        assertTrue(Files.exists(target.resolve("keep")) && Files.exists(target.resolve("meta.json")), "nothing through a link either");
        assertThrows(IllegalArgumentException.class, () -> store.delete("../outside"));
        assertThrows(IllegalArgumentException.class, () -> store.transcript(outside.toString()));
    }

    /** Hosted review round 5, R5-9: a planted marker that is not one Session makes (a UUID) ends nothing. */
    @Test
    void onlyMarkersSessionsMakeAreTakenForOrphans() throws Exception {
        Path data = dir.resolve("marked");
        Files.createDirectories(data.resolve("sessions"));
        String uuid = java.util.UUID.randomUUID().toString();
        for (String[] planted : new String[][] {{"keptone", uuid}, {"plantedx", "PATH"}, {"plantedy", ""}}) {
            Path entry = Files.createDirectories(data.resolve("sessions").resolve(planted[0]));
            Files.writeString(entry.resolve("meta.json"), "{\"meta\":{\"id\":\"" + planted[0] + "\",\"kind\":\"process\","
                    + "\"name\":\"n\",\"owner\":\"o\",\"created\":1},\"pid\":1,\"endedAt\":1,\"marker\":\"" + planted[1] + "\"}");
        }
        try (SessionManager m = new SessionManager(new SessionManager.Config(data, 4096, 4, Duration.ofHours(1), 10, 100))) {
            assertEquals(List.of(uuid), m.orphanMarkers());
        }
    }
}
