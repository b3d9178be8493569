package iristerm.session;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Sessions on disk: {@code <data>/sessions/<id>/meta.json} (replaced atomically) next to
 * {@code transcript.log}. What survives a restart of the server is read back from here.
 */
public final class SessionStore {
    private static final Logger LOG = LoggerFactory.getLogger(SessionStore.class);

    private static final String META = "meta.json";
    private static final String TRANSCRIPT = "transcript.log";
    /** what a session id may be: a name of one directory level */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final Path root;
    private final JsonMapper json = JsonMapper.builder().build();

    /**
     * The stored form of a session: what it was opened with and how it ended; for a process session also
     * the marker its processes carry and the server that ran it (its pid and start, epoch millis), so that
     * a later run can end what outlived a server that died without ending it.
     */
    public record Stored(SessionMeta meta, long pid, Integer exitCode, String signal, Long endedAt, String marker,
                         Long serverPid, Long serverStart) {
        /** The server this code runs in, as {@link #serverPid} and {@link #serverStart} record it. */
        static final ProcessHandle SERVER = ProcessHandle.current();
        static final long SERVER_START = SERVER.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);

        /** A record written by this server. */
        public Stored(SessionMeta meta, long pid, Integer exitCode, String signal, Long endedAt, String marker) {
            this(meta, pid, exitCode, signal, endedAt, marker, SERVER.pid(), SERVER_START);
        }

        /** Whether the server that wrote this record still runs (then what it started is its own to end). */
        boolean serverAlive() {
            return serverPid != null && ProcessHandle.of(serverPid).flatMap(h -> h.info().startInstant())
                    .map(start -> start.toEpochMilli() == serverStart).orElse(false);
        }
    }

    /** the store's directory inside the data directory */
    public static final String DIRECTORY = "sessions";

    public SessionStore(Path dataDir) {
        this.root = dataDir.resolve(DIRECTORY);
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + root + "; choose another --data-dir", e);
        }
    }

    public Path transcript(String id) {
        return dir(id).resolve(TRANSCRIPT);
    }

    /**
     * The directory of session {@code id}, one level under {@code sessions/}: an id is a plain name (the server's
     * own are 8 letters and digits). Anything else, a path or "..", which a meta.json written by someone else
     * could carry, is refused rather than resolved: the store never reaches outside its directory.
     */
    private Path dir(String id) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("not a session id: " + id);
        }
        Path dir = root.resolve(id);
        // nor through a link in its place (hosted mode: agents' processes may write the store's directory)
        if (Files.isSymbolicLink(dir)) {
            throw new IllegalArgumentException("session directory " + dir + " is a symbolic link");
        }
        return dir;
    }

    /**
     * @param limit  the most bytes the transcript keeps (Long.MAX_VALUE: no limit)
     * @param budget the room all transcripts share
     */
    public Transcript openTranscript(String id, long limit, DataBudget budget) {
        try {
            Files.createDirectories(dir(id));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create session directory for " + id, e);
        }
        return new Transcript(transcript(id), limit, budget);
    }

    /** Replaces the session's meta.json atomically; saves of one store are serialized so the last one wins. */
    public synchronized void save(Stored s) {
        Path dir = dir(s.meta().id());
        try {
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, META, ".tmp");
            Files.write(tmp, json.writeValueAsBytes(s));
            try {
                Files.move(tmp, dir.resolve(META), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir.resolve(META), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save session " + s.meta().id() + " in " + dir, e);
        }
    }

    /** Every stored session, newest first; unreadable entries are skipped (a crash mid-write leaves only .tmp). */
    public List<Stored> loadAll() {
        List<Stored> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                if (Files.isSymbolicLink(dir)) {
                    LOG.warn("{} skipped: a symbolic link, not a session's directory", dir);
                    continue;
                }
                Path meta = dir.resolve(META);
                if (Files.isRegularFile(meta)) {
                    try {
                        Stored stored = json.readValue(meta.toFile(), Stored.class);
                        if (stored.meta() != null && dir.getFileName().toString().equals(stored.meta().id())
                                && ID.matcher(stored.meta().id()).matches()) {
                            out.add(stored);
                        } else if (stored.meta() != null) {
                            LOG.warn("earlier session in {} skipped: its {} names another session", dir, META);
                        }
                    } catch (RuntimeException e) {
                        // a damaged entry must not stop the server; it stays on disk for inspection
                        LOG.warn("earlier session in {} skipped: its {} cannot be read", dir, META);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
        out.sort(Comparator.comparingLong((Stored s) -> s.meta().created()).reversed());
        return out;
    }

    /** Bytes the session's transcript file takes (0 when there is none). */
    public long transcriptSize(String id) {
        try {
            return Files.size(transcript(id));
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Deletes the session's directory and the files in it. Where the platform can, relative to the store's own
     * directory and without following a link that replaced the session's directory after {@link #dir} looked.
     */
    public void delete(String id) {
        Path dir = dir(id);
        try (DirectoryStream<Path> sessions = Files.newDirectoryStream(root)) {
            if (sessions instanceof SecureDirectoryStream<Path> secure) {
                Path name = dir.getFileName();
                try (SecureDirectoryStream<Path> files = secure.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    for (Path f : files) {
                        files.deleteFile(f.getFileName());
                    }
                }
                secure.deleteDirectory(name);
                return;
            }
        } catch (NoSuchFileException gone) {
            return;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
