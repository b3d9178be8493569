package iristerm.doctor;

import iristerm.iris.IrisApi;
import iristerm.iris.IrisMethod;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static iristerm.iris.IrisFields.*;

/**
 * One iris session driven over the raw Terminal.Session contract, as the doctor's engine checks
 * need it: it keeps the whole output log (character offsets, as IRIS counts them) and every event,
 * and every wait ends at a deadline with a {@link Doctor.Failure} saying what did not come.
 */
final class ProbeSession {
    /** One Read waits at most this long, so a deadline is never overshot by much. */
    private static final long READ_SLICE_MS = 1_000;

    /** A finished command: its own output and what its {@code done} event reported. */
    record Ran(long seq, String output, String namespace, int tlevel, long elapsedMs, JsonNode error) {
    }

    private final IrisApi api;
    private final String id;
    private final String namespace;
    private final long pid;
    private final StringBuilder log = new StringBuilder();
    private final List<JsonNode> events = new ArrayList<>();
    private String state;

    private ProbeSession(IrisApi api, JsonNode opened) {
        this.api = api;
        this.id = opened.path(SESSION).asString("");
        this.namespace = opened.path(NAMESPACE).asString("");
        this.pid = opened.path(PID).asLong(-1);
        this.state = opened.path(STATE).asString("");
    }

    /** Opens a session and waits for its first prompt. */
    static ProbeSession open(IrisApi api, long boundMs) {
        JsonNode opened = api.call(IrisMethod.OPEN, IrisApi.request().put(NAME, "doctor")
                .put(CLIENT, "iris-terminal-mcp doctor"));
        ProbeSession s = new ProbeSession(api, opened);
        if (s.id.isEmpty()) {
            throw new Doctor.Failure("Open answered without a session id: " + opened);
        }
        s.awaitState("idle", boundMs);
        return s;
    }

    String id() {
        return id;
    }

    String namespace() {
        return namespace;
    }

    long pid() {
        return pid;
    }

    /** Queues {@code code} as one command unit; its sequence number. */
    long send(String code) {
        // the state stays what IRIS last said: "running" must come from the job having taken the command
        return api.call(IrisMethod.SEND, IrisApi.request().put(SESSION, id).put(TEXT, code).put("execute", true))
                .path(SEQ).asLong();
    }

    /** Types one line (with Enter), as the answer to a READ. */
    void type(String line) {
        api.call(IrisMethod.SEND, IrisApi.request().put(SESSION, id).put(TEXT, line).put("enter", true));
    }

    JsonNode signal(String signal) {
        return api.call(IrisMethod.SIGNAL, IrisApi.request().put(SESSION, id).put("signal", signal));
    }

    /** Runs {@code code} and waits for its end. */
    Ran run(String code, long boundMs) {
        return awaitDone(send(code), boundMs);
    }

    /** Waits for the {@code done} event of command {@code seq} and for all of its output. */
    Ran awaitDone(long seq, long boundMs) {
        JsonNode done = awaitEvent("done", seq, boundMs);
        int start = done.path(OUT_START).asInt(-1);
        int end = done.path(OUT_END).asInt(-1);
        if (start < 0 || end < start || end > log.length()) {
            throw new Doctor.Failure("the done event of command " + seq + " points at output " + start + ".." + end
                    + ", outside the " + log.length() + " characters read");
        }
        JsonNode error = done.get(ERROR);
        return new Ran(seq, log.substring(start, end), done.path(NAMESPACE).asString(""), done.path(TLEVEL).asInt(-1),
                done.path(ELAPSED_MS).asLong(-1), error == null || error.isNull() ? null : error);
    }

    /** Waits for an event of {@code type} for command {@code seq}, with the output up to it. */
    JsonNode awaitEvent(String type, long seq, long boundMs) {
        Predicate<JsonNode> wanted = e -> e.path(TYPE).asString("").equals(type) && e.path(SEQ).asLong(-1) == seq;
        long deadline = System.currentTimeMillis() + boundMs;
        while (true) {
            for (JsonNode e : events) {
                if (wanted.test(e) && log.length() >= e.path(OUT_END).asLong(e.path(AT).asLong(0))) {
                    return e;
                }
            }
            if (state.equals("exited")) {
                throw new Doctor.Failure("the session's job ended (no " + type + " event for command " + seq + ")");
            }
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new Doctor.Stuck("no " + type + " event for command " + seq + " within " + boundMs / 1000
                        + " s (state " + state + ")");
            }
            fetch(Math.min(left, READ_SLICE_MS));
        }
    }

    /** Waits until Read reports {@code wanted} as the session's state. */
    void awaitState(String wanted, long boundMs) {
        long deadline = System.currentTimeMillis() + boundMs;
        fetch(0);
        while (!state.equals(wanted)) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0 || state.equals("exited")) {
                throw new Doctor.Stuck("the session did not become " + wanted + " within " + boundMs / 1000
                        + " s (state " + state + ")");
            }
            fetch(Math.min(left, READ_SLICE_MS));
        }
    }

    /** One Read from where this probe stands. */
    private void fetch(long waitMs) {
        JsonNode r = api.call(IrisMethod.READ, IrisApi.request().put(SESSION, id).put("from", log.length())
                .put("ev", events.size()).put("wait_ms", waitMs));
        log.append(r.path(DATA).asString(""));
        r.path(EVENTS).forEach(events::add);
        state = r.path(STATE).asString(state);
    }

    /** Closes the session; its answer. */
    JsonNode close(boolean force) {
        return api.call(IrisMethod.CLOSE, IrisApi.request().put(SESSION, id).put("force", force).put("grace_ms", 2000));
    }
}
