package iristerm.session;

import java.nio.charset.StandardCharsets;

/** Where an engine delivers what its session produces. Called from the engine's own threads. */
public interface EngineSink {
    void output(byte[] bytes, int offset, int length);

    /** The engine's process ended; {@code exitCode} and {@code signal} may be null when unknown. */
    void exited(Integer exitCode, String signal);

    /**
     * How much output the sink holds: where what the engine delivers next will stand. Output the
     * session writes itself (an idle or take-over note) counts, so offsets an engine takes from here
     * are the log's.
     */
    long end();

    /** Something a waiting reader may care about changed (an engine state or event). */
    void changed();

    /**
     * Writes a note of the server's into the output, on a line of its own: every read after it, the browser
     * view and the transcript carry it, so what happened to the session is told where its output is read.
     */
    default void note(String text) {
        byte[] note = ("\r\n[iris-terminal-mcp: " + text + "]\r\n").getBytes(StandardCharsets.UTF_8);
        output(note, 0, note.length);
    }

    /**
     * The value unique to this session that its OS processes carry in their environment, by which what
     * they leave running is found (also by a later run of the server, which the data directory tells it).
     */
    String marker();
}
