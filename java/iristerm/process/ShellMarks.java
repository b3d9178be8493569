package iristerm.process;

import iristerm.session.EngineSink;
import iristerm.session.MarkFilter;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Follows the marks a shell set up by {@link ShellIntegration} writes (OSC 133: C a command starts, D its
 * status, A a prompt follows) and takes them out of its output before anything else sees it: the log,
 * reads, the screen, transcripts and the browser view get the output without them. Offsets are the
 * session log's.
 *
 * <p>From a command's end (D) until its prompt's text has come, and from its start until its first prompt,
 * the shell is drawing its prompt: readline and bash's startup poll the terminal meanwhile (pselect),
 * which the kernel shows as a wait for input; it is none yet.
 */
final class ShellMarks implements MarkFilter.Handler {
    /** a mark's payload is a letter and a status; anything longer is some other program's */
    private static final int MAX_PAYLOAD = 64;
    /** how long a prompt may take to show its text before it is taken to have none (PS1 empty) */
    static final long DRAW_MILLIS = 1000;
    /**
     * how long the shell may take to mark its first prompt before its setup is taken to have failed (a
     * profile that replaced PROMPT_COMMAND) or its startup files to wait for input themselves
     */
    static final long STARTUP_MILLIS = 5000;

    private enum Escape { NONE, ESC, CSI, OSC, OSC_ESC }

    private final EngineSink sink;
    private final MarkFilter filter = MarkFilter.lenient("\u001b]133;", MAX_PAYLOAD, this);
    /** whether the shell has marked a prompt at all (its setup worked, and nothing has undone it yet) */
    private boolean active;
    /** a prompt was marked and no command has started since */
    private boolean atPrompt;
    /** where the latest prompt was marked */
    private long promptAt = -1;
    /** from the shell's start, or a command's end, until the prompt's text has come */
    private boolean drawing = true;
    /** when drawing began (System.nanoTime) */
    private long drawingSince = System.nanoTime();
    /** whether the prompt's text has come since the latest prompt mark: a line of visible text begun */
    private boolean shown;
    /** while drawing: where the output stands in an escape sequence, and whether its line shows text */
    private Escape escape = Escape.NONE;
    private boolean lineShows;
    /** a command started since the latest prompt (so the next status is its own) */
    private boolean ran;
    /** the status the shell reported since the command started, before the prompt */
    private Integer pending;
    /** the status of the command that ended at the latest prompt; null when none ran before it */
    private Integer status;

    ShellMarks(EngineSink sink) {
        this.sink = sink;
    }

    void feed(byte[] b, int n) throws IOException {
        filter.feed(b, 0, n);
    }

    @Override
    public void output(byte[] bytes, int offset, int length) {
        // into the log first: a waiter told the prompt has shown must find its text there
        sink.output(bytes, offset, length);
        boolean nowShown = false;
        synchronized (this) {
            if (atPrompt && !shown) {
                follow(bytes, offset, length);
                nowShown = shown = lineShows;
                drawing &= !shown;
            }
        }
        if (nowShown) {
            sink.changed();
        }
    }

    /**
     * Follows output after a prompt mark across reads: whether its current line shows text (what a
     * PROMPT_COMMAND of the user's prints, and the lines of a prompt of several, end in a line break;
     * escape sequences such as bracketed-paste mode show nothing).
     */
    private void follow(byte[] b, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            int c = b[i] & 0xff;
            escape = switch (escape) {
                case ESC -> c == '[' ? Escape.CSI : c == ']' ? Escape.OSC : Escape.NONE;
                case CSI -> c >= 0x40 && c <= 0x7e ? Escape.NONE : Escape.CSI;
                case OSC -> c == 0x07 ? Escape.NONE : c == 0x1b ? Escape.OSC_ESC : Escape.OSC;
                case OSC_ESC -> Escape.NONE;
                case NONE -> {
                    if (c == 0x1b) {
                        yield Escape.ESC;
                    }
                    if (c == '\n') {
                        lineShows = false;
                    } else if (c > 0x20 && c != 0x7f) {
                        lineShows = true;
                    }
                    yield Escape.NONE;
                }
            };
        }
    }

    @Override
    public void mark(String payload) {
        // all output before the mark is in the log: it went there from this thread. Asked before this
        // object's lock is taken: a reader holds the log's lock while it asks this object (no lock order loop)
        long at = sink.end();
        synchronized (this) {
            switch (payload.isEmpty() ? ' ' : payload.charAt(0)) {
                case 'C' -> {
                    atPrompt = false;
                    drawing = false;
                    ran = true;
                    pending = null;
                }
                case 'D' -> {
                    pending = ran ? status(payload) : null;
                    startDrawing();
                }
                case 'A' -> {
                    active = true;
                    atPrompt = true;
                    promptAt = at;
                    shown = false;
                    escape = Escape.NONE;
                    lineShows = false;
                    startDrawing();
                    status = pending;
                    ran = false;
                    pending = null;
                }
                default -> {
                    // B (prompt end) and other terminals' extensions: nothing this server follows
                }
            }
        }
        sink.changed();
    }

    private void startDrawing() {
        if (!drawing) {
            drawing = true;
            drawingSince = System.nanoTime();
        }
    }

    /** The status in a D mark ({@code D;<status>[;...]}), null when it has none a number. */
    private static Integer status(String payload) {
        String[] parts = payload.split(";", 3);
        try {
            return parts.length > 1 ? Integer.valueOf(parts[1]) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    synchronized boolean active() {
        return active;
    }

    /**
     * Whether the shell's prompt was marked at or after log offset {@code from} (any offset when negative)
     * and the shell has run nothing since: TRUE once the prompt's text has come, null while only its mark
     * has (an empty prompt, or its text on its way), FALSE otherwise.
     */
    synchronized Boolean promptSince(long from) {
        if (!atPrompt || promptAt < from) {
            return Boolean.FALSE;
        }
        return shown ? Boolean.TRUE : null;
    }

    /**
     * Whether the shell is between its start or a command's end and its prompt's text (for at most
     * {@value #STARTUP_MILLIS} ms before its first prompt, {@value #DRAW_MILLIS} ms after).
     */
    synchronized boolean drawing() {
        return drawing && System.nanoTime() - drawingSince
                < TimeUnit.MILLISECONDS.toNanos(active ? DRAW_MILLIS : STARTUP_MILLIS);
    }

    /** The status of the command that ended at the latest prompt; null when no command ran before it. */
    synchronized Integer status() {
        return status;
    }
}
