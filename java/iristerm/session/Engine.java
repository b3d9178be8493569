package iristerm.session;

import java.io.IOException;

/**
 * What a session runs on: an OS process (process engine) or an IRIS job (iris engine). The
 * session model above it — log, readers, waits, guard, lifecycle — is the same for both.
 */
public interface Engine {
    /** OS or IRIS process id, or -1 when not known. */
    long pid();

    /**
     * Writes input. {@code enter} ends the line the way this engine's terminal does ("\r" on a PTY,
     * "\n" on a pipe, a complete line for an IRIS READ or command).
     */
    void write(String text, boolean enter, boolean secret) throws IOException;

    /**
     * Writes input as {@link #write(String, boolean, boolean)} does, waiting at most {@code waitMillis}
     * for the program to take it (a program that does not read its input must not hold the caller).
     * Engines whose writes cannot block on the program take it all at once.
     */
    default Delivery write(String text, boolean enter, boolean secret, long waitMillis) throws IOException {
        write(text, enter, secret);
        return Delivery.complete(text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + (enter ? 1 : 0));
    }

    void signal(Signal signal) throws IOException;

    void resize(int cols, int rows);

    /** State while the engine is alive; {@code lastLine} is the cleaned last line of output. */
    SessionState liveState(String lastLine);

    /**
     * Whether a prompt (end of command, READ, or a shell prompt) appeared at or after {@code mark}; a
     * negative mark asks whether what the program shows now is its prompt, the kernel having told that it
     * reads the terminal.
     */
    boolean promptSince(long mark, long logEnd, String lastLine);

    /**
     * The exit status of the command that ended at the latest prompt, as the shell itself reported it
     * (shell integration); null when not known (no such report, or no command ran before that prompt).
     */
    default Integer promptStatus() {
        return null;
    }

    /**
     * Whether the terminal echoes input back into the output (a PTY does): then the line holding the
     * echo is not the answer, and a prompt counts only on a line that began after it.
     */
    default boolean echoesInput() {
        return false;
    }

    /**
     * Whether the end of a command can be told without guessing from quiet output: the program has a
     * recognisable prompt (it has shown one, or {@code lineBefore}, the line it was on when the read began,
     * is one), or the shell marks its prompts, or the kernel tells when the program waits for input. When
     * not, a waiting read with the default until settles on quiet output instead.
     */
    default boolean showsPrompt(String lineBefore) {
        return true;
    }

    /**
     * Whether the program waits for input from its terminal now, as the operating system knows it (not
     * guessed from output); null where it cannot be asked. Costs a look at the kernel's process table.
     */
    default Boolean awaitsInput() {
        return null;
    }

    /** Whether {@link #awaitsInput} can answer at all, so that waits know whether to ask. */
    default boolean knowsInput() {
        return false;
    }

    /** The terminal's size now, which the screen (session_read's screen) is drawn at. */
    default TerminalSize size() {
        return TerminalSize.DEFAULT;
    }

    /** A standing condition of this engine that every read should mention (e.g. prompt detection is off), or null. */
    default String note() {
        return null;
    }

    /**
     * Whether only the session's owner can interrupt or end what runs in it: an IRIS-hosted iris session's job, which
     * IRIS lets only its own user signal. An administrator's view then does not offer to.
     */
    default boolean ownerOnlySignals() {
        return false;
    }

    /**
     * Ends the engine and what its process started: politely, then by force after {@code graceMillis}.
     * Blocks at most that long (plus a bound).
     */
    void terminate(boolean force, long graceMillis);

    /**
     * After the engine's process exited on its own: ends what it left running (background jobs,
     * daemons it spawned), politely, then by force after {@code graceMillis}; bounded like
     * {@link #terminate}. Engines whose descendants cannot outlive them have nothing to do.
     */
    default void endLeftovers(boolean force, long graceMillis) {
    }
}
