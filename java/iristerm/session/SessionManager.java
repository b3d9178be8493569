package iristerm.session;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Every session of this server: who owns it, how many each owner may have, when idle ones close,
 * what is kept on disk, and the pushing of output to clients that asked for it.
 */
public final class SessionManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionManager.class);
    private static final String ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";
    /** a marker as {@link Session} makes it */
    private static final Pattern MARKER = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    /** output pushed to a client is gathered for this long, then sent as one notification */
    private static final long NOTIFY_COALESCE_MILLIS = 50;
    private static final int NOTIFY_MAX_BYTES = 16 * 1024;
    private static final long CLOSE_DRAIN_MILLIS = 5000;

    /**
     * @param maxTranscriptBytes the most output a session's transcript keeps (Long.MAX_VALUE: no limit)
     * @param maxDataBytes       the most all transcripts keep together (Long.MAX_VALUE: no limit); past it the
     *                           oldest ended sessions are removed first
     */
    public record Config(Path dataDir, int tailBytes, int maxSessionsPerOwner, Duration idleTimeout,
                         int maxHistory, long defaultGraceMillis, long maxTranscriptBytes, long maxDataBytes,
                         boolean transcripts) {
        /** A session's transcript keeps 64 MiB by default. */
        public static final long DEFAULT_MAX_TRANSCRIPT_BYTES = 64L << 20;
        /** All transcripts keep 1 GiB by default. */
        public static final long DEFAULT_MAX_DATA_BYTES = 1L << 30;

        /** The default limits on disk. */
        public Config(Path dataDir, int tailBytes, int maxSessionsPerOwner, Duration idleTimeout, int maxHistory,
                      long defaultGraceMillis) {
            this(dataDir, tailBytes, maxSessionsPerOwner, idleTimeout, maxHistory, defaultGraceMillis,
                    DEFAULT_MAX_TRANSCRIPT_BYTES, DEFAULT_MAX_DATA_BYTES, true);
        }

        /**
         * The same, keeping no session output on disk (metadata and markers still are): where other users' code
         * can read the data directory (IRIS-hosted: every agent's IRIS process runs as the bridge's OS user).
         */
        public Config withoutTranscripts() {
            return new Config(dataDir, tailBytes, maxSessionsPerOwner, idleTimeout, maxHistory, defaultGraceMillis,
                    maxTranscriptBytes, maxDataBytes, false);
        }
    }

    private final Config config;
    private final SessionStore store;
    private final DataBudget disk;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final Map<String, NotifyTarget> notifyTargets = new ConcurrentHashMap<>();
    private final Map<String, Boolean> notifyScheduled = new ConcurrentHashMap<>();
    private final Set<String> persistent = ConcurrentHashMap.newKeySet();
    /** the marker each persistent session's processes carry (see {@link EngineSink#marker()}), by session id */
    private final Map<String, String> markers = new ConcurrentHashMap<>();
    /** markers of sessions a server that is gone ran: what still carries them outlived it */
    private final List<String> orphanMarkers = new ArrayList<>();
    private final ScheduledExecutorService timer;
    private final java.util.concurrent.ExecutorService notifier = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sessions-notify");
        t.setDaemon(true);
        return t;
    });
    private final SecureRandom random = new SecureRandom();
    private final SessionChanges changes = new SessionChanges();
    private final Session.Listener listener = new Session.Listener() {
        @Override
        public void output(Session s) {
            changes.changed();
            if (s.notifying() && notifyScheduled.putIfAbsent(s.id(), Boolean.TRUE) == null) {
                later(() -> push(() -> pushOutput(s)), NOTIFY_COALESCE_MILLIS);
            }
        }

        @Override
        public void exited(Session s) {
            changes.changed();
            later(() -> onExit(s), 0);
        }
    };

    public SessionManager(Config config) {
        this.config = config;
        this.store = new SessionStore(config.dataDir());
        this.disk = new DataBudget(config.maxDataBytes());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sessions-timer");
            t.setDaemon(true);
            return t;
        });
        loadHistory();
        disk.reclaimWith(this::removeOldestEnded);
        long sweep = Math.max(200, Math.min(30_000, config.idleTimeout().toMillis() / 4));
        timer.scheduleWithFixedDelay(this::closeIdle, sweep, sweep, TimeUnit.MILLISECONDS);
    }

    /** Runs on the timer; once the manager is closing, the work is dropped (close() saves every session). */
    private void later(Runnable work, long delayMillis) {
        try {
            timer.schedule(work, delayMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("manager closing; dropped deferred work");
        }
    }

    /** Sends notifications off the timer, so a client slow to take them holds up no exit or idle handling. */
    private void push(Runnable send) {
        try {
            notifier.execute(send);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("manager closing; dropped a notification");
        }
    }

    public Config config() {
        return config;
    }

    /** Moves whenever a session opens, writes or ends: what a live list of sessions waits on. */
    public SessionChanges changes() {
        return changes;
    }

    /**
     * Markers of the sessions of earlier runs whose server is gone (it died without ending them): processes
     * that still carry one are leftovers nobody else will end.
     */
    public List<String> orphanMarkers() {
        return List.copyOf(orphanMarkers);
    }

    /** Sessions of an earlier run: their processes are gone, their transcripts remain readable. */
    private void loadHistory() {
        List<SessionStore.Stored> all = store.loadAll();
        for (int i = 0; i < all.size(); i++) {
            SessionStore.Stored s = all.get(i);
            try {
                if (i >= config.maxHistory()) {
                    store.delete(s.meta().id());
                    continue;
                }
                long ended = s.endedAt() != null ? s.endedAt() : System.currentTimeMillis();
                OutputLog log = new OutputLog(1, config.transcripts()
                        ? store.openTranscript(s.meta().id(), config.maxTranscriptBytes(), disk) : null);
                sessions.put(s.meta().id(), Session.ended(s.meta(), log, s.exitCode(), s.signal(), ended));
                persistent.add(s.meta().id());
                // only what Session makes (a UUID): in hosted mode agents may write these files, and a marker is
                // what the start's end of orphans signals processes by
                if (s.marker() != null && MARKER.matcher(s.marker()).matches()) {
                    markers.put(s.meta().id(), s.marker());
                    if (!s.serverAlive()) {
                        orphanMarkers.add(s.marker());
                    }
                }
                if (s.endedAt() == null) {
                    store.save(new SessionStore.Stored(s.meta(), s.pid(), s.exitCode(), s.signal(), ended, s.marker()));
                }
            } catch (RuntimeException e) {
                // one unreadable session must not keep the server from starting
                LOG.warn("earlier session {} skipped: {}", s.meta().id(), e.getMessage());
            }
        }
    }

    /**
     * Opens a session for {@code owner}. {@code persistent} sessions keep metadata and transcript in
     * the data directory; the engine is made by {@code engine} once the session exists.
     */
    public synchronized Session open(String owner, SessionMeta template, boolean persistent,
                                     Function<EngineSink, Engine> engine) {
        checkCapacity(owner);
        String id = newId();
        SessionMeta meta = new SessionMeta(id, template.kind(), template.name(), owner, template.command(),
                template.args(), template.cwd(), template.namespace(), template.mode(), template.prompt(),
                System.currentTimeMillis());
        Transcript transcript = persistent && config.transcripts()
                ? store.openTranscript(id, config.maxTranscriptBytes(), disk) : null;
        Session session = new Session(meta, new OutputLog(config.tailBytes(), transcript), listener);
        if (persistent) {
            // saved before the engine starts, so the save at its exit (however soon) comes after this one
            store.save(new SessionStore.Stored(meta, -1, null, null, null, session.marker()));
            this.persistent.add(id);
            markers.put(id, session.marker());
        }
        try {
            session.attach(engine.apply(session));
        } catch (RuntimeException e) {
            session.log().closeTranscript();
            if (persistent) {
                this.persistent.remove(id);
                store.delete(id);
            }
            throw e;
        }
        sessions.put(id, session);
        changes.changed();
        LOG.info("session {} opened for {}: {} {}", id, owner, meta.kind(), meta.command());
        return session;
    }

    /**
     * Removes the ended session that ended first, with its files, to make room on disk (called by the
     * data directory's budget, under its lock); false when no ended session keeps anything there.
     */
    private boolean removeOldestEnded() {
        Session oldest = sessions.values().stream().filter(s -> s.isExited() && isPersistent(s))
                .min(Comparator.comparingLong(Session::endedAt)).orElse(null);
        if (oldest == null || sessions.remove(oldest.id()) == null) {
            return false;
        }
        persistent.remove(oldest.id());
        markers.remove(oldest.id());
        long size = store.transcriptSize(oldest.id());
        try {
            store.delete(oldest.id());
        } catch (UncheckedIOException e) {
            LOG.warn("could not remove ended session {} to make room: {}", oldest.id(), e.getMessage());
            return true;
        }
        disk.give(size);
        changes.changed();
        LOG.info("ended session {} of {} removed: the data directory's limit of {} bytes for transcripts was reached",
                oldest.id(), oldest.meta().owner(), disk.max());
        return true;
    }

    /** Refuses when {@code owner} already has as many live sessions as allowed. */
    public void checkCapacity(String owner) {
        long live = sessions.values().stream().filter(s -> s.meta().owner().equals(owner) && !s.isExited()).count();
        if (live >= config.maxSessionsPerOwner()) {
            throw new SessionException("'" + owner + "' already has " + live + " open sessions, the limit ("
                    + config.maxSessionsPerOwner() + "); close one with session_close first");
        }
    }

    private String newId() {
        while (true) {
            StringBuilder b = new StringBuilder(8);
            for (int i = 0; i < 8; i++) {
                b.append(ID_ALPHABET.charAt(random.nextInt(ID_ALPHABET.length())));
            }
            if (!sessions.containsKey(b.toString())) {
                return b.toString();
            }
        }
    }

    /** The owner's session with this id. Another owner's session is reported exactly like a missing one. */
    public Session get(String owner, String id) {
        Session s = id == null ? null : sessions.get(id);
        if (s == null || !s.meta().owner().equals(owner)) {
            throw new SessionException("no session '" + id + "'; session_list shows your sessions");
        }
        return s;
    }

    public List<Session> list(String owner) {
        List<Session> out = new ArrayList<>();
        for (Session s : sessions.values()) {
            if (s.meta().owner().equals(owner)) {
                out.add(s);
            }
        }
        out.sort(Comparator.comparingLong((Session s) -> s.meta().created()));
        return out;
    }

    /** Every owner's sessions, oldest first: for an administrator's view (IRIS-hosted, %Admin_Secure:USE). */
    public List<Session> all() {
        List<Session> out = new ArrayList<>(sessions.values());
        out.sort(Comparator.comparingLong((Session s) -> s.meta().created()));
        return out;
    }

    public void notifyTo(Session s, NotifyTarget target) {
        notifyTargets.put(s.id(), target);
        s.setNotify(true);
    }

    /** Ends the session and answers with what its default reader had not read yet (the last of it). */
    public ReadResult close(Session s, boolean force, long graceMillis, int maxBytes, boolean stripAnsi) {
        s.terminate(force, graceMillis);
        // wait for the engine to report the exit (bounded); output that was still draining lands first
        s.await(new Until(null, null, false, true), s.log().end(), CLOSE_DRAIN_MILLIS);
        long end = s.log().end();
        // the last maxBytes at most; a session with less output than that keeps its reader where it is
        s.skipTo(ReadRequest.DEFAULT_READER, Math.max(0, end - maxBytes));
        return s.read(new ReadRequest(ReadRequest.DEFAULT_READER, 0, null, maxBytes, true, stripAnsi, false,
                null, 0));
    }

    private void onExit(Session s) {
        NotifyTarget target = notifyTargets.get(s.id());
        if (target != null) {
            // after the last output, in order, on the notifying thread: a slow client delays only its own pushes
            push(() -> {
                pushOutput(s);
                notifyTargets.remove(s.id());
                try {
                    target.exited(s);
                } catch (RuntimeException e) {
                    LOG.debug("exit notification for {} failed: {}", s.id(), e.toString());
                }
            });
        }
        s.log().retire();
        if (isPersistent(s)) {
            store.save(new SessionStore.Stored(s.meta(), s.pid(), s.exitCode(), s.exitSignal(), s.endedAt(),
                    markers.get(s.id())));
        }
        LOG.info("session {} exited (code {}, signal {})", s.id(), s.exitCode(), s.exitSignal());
    }

    private boolean isPersistent(Session s) {
        return persistent.contains(s.id());
    }

    private void pushOutput(Session s) {
        notifyScheduled.remove(s.id());
        NotifyTarget target = notifyTargets.get(s.id());
        if (target == null) {
            return;
        }
        ReadResult r = s.read(new ReadRequest(ReadRequest.DEFAULT_READER, 0, null, NOTIFY_MAX_BYTES, true, true,
                false, null, 0));
        if (r.bytes() > 0) {
            try {
                target.output(s, r.data());
            } catch (RuntimeException e) {
                LOG.debug("output notification for {} failed: {}", s.id(), e.toString());
            }
        }
        if (r.available() > 0 && notifyScheduled.putIfAbsent(s.id(), Boolean.TRUE) == null) {
            later(() -> push(() -> pushOutput(s)), NOTIFY_COALESCE_MILLIS);
        }
    }

    private void closeIdle() {
        long cutoff = System.currentTimeMillis() - config.idleTimeout().toMillis();
        for (Session s : sessions.values()) {
            if (!s.isExited() && s.engine() != null && s.lastActivity() < cutoff) {
                LOG.info("session {} idle since {}; closing it", s.id(), Instant.ofEpochMilli(s.lastActivity()));
                s.idledOut(config.idleTimeout());
                Thread t = new Thread(() -> s.terminate(false, config.defaultGraceMillis()), "idle-close-" + s.id());
                t.setDaemon(true);
                t.start();
                s.touch();
            }
        }
    }

    /**
     * Ends every session this server runs (graceful, then forced), and what the exited ones left
     * running, and flushes transcripts.
     */
    @Override
    public void close() {
        List<Thread> closing = new ArrayList<>();
        for (Session s : sessions.values()) {
            if (s.engine() != null) {
                Thread t = new Thread(() -> s.terminate(false, config.defaultGraceMillis()), "shutdown-" + s.id());
                t.start();
                closing.add(t);
            }
        }
        for (Thread t : closing) {
            try {
                t.join(config.defaultGraceMillis() + 5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        timer.shutdown();
        notifier.shutdown();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
            notifier.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Session s : sessions.values()) {
            if (isPersistent(s)) {
                store.save(new SessionStore.Stored(s.meta(), s.pid(), s.exitCode(), s.exitSignal(),
                        s.isExited() ? s.endedAt() : System.currentTimeMillis(), markers.get(s.id())));
            }
            s.log().closeTranscript();
        }
    }
}
