package iristerm.session;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One live (or ended) terminal: its output log, its readers' cursors, and the engine it runs on.
 * Reads wait on the log's condition and are released by the producer; every wait is bounded by
 * the request's {@code wait_ms}.
 */
public final class Session implements EngineSink {
    /** how much of the log's end is looked at to find the last line (prompt detection) */
    private static final int LAST_LINE_PROBE = 512;
    /** a pattern may span this many bytes of already-scanned output */
    private static final int PATTERN_OVERLAP = 4096;
    /** the longest UTF-8 sequence: how far back the character before an offset may begin */
    private static final int UTF8_MAX = 4;
    private static final int FILE_CHUNK = 1 << 20;
    /**
     * a pattern search gets at least this long even when the read's wait is over (wait_ms 0): a
     * plain pattern over megabytes of output needs milliseconds, and must not be cut off by the clock
     */
    private static final long MIN_PATTERN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** how long a send with no bound of its own (no read after it) waits for its program to take the input */
    public static final long INPUT_WAIT_MS = 1000;
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(Until.SETTLE_MS);
    /** how long output must be quiet before the kernel is asked whether the program waits for input */
    private static final long INPUT_QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final SessionMeta meta;
    private final OutputLog log;
    private final Listener listener;
    private final Map<String, Long> readers = new HashMap<>();
    private volatile Engine engine;
    private volatile boolean exited;
    private volatile Integer exitCode;
    private volatile String exitSignal;
    private volatile long lastActivity = System.currentTimeMillis();
    private volatile long endedAt;
    private volatile boolean notify;
    /** why the server ended the session ("idle"), or null */
    private volatile String endedBy;
    /** made on the first look at the screen: a session nobody looks at that way costs nothing */
    private TerminalScreen screen;
    private final String marker = UUID.randomUUID().toString();

    /** What the session manager hears about: persistence and notifications hang off these. */
    public interface Listener {
        void output(Session session);

        void exited(Session session);
    }

    public Session(SessionMeta meta, OutputLog log, Listener listener) {
        this.meta = meta;
        this.log = log;
        this.listener = listener;
    }

    /** A session from an earlier run of the server: its engine is gone, its transcript remains. */
    public static Session ended(SessionMeta meta, OutputLog log, Integer exitCode, String signal, long endedAt) {
        Session s = new Session(meta, log, null);
        s.exited = true;
        s.exitCode = exitCode;
        s.exitSignal = signal;
        s.endedAt = endedAt;
        s.lastActivity = endedAt;
        log.retire();
        return s;
    }

    public void attach(Engine engine) {
        this.engine = engine;
    }

    public Engine engine() {
        return engine;
    }

    public SessionMeta meta() {
        return meta;
    }

    public String id() {
        return meta.id();
    }

    public long pid() {
        Engine e = engine;
        return e == null ? -1 : e.pid();
    }

    public boolean isExited() {
        return exited;
    }

    public Integer exitCode() {
        return exitCode;
    }

    public String exitSignal() {
        return exitSignal;
    }

    public long endedAt() {
        return endedAt;
    }

    public long lastActivity() {
        return lastActivity;
    }

    public long bytes() {
        return log.end();
    }

    public OutputLog log() {
        return log;
    }

    public boolean notifying() {
        return notify;
    }

    public void setNotify(boolean notify) {
        this.notify = notify;
    }

    public SessionState state() {
        Engine e = engine;
        if (exited || e == null) {
            return SessionState.exited;
        }
        return e.liveState(lastLine());
    }

    // ---- input -------------------------------------------------------------------------------

    /**
     * Input given to a session: the log end just before it was written (the mark for a following read),
     * and how much of it the program took within the bound.
     */
    public record Sent(long mark, Delivery delivery) {
    }

    /** Writes input, waiting at most {@link #INPUT_WAIT_MS} for the program to take it; returns the mark. */
    public long send(String text, boolean enter, boolean secret) {
        return send(text, enter, secret, INPUT_WAIT_MS).mark();
    }

    /** Writes input, waiting at most {@code waitMillis} for the program to take it. */
    public Sent send(String text, boolean enter, boolean secret, long waitMillis) {
        Engine e = requireLive("send input to");
        long mark = log.end();
        if (secret) {
            log.addSecret(text, mark);
        }
        Delivery delivery;
        try {
            delivery = e.write(text, enter, secret, waitMillis);
        } catch (IOException ex) {
            throw new SessionException("session " + id() + " did not take the input (" + ex.getMessage()
                    + "); its process may have ended: check session_read or session_list");
        }
        touch();
        return new Sent(mark, delivery);
    }

    public void signal(Signal signal) {
        Engine e = requireLive("signal");
        try {
            e.signal(signal);
        } catch (IOException ex) {
            throw new SessionException("could not send " + signal + " to session " + id() + ": " + ex.getMessage());
        }
        touch();
    }

    public void resize(int cols, int rows) {
        requireLive("resize").resize(cols, rows);
        touch();
    }

    private Engine requireLive(String verb) {
        Engine e = engine;
        if (exited || e == null) {
            throw new SessionException("cannot " + verb + " session " + id() + ": it has exited"
                    + (exitCode != null ? " with code " + exitCode : "")
                    + "; its output stays readable with session_read, open a new one with session_open");
        }
        return e;
    }

    public void touch() {
        lastActivity = System.currentTimeMillis();
    }

    // ---- reading -----------------------------------------------------------------------------

    /** What a person would see on the session's terminal now; moves no reader. */
    public TerminalScreen.Snapshot screen() {
        Engine e = engine;
        TerminalSize size = e != null ? e.size() : TerminalSize.DEFAULT;
        TerminalScreen s;
        synchronized (this) {
            if (screen == null) {
                screen = new TerminalScreen();
            }
            s = screen;
        }
        return s.snapshot(log, size.cols(), size.rows());
    }

    /** Where {@code reader} stands in the log (0 for a reader not used yet). */
    public long cursor(String reader) {
        log.lock().lock();
        try {
            return readers.getOrDefault(reader, 0L);
        } finally {
            log.lock().unlock();
        }
    }

    public ReadResult read(ReadRequest r) {
        touch();
        ReentrantLock lock = log.lock();
        lock.lock();
        try {
            long cursor = r.all() ? 0 : readers.getOrDefault(r.reader(), 0L);
            if (r.seek() >= 0) {
                long end = log.end();
                if (r.seek() > end) {
                    throw new SessionException("'cursor' " + r.seek() + " is past the end of session " + id()
                            + "'s output (" + end + " bytes so far); give an offset from 0 to " + end);
                }
                cursor = r.seek();
                readers.put(r.reader(), cursor);
            }
            Waited waited = waitFor(r, cursor, Math.max(cursor, r.mark()));
            if (!r.all()) {
                // another read of the same reader (a notification push) may have moved it meanwhile
                cursor = Math.max(cursor, readers.getOrDefault(r.reader(), 0L));
            }
            return deliver(r, cursor, waited);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits, at most {@code waitMs}, until {@code until} holds for output after log offset
     * {@code mark} (e.g. a prompt: end of command or READ for iris), or the session ends; consumes nothing.
     */
    public ReadReason await(Until until, long mark, long waitMs) {
        ReadRequest r = new ReadRequest("", waitMs, until, Integer.MAX_VALUE, false, false, false, null, mark);
        log.lock().lock();
        try {
            return waitFor(r, mark, mark).reason();
        } finally {
            log.lock().unlock();
        }
    }

    /** Why a wait ended, and what the reader should be told about it beyond the reason (or null). */
    private record Waited(ReadReason reason, String note) {
    }

    /** Must hold the log's lock. Waits on the log, which the engine's producer signals. */
    private Waited waitFor(ReadRequest r, long cursor, long mark) {
        ReentrantLock lock = log.lock();
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(r.waitMs());
        Scan scan = new Scan(cursor, deadline, mark, r.sent() && engine != null && engine.echoesInput());
        if (r.until() != null && r.until().settle()) {
            Engine e = engine;
            scan.promptKnown = e == null || e.showsPrompt(lineBefore(mark));
        }
        ReadReason reason;
        try {
            long seen = log.version();
            while ((reason = ready(r, cursor, mark, start, scan)) == null) {
                long now = System.nanoTime();
                long left = deadline - now;
                if (left <= 0) {
                    return new Waited(ReadReason.timeout, null);
                }
                long timer = nextTimedCheck(r.until(), start, scan);
                if (timer != Long.MAX_VALUE) {
                    left = Math.min(left, Math.max(1, timer - now));
                }
                // whatever changed while the lock was free (matching a pattern) was signalled to
                // nobody: look again first
                if (log.version() == seen) {
                    log.awaitNanos(left);
                }
                seen = log.version();
            }
            return new Waited(reason, scan.overrun);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SessionException("the read was interrupted because the server is shutting down");
        }
    }

    /**
     * Tracks how far a pattern has been searched, so each wake-up scans only what is new, and by
     * when the search must end: the read's deadline (with a small floor, see MIN_PATTERN_NANOS).
     * Also where the answer to the input begins (past the terminal's echo of it, once that is complete).
     */
    private static final class Scan {
        final long deadline;
        /** where the read's search begins: a line start for ^ (in a pipe the answer follows the prompt on its line) */
        final long start;
        long from;
        /** set when the pattern's search ran out of time: the read ends with timeout and says why */
        String overrun;
        /** where the answer begins; -1 while the echoed input line is not yet complete */
        long answer;
        /** how far the echo's line end has been looked for */
        long echoScanned;
        /** whether the program has a prompt to wait for (else a default read settles on quiet) */
        boolean promptKnown = true;

        Scan(long from, long deadline, long mark, boolean echo) {
            this.start = from;
            this.from = from;
            this.deadline = deadline;
            this.answer = echo ? -1 : mark;
            this.echoScanned = mark;
        }
    }

    /**
     * Must hold the log's lock. Where the answer to the input begins: the mark, or on a terminal that
     * echoes input, just past the end of the echoed line (-1 until it has come), so that neither the
     * echo nor the prompt line it continues is taken for the answer.
     */
    private long answerFrom(Scan scan) {
        long end = log.end();
        while (scan.answer < 0 && scan.echoScanned < end) {
            OutputLog.Slice s = log.read(scan.echoScanned, (int) Math.min(end - scan.echoScanned, FILE_CHUNK));
            byte[] b = s.bytes();
            if (b.length == 0) {
                break;
            }
            if (s.from() > scan.echoScanned) {
                // the echo is no longer held: far more output than one line has come since
                scan.answer = s.from();
                break;
            }
            for (int i = 0; i < b.length && scan.answer < 0; i++) {
                if (b[i] == '\n') {
                    scan.answer = s.from() + i + 1;
                }
            }
            scan.echoScanned = s.next();
        }
        return scan.answer;
    }

    /** Must hold the log's lock. When a time-based condition of {@code u} may next hold, or Long.MAX_VALUE. */
    private long nextTimedCheck(Until u, long start, Scan scan) {
        long at = Long.MAX_VALUE;
        if (u == null) {
            return at;
        }
        if (u.quietMs() != null) {
            at = Math.max(start, log.lastOutputNanos()) + TimeUnit.MILLISECONDS.toNanos(u.quietMs());
        }
        if (settling(u, scan)) {
            at = Math.min(at, log.lastOutputNanos() + SETTLE_NANOS);
        }
        Engine e = engine;
        if (e != null && (u.settle() || u.prompt()) && e.knowsInput()) {
            // the kernel is asked once output has been quiet a moment, and again while it stays quiet: a
            // program starts reading without printing anything, and a prompt may show before its reader waits
            at = Math.min(at, Math.max(Math.max(start, log.lastOutputNanos()) + INPUT_QUIET_NANOS,
                    System.nanoTime() + INPUT_QUIET_NANOS));
        }
        return at;
    }

    /**
     * Must hold the log's lock. Whether the program waits for input now, as the kernel tells, once the
     * output has been quiet for {@link #INPUT_QUIET_NANOS}.
     */
    private boolean awaitsInput(long start) {
        Engine e = engine;
        return e != null && e.knowsInput()
                && System.nanoTime() - Math.max(start, log.lastOutputNanos()) >= INPUT_QUIET_NANOS
                && Boolean.TRUE.equals(e.awaitsInput());
    }

    /** Must hold the log's lock. Whether the settle rule applies and the answer has begun. */
    private boolean settling(Until u, Scan scan) {
        if (!u.settle() || scan.promptKnown) {
            return false;
        }
        // a prompt that shows up during the wait (a program that started late) is one to wait for too
        Engine e = engine;
        scan.promptKnown = e == null || e.showsPrompt(lastLine());
        if (scan.promptKnown) {
            return false;
        }
        long answer = answerFrom(scan);
        return answer >= 0 && log.end() > answer;
    }

    private ReadReason ready(ReadRequest r, long cursor, long mark, long start, Scan scan) {
        long end = log.end();
        long pending = end - cursor;
        // more than max_bytes is no reason to stop: the answer is judged (and shortened) when the wait ends
        if (r.force() && r.toFile() == null && pending >= r.maxBytes()) {
            return ReadReason.data;
        }
        Until u = r.until();
        if (u != null && u.pattern() != null && pending > 0) {
            try {
                if (matches(u, r.stripAnsi(), scan, end)) {
                    return ReadReason.pattern;
                }
            } catch (BoundedRegex.Overrun e) {
                scan.overrun = overrunHint(e, end - scan.from);
                return ReadReason.timeout;
            }
        }
        if (exited) {
            return ReadReason.exit;
        }
        if (u != null && u.prompt() && engine != null) {
            long answer = answerFrom(scan);
            if (answer >= 0 && engine.promptSince(answer, end, lastLine())) {
                return ReadReason.prompt;
            }
        }
        if (u != null && u.settle() && awaitsInput(start)) {
            // waiting at what looks like its prompt is the prompt back (a shell after Ctrl-D ended its job)
            return u.prompt() && engine.promptSince(-1, end, lastLine()) ? ReadReason.prompt : ReadReason.input;
        }
        if ((u == null || u.isEmpty()) && pending > 0) {
            return ReadReason.data;
        }
        if (u != null && u.quietMs() != null) {
            long quiet = System.nanoTime() - Math.max(start, log.lastOutputNanos());
            if (quiet >= TimeUnit.MILLISECONDS.toNanos(u.quietMs())) {
                return ReadReason.quiet;
            }
        }
        if (u != null && settling(u, scan) && System.nanoTime() - log.lastOutputNanos() >= SETTLE_NANOS) {
            return ReadReason.quiet;
        }
        return null;
    }

    private static String overrunHint(BoundedRegex.Overrun e, long bytes) {
        String what = e.tooDeep()
                ? "until.pattern needs more stack than the server has to search " + bytes + " bytes of output (a "
                        + "repeated group such as (a|b)* recurses once per character)"
                : "until.pattern did not finish searching " + bytes + " bytes of output within wait_ms (it "
                        + "backtracks too much: nested or repeated quantifiers such as (.*)(.*)\\2\\1, or a "
                        + "very long alternation)";
        return what + "; the search was stopped. Use a simpler pattern (e.g. a character class instead of a group "
                + "of alternatives, no backreferences) or until.quiet_ms.";
    }

    /** Must hold the log's lock; throws {@link BoundedRegex.Overrun} when the search runs past the scan's deadline. */
    private boolean matches(Until u, boolean strip, Scan scan, long end) {
        long deadline = Math.max(scan.deadline, System.nanoTime() + MIN_PATTERN_NANOS);
        long from = scan.from;
        while (from < end) {
            // a search resumed past the read's start sees the character before: ^ holds there only at a line start
            long context = from > scan.start ? Math.max(0, from - UTF8_MAX) : from;
            OutputLog.Slice s = log.read(context, (int) Math.min(end - context, 4L * FILE_CHUNK));
            byte[] b = s.bytes();
            int start = (int) Math.max(0, from - s.from());
            if (start >= b.length) {
                break;
            }
            // a search resumed mid-character starts at the next character; the one before is the context
            for (int k = 0; k < UTF8_MAX - 1 && start > 0 && start < b.length && isContinuation(b[start]); k++) {
                start++;
            }
            int before = start;
            for (int k = 0; k < UTF8_MAX && before > 0; k++) {
                if (!isContinuation(b[--before])) {
                    break;
                }
            }
            String head = text(b, before, start - before, strip);
            String text = text(b, start, b.length - start, strip);
            // the agent's regex runs without the lock: a slow one must not hold up the producer
            log.lock().unlock();
            boolean found;
            try {
                found = BoundedRegex.find(u.pattern(), head, text, deadline);
            } finally {
                log.lock().lock();
            }
            if (found) {
                return true;
            }
            from = s.next() >= end ? s.next() : Math.max(from + 1, s.next() - PATTERN_OVERLAP);
        }
        scan.from = Math.max(scan.from, end - PATTERN_OVERLAP);
        return false;
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xc0) == 0x80;
    }

    private ReadResult deliver(ReadRequest r, long cursor, Waited waited) {
        ReadReason reason = waited.reason();
        long end = log.end();
        long pending = end - cursor;
        if (!r.force() && r.toFile() == null && pending > r.maxBytes()) {
            return headAndTail(r, cursor, end, waited.note());
        }
        if (r.toFile() != null) {
            long next = spill(r, cursor, end);
            readers.merge(r.reader(), next, Math::max);
            return result("", next - cursor, next, end - next, reason, r.toFile().toString(), waited.note());
        }
        OutputLog.Slice s = log.read(cursor, (int) Math.min(pending, r.maxBytes()));
        byte[] bytes = s.bytes();
        int len = (s.next() == end && exited) ? bytes.length : completeUtf8Length(bytes);
        if (len == 0 && s.next() < end) {
            // a page too small for one character: deliver it as is rather than never move on
            len = bytes.length;
        }
        long next = s.from() + len;
        readers.merge(r.reader(), next, Math::max);
        String text = text(bytes, 0, len, r.stripAnsi());
        String skipped = s.from() > cursor
                ? (s.from() - cursor) + " older bytes were no longer held and were skipped" : null;
        return result(text, next - cursor, next, end - next, reason, null, join(skipped, waited.note()));
    }

    /**
     * More than max_bytes pending and no paging asked for: the first and the last part of it, together within
     * max_bytes, and how much was left out between. The reader moves past all of it, so that the next command
     * is answered on its own; what was left out stays readable by offset (the read's {@code cursor}).
     */
    private ReadResult headAndTail(ReadRequest r, long cursor, long end, String note) {
        int tailMax = r.maxBytes() / 2;
        OutputLog.Slice head = log.read(cursor, r.maxBytes() - tailMax);
        byte[] h = head.bytes();
        int headLen = completeUtf8Length(h);
        long headEnd = head.from() + headLen;
        long tailFrom = Math.max(headEnd, end - tailMax);
        byte[] t = log.read(tailFrom, (int) (end - tailFrom)).bytes();
        int skip = 0;
        while (skip < Math.min(UTF8_MAX - 1, t.length) && isContinuation(t[skip])) {
            // the tail starts at a character of its own: a leading part of one is left out with the middle
            skip++;
        }
        ReadResult.LeftOut leftOut = new ReadResult.LeftOut(headEnd, tailFrom + skip);
        readers.merge(r.reader(), end, Math::max);
        String data = text(h, 0, headLen, r.stripAnsi()) + "\n[... " + leftOut.bytes() + " bytes left out (offsets "
                + leftOut.from() + " to " + leftOut.to() + ") ...]\n" + text(t, skip, t.length - skip, r.stripAnsi());
        SessionState state = state();
        String hint = (end - cursor) + " bytes of output, more than max_bytes (" + r.maxBytes() + "): data holds the "
                + "first " + headLen + " bytes and the last " + (t.length - skip) + "; the " + leftOut.bytes()
                + " bytes between (offsets " + leftOut.from() + " to " + leftOut.to() + ") were left out, and the "
                + "reader's cursor moved past all of it (to " + end + ")."
                + (head.from() > cursor ? " The first " + (head.from() - cursor) + " bytes were no longer held." : "")
                + (state == SessionState.running ? " The command is still running: read on with session_read." : "")
                + " To get what was left out: session_read {\"cursor\": " + leftOut.from() + ", \"to_file\": "
                + "\"out.txt\"} writes it (and all after it) to a file, or {\"cursor\": " + leftOut.from()
                + ", \"force\": true} pages through it (max_bytes a page); or read with a larger max_bytes.";
        return result(data, end - cursor, end, 0, ReadReason.oversized, null, join(hint, note), leftOut);
    }

    /**
     * Writes the pending output to {@code to_file}: into a new file of its own in the same directory,
     * created exclusively (never through a link of any kind, whatever was put at the path meanwhile),
     * then renamed over the path, which replaces the name and never writes to what it named.
     */
    private long spill(ReadRequest r, long cursor, long end) {
        long at = cursor;
        Path target = r.toFile().toAbsolutePath();
        Path tmp = null;
        try {
            Files.createDirectories(target.getParent());
            tmp = Files.createTempFile(target.getParent(), ".to_file-", ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                while (at < end) {
                    OutputLog.Slice s = log.read(at, (int) Math.min(FILE_CHUNK, end - at));
                    if (s.bytes().length == 0) {
                        break;
                    }
                    byte[] bytes = s.bytes();
                    int len = s.next() == end ? bytes.length : completeUtf8Length(bytes);
                    if (len == 0) {
                        len = bytes.length;
                    }
                    if (r.stripAnsi() && !AnsiCleaner.isPlain(bytes, 0, len)) {
                        out.write(AnsiCleaner.clean(decode(bytes, len)).getBytes(StandardCharsets.UTF_8));
                    } else {
                        out.write(bytes, 0, len);
                    }
                    at = s.from() + len;
                }
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the write already failed: that is what the caller hears
                }
            }
            throw new SessionException("could not write " + r.toFile() + ": " + e.getMessage()
                    + "; nothing was consumed from the reader");
        }
        return at;
    }

    private ReadResult result(String data, long bytes, long cursor, long available, ReadReason reason,
                              String file, String hint) {
        return result(data, bytes, cursor, available, reason, file, hint, null);
    }

    private ReadResult result(String data, long bytes, long cursor, long available, ReadReason reason,
                              String file, String hint, ReadResult.LeftOut leftOut) {
        Engine e = engine;
        String note = e == null ? null : e.note();
        // at the shell's own prompt, the exit code is that of the command that just ended there
        Integer code = exited || e == null || reason != ReadReason.prompt ? exitCode : e.promptStatus();
        return new ReadResult(data, bytes, cursor, available, reason, state(), code, exitSignal, file,
                join(hint, note), leftOut);
    }

    private static String join(String a, String b) {
        return a == null ? b : b == null ? a : a + "\n" + b;
    }

    /** Why the server ended this session ("idle"), or null when it did not. */
    public String endedBy() {
        return endedBy;
    }

    /**
     * Marks the session as ended for its idle timeout, and says so in its output (and so in every read and
     * its transcript), since the signal its program gets next (HUP) does not tell why.
     */
    public void idledOut(java.time.Duration after) {
        endedBy = "idle";
        note("session closed after " + after.toMinutes() + " min with no tool call and no output (idle timeout)");
    }

    /** The last line of output as a person would see it; prompt detection looks at this. */
    public String lastLine() {
        return lineBefore(log.end());
    }

    /** The last line of the output before log offset {@code end}, as a person would have seen it then. */
    private String lineBefore(long end) {
        long from = Math.max(0, end - LAST_LINE_PROBE);
        OutputLog.Slice s = log.read(from, (int) (end - from));
        String text = AnsiCleaner.clean(decode(s.bytes()));
        return text.substring(text.lastIndexOf('\n') + 1);
    }

    /** Moves a reader to at least {@code offset} (what it has not read before that is skipped). */
    public void skipTo(String reader, long offset) {
        log.lock().lock();
        try {
            readers.merge(reader, offset, Math::max);
        } finally {
            log.lock().unlock();
        }
    }

    // ---- engine callbacks --------------------------------------------------------------------

    @Override
    public void output(byte[] bytes, int offset, int length) {
        // output is activity: a program that keeps printing (a dev server, a build) is not idle
        lastActivity = System.currentTimeMillis();
        log.append(bytes, offset, length);
        if (listener != null) {
            listener.output(this);
        }
    }

    @Override
    public void exited(Integer code, String signal) {
        log.lock().lock();
        try {
            if (exited) {
                return;
            }
            exitCode = code;
            exitSignal = signal;
            endedAt = System.currentTimeMillis();
            exited = true;
            log.wakeAll();
        } finally {
            log.lock().unlock();
        }
        if (listener != null) {
            listener.exited(this);
        }
    }

    @Override
    public long end() {
        return log.end();
    }

    @Override
    public void changed() {
        log.wakeAll();
    }

    @Override
    public String marker() {
        return marker;
    }

    /**
     * Ends the engine (graceful, then forced after {@code graceMs}) and waits, bounded, for its exit;
     * if it had exited already, ends what its process left running.
     */
    public void terminate(boolean force, long graceMs) {
        Engine e = engine;
        if (e == null) {
            return;
        }
        if (exited) {
            e.endLeftovers(force, graceMs);
        } else {
            e.terminate(force, graceMs);
        }
    }

    // ---- text --------------------------------------------------------------------------------

    /**
     * The output in {@code bytes[offset, offset + len)} as text, cleaned of escape sequences when
     * {@code strip}; output with nothing to clean (most of it) is found so in its bytes and decoded once.
     */
    private static String text(byte[] bytes, int offset, int len, boolean strip) {
        String text = decode(bytes, offset, len);
        return strip && !AnsiCleaner.isPlain(bytes, offset, len) ? AnsiCleaner.clean(text) : text;
    }

    static String decode(byte[] bytes) {
        return decode(bytes, bytes.length);
    }

    /**
     * UTF-8 with every invalid sequence replaced by U+FFFD: output never fails to decode. The String
     * constructor replaces as a REPLACE decoder does, and ASCII output (most of it) is copied as it is
     * instead of widened to a char buffer first: a fifth of the time for a megabyte.
     */
    static String decode(byte[] bytes, int len) {
        return decode(bytes, 0, len);
    }

    static String decode(byte[] bytes, int offset, int len) {
        return new String(bytes, offset, len, StandardCharsets.UTF_8);
    }

    /** Length without a trailing incomplete UTF-8 sequence, which the next read will complete. */
    static int completeUtf8Length(byte[] b) {
        int n = b.length;
        for (int back = 1; back <= Math.min(3, n); back++) {
            int c = b[n - back] & 0xff;
            if ((c & 0xc0) == 0x80) {
                continue;
            }
            int need = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 1;
            return need > back ? n - back : n;
        }
        return n;
    }
}
