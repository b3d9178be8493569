package iristerm.ui;

import iristerm.json.Json;
import iristerm.session.OutputLog;
import iristerm.session.Session;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A viewer's own cursor over a session's output: it starts with the transcript's last part and
 * moves on as output arrives. It is not one of the session's named readers, so watching moves no
 * agent's cursor, and it waits without touching the session, so watching keeps nothing from its idle timeout.
 */
public final class SessionOutput {
    /** a viewer starts this far back from the end: enough for a screenful and its history */
    static final int INITIAL_BYTES = 256 * 1024;
    private static final int CHUNK_BYTES = 64 * 1024;

    /** Raw bytes from {@code from} to {@code next}; {@code ended} once the session exited and all of it was given. */
    public record Chunk(long from, byte[] bytes, long next, boolean ended, Integer exitCode, String signal) {
        /** What a page receives: the bytes as base64 (a terminal takes them raw, split characters and all). */
        String json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "output");
            m.put("from", from);
            m.put("next", next);
            m.put("b64", Base64.getEncoder().encodeToString(bytes));
            m.put("ended", ended);
            if (ended) {
                m.put("exit_code", exitCode);
                m.put("signal", signal);
            }
            return Json.MAPPER.writeValueAsString(m);
        }
    }

    private SessionOutput() {
    }

    public static long start(Session s) {
        return Math.max(0, s.bytes() - INITIAL_BYTES);
    }

    /**
     * The output at {@code from} onwards, waiting up to {@code waitMillis} for some when there is none yet
     * (released by the producer, or for an iris session by the fetch the wait makes); empty after the wait.
     * A position past the end (a page that kept one across a restart) is the end: what comes next.
     */
    public static Chunk next(Session s, long from, long waitMillis) {
        long at = Math.min(from, s.bytes());
        OutputLog.Slice slice = s.log().read(at, CHUNK_BYTES);
        if (slice.bytes().length == 0 && !s.isExited() && waitMillis > 0) {
            s.await(null, at, waitMillis);
            slice = s.log().read(at, CHUNK_BYTES);
        }
        boolean ended = s.isExited() && slice.next() >= s.bytes();
        return new Chunk(slice.from(), slice.bytes(), slice.next(), ended, s.exitCode(), s.exitSignal());
    }
}
