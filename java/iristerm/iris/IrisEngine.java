package iristerm.iris;

import iristerm.session.Engine;
import iristerm.session.EngineSink;
import iristerm.session.SessionException;
import iristerm.session.SessionState;
import iristerm.session.Signal;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import static iristerm.iris.IrisFields.*;

/**
 * A session whose terminal is an IRIS job running Terminal.Engine. Output and events live in IRIS;
 * this engine fetches them on the reader's own thread (in hosted mode no other thread may call
 * IRIS), one fetch at a time, and turns IRIS character offsets into the log's byte offsets.
 */
public final class IrisEngine implements Engine {
    /** IRIS caps one Read's wait at 10 s; longer waits are several fetches */
    private static final long MAX_FETCH_WAIT_MS = 10_000;
    private static final int FETCH_CHARS = 256 * 1024;
    /** recent output kept for mapping character offsets of events to byte offsets */
    private static final long MAPPED_CHARS = 4L << 20;
    private static final int DONE_KEPT = 256;

    private final IrisApi api;
    private final String id;
    private final EngineSink sink;
    private final ReentrantLock fetching = new ReentrantLock();
    private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
    private final List<JsonNode> unmapped = new ArrayList<>();
    private final Map<Long, Done> done = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Done> eldest) {
            return size() > DONE_KEPT;
        }
    };
    private final long pid;
    /** the IRIS instance that runs the job ("" from classes that predate instances) */
    private final String instance;
    private long charNext;
    private long evNext;
    private long byteEnd;
    private volatile SessionState state;
    private volatile String namespace;
    private volatile int tlevel;
    private volatile long promptAt = -1;
    /** a done or read event came; the prompt counts once all output up to it is fetched */
    private boolean promptPending;
    private volatile Reading reading;
    /** input sent so far: a fetch that began before the latest input may report a state it has not seen */
    private volatile long inputs;

    /** Output of IRIS characters [charStart, charStart + text.length()) begins at log byte byteStart. */
    private record Chunk(long charStart, long byteStart, String text) {
    }

    /** A finished command: its own output is log bytes [outStart, outEnd). */
    public record Done(long seq, long outStart, long outEnd, String namespace, int tlevel, long elapsedMs,
                       CommandError error) {
    }

    /** What $ZERROR said, decomposed by the engine in IRIS. */
    public record CommandError(String code, String text, String location, String source, String info) {
    }

    /** The command {@code seq} waits in a READ that began at log byte {@code at}. */
    public record Reading(long seq, long at) {
    }

    public IrisEngine(IrisApi api, JsonNode opened, EngineSink sink) {
        this.api = api;
        this.id = opened.path(SESSION).asString();
        this.sink = sink;
        this.pid = opened.path(PID).asLong(-1);
        this.instance = opened.path(INSTANCE).asString("");
        this.namespace = opened.path(NAMESPACE).asString("");
        this.state = parseState(opened.path(STATE).asString("starting"));
    }

    public String irisSession() {
        return id;
    }

    public String namespace() {
        return namespace;
    }

    public String instance() {
        return instance;
    }

    public int tlevel() {
        return tlevel;
    }

    public SessionState state() {
        return state;
    }

    public Reading reading() {
        return reading;
    }

    public synchronized Done done(long seq) {
        return done.get(seq);
    }

    /** Queues {@code code} as one command unit and returns its sequence number. */
    public long execute(String code, boolean secret) {
        ObjectNode req = IrisApi.request().put(SESSION, id).put(TEXT, code).put("execute", true).put("secret", secret);
        JsonNode r = api.call(IrisMethod.SEND, req);
        // queued: until IRIS reports otherwise the session is busy with it, so no second unit races in
        inputs++;
        state = SessionState.running;
        return r.path(SEQ).asLong();
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public void write(String text, boolean enter, boolean secret) {
        ObjectNode req = IrisApi.request().put(SESSION, id).put(TEXT, text).put("enter", enter).put("secret", secret);
        inputs++;
        state = parseState(api.call(IrisMethod.SEND, req).path(STATE).asString(state.name()));
    }

    @Override
    public void signal(Signal signal) {
        api.call(IrisMethod.SIGNAL, IrisApi.request().put(SESSION, id).put("signal", signal.name()));
    }

    @Override
    public void resize(int cols, int rows) {
        throw new SessionException("an iris session has no terminal size to change; session_resize is for pty sessions");
    }

    /** IRIS owns the job: it idles it out itself, and in hosted mode only a gateway thread may call IRIS. */
    @Override
    public boolean outlivesServer() {
        return true;
    }

    @Override
    public SessionState liveState(String lastLine) {
        return state;
    }

    @Override
    public boolean promptSince(long mark, long logEnd, String lastLine) {
        SessionState s = state;
        // strictly after: a READ or prompt already on screen when the input was sent is not its answer
        return promptAt > mark && (s == SessionState.idle || s == SessionState.waiting_input);
    }

    /**
     * Fetches what IRIS has past what this engine has seen, waiting there at most {@code maxWaitMillis}.
     * A concurrent reader finds the fetch busy and waits on the log; the fetcher wakes it when done.
     */
    @Override
    public boolean pull(long maxWaitMillis) {
        if (!fetching.tryLock()) {
            return false;
        }
        try {
            ObjectNode req = IrisApi.request().put(SESSION, id).put("from", charNext).put("ev", evNext)
                    .put("max", FETCH_CHARS).put("wait_ms", Math.min(maxWaitMillis, MAX_FETCH_WAIT_MS));
            long inputsBefore = inputs;
            JsonNode r;
            try {
                r = api.call(IrisMethod.READ, req);
            } catch (IrisApi.Fault f) {
                if (f.gone()) {
                    state = SessionState.exited;
                    sink.exited(null, null);
                    return true;
                }
                throw f;
            }
            accept(r, inputsBefore == inputs);
            return true;
        } finally {
            fetching.unlock();
            sink.changed();
        }
    }

    /** @param current false when input was sent while this answer was on its way: its state may be stale */
    private void accept(JsonNode r, boolean current) {
        String data = r.path(DATA).asString("");
        if (!data.isEmpty()) {
            byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
            chunks.addLast(new Chunk(charNext, byteEnd, data));
            byteEnd += bytes.length;
            charNext += data.length();
            while (chunks.size() > 1 && charNext - chunks.peekFirst().charStart() > MAPPED_CHARS) {
                chunks.removeFirst();
            }
            sink.output(bytes, 0, bytes.length);
        }
        for (JsonNode ev : r.path(EVENTS)) {
            unmapped.add(ev);
        }
        evNext = r.path(EV_NEXT).asLong(evNext);
        namespace = r.path(NAMESPACE).asString(namespace);
        tlevel = r.path(TLEVEL).asInt(tlevel);
        applyEvents();
        SessionState s = parseState(r.path(STATE).asString(state.name()));
        if (!current && s != SessionState.exited) {
            s = state;
        }
        state = s;
        boolean allFetched = charNext >= r.path(END).asLong(charNext);
        if (promptPending && allFetched && (s == SessionState.idle || s == SessionState.waiting_input)) {
            // a command ended or entered a READ, and its prompt is in what was fetched; the state
            // alone would not do: it may not yet say "running" for a command that just started
            promptAt = byteEnd;
            promptPending = false;
        }
        if (s == SessionState.exited) {
            sink.exited(null, null);
        }
    }

    /** Events whose offsets lie in output not fetched yet wait until it is. */
    private void applyEvents() {
        Iterator<JsonNode> it = unmapped.iterator();
        while (it.hasNext()) {
            JsonNode ev = it.next();
            String type = ev.path(TYPE).asString("");
            long at = ev.has(OUT_END) ? ev.path(OUT_END).asLong() : ev.path(AT).asLong(-1);
            if (at > charNext) {
                break;
            }
            it.remove();
            switch (type) {
                case "done" -> {
                    Done d = new Done(ev.path(SEQ).asLong(), toByte(ev.path(OUT_START).asLong()), toByte(at),
                            ev.path(NAMESPACE).asString(namespace), ev.path(TLEVEL).asInt(tlevel),
                            ev.path(ELAPSED_MS).asLong(), error(ev.get(ERROR)));
                    synchronized (this) {
                        done.put(d.seq(), d);
                    }
                    reading = null;
                    promptPending = true;
                }
                case "read" -> {
                    reading = new Reading(ev.path(SEQ).asLong(), toByte(at));
                    promptPending = true;
                }
                default -> {
                    // "exit" and event types of newer engines: the state field already says what matters
                }
            }
        }
    }

    private static CommandError error(JsonNode e) {
        if (e == null || e.isNull() || !e.isObject()) {
            return null;
        }
        return new CommandError(e.path(CODE).asString(""), e.path(TEXT).asString(""), e.path(LOCATION).asString(""),
                e.path(SOURCE).asString(""), e.path(INFO).asString(""));
    }

    /** Byte offset in the log of IRIS character offset {@code c}; -1 if that output is too old to map. */
    private long toByte(long c) {
        if (c >= charNext) {
            return byteEnd;
        }
        for (Iterator<Chunk> it = chunks.descendingIterator(); it.hasNext(); ) {
            Chunk k = it.next();
            if (c >= k.charStart()) {
                String prefix = k.text().substring(0, (int) (c - k.charStart()));
                return k.byteStart() + prefix.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return -1;
    }

    /**
     * Closes the job in IRIS (HALT, then forced after {@code graceMillis}) and takes the output it
     * still had for us.
     */
    @Override
    public void terminate(boolean force, long graceMillis) {
        fetching.lock();
        try {
            ObjectNode req = IrisApi.request().put(SESSION, id).put("force", force).put("grace_ms", graceMillis)
                    .put("from", charNext);
            try {
                String data = api.call(IrisMethod.CLOSE, req).path(DATA).asString("");
                if (!data.isEmpty()) {
                    byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
                    charNext += data.length();
                    byteEnd += bytes.length;
                    sink.output(bytes, 0, bytes.length);
                }
            } catch (IrisApi.Fault f) {
                if (!f.gone()) {
                    throw f;
                }
            }
            state = SessionState.exited;
            sink.exited(null, null);
        } finally {
            fetching.unlock();
        }
    }

    static SessionState parseState(String s) {
        try {
            return SessionState.valueOf(s);
        } catch (IllegalArgumentException e) {
            return SessionState.running;
        }
    }
}
