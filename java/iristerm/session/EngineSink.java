package iristerm.session;

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
     * The value unique to this session that its OS processes carry in their environment, by which what
     * they leave running is found (also by a later run of the server, which the data directory tells it).
     */
    String marker();
}
