package iristerm.session;

/** A terminal's size in character cells. */
public record TerminalSize(int cols, int rows) {
    /** What a session without a terminal of its own (pipes, IRIS) is shown at. */
    public static final TerminalSize DEFAULT = new TerminalSize(120, 40);
}
