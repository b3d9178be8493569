package iristerm.process;

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import com.pty4j.WinSize;
import iristerm.session.Delivery;
import iristerm.session.Engine;
import iristerm.session.EngineSink;
import iristerm.session.Session;
import iristerm.session.SessionException;
import iristerm.session.SessionState;
import iristerm.session.TerminalSize;
import iristerm.session.Signal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * An OS process in a pseudo-terminal (pty4j) or on plain pipes. One thread pumps its output into
 * the session as it arrives; another waits for its exit. The process leads its own process group,
 * so signals reach everything it started.
 */
public final class ProcessEngine implements Engine {
    /** bash/sh/zsh "$ ", "# ", "% ", node "> ", python ">>> " and "... ", IRIS "USER>" / "TL1:USER>" */
    public static final String DEFAULT_PROMPT = "(?:[$#%>] |\\.\\.\\. |(?:^|[\\s:])[A-Z%][A-Za-z0-9%._-]*>)$";

    private static final Logger LOG = LoggerFactory.getLogger(ProcessEngine.class);
    /** how long output may still drain after the process has exited */
    private static final long DRAIN_MILLIS = 1000;
    private static final long KILL_WAIT_MILLIS = 3000;
    /** how often leftovers are looked for again while waiting for them to end (no event tells of a stranger's exit) */
    private static final long LEFTOVER_POLL_MILLIS = 25;

    /** Set in every session unless its env says otherwise. */
    static final Map<String, String> NO_PAGER = Map.of("PAGER", "cat", "GIT_PAGER", "cat", "MANPAGER", "cat",
            "SYSTEMD_PAGER", "cat");

    private final Process process;
    private final boolean pty;
    private final PromptRegex prompt;
    private final InputWriter input;
    private final Thread pump;
    private final Leftovers leftovers;
    /** the shell's own marks of its prompts and commands' ends; null for a program not set up to write them */
    private final ShellMarks marks;
    private volatile TerminalSize size = TerminalSize.DEFAULT;

    private ProcessEngine(Process process, boolean pty, Pattern prompt, EngineSink sink, String name,
                          Leftovers leftovers, boolean marked) {
        this.process = process;
        this.leftovers = leftovers;
        this.pty = pty;
        this.prompt = new PromptRegex(prompt);
        this.marks = marked ? new ShellMarks(sink) : null;
        this.input = new InputWriter(process.getOutputStream(), name + "-in");
        this.pump = new Thread(() -> pump(process.getInputStream(), sink, marks), name + "-out");
        pump.setDaemon(true);
        pump.start();
        Thread waiter = new Thread(() -> awaitExit(sink), name + "-exit");
        waiter.setDaemon(true);
        waiter.start();
    }

    public static ProcessEngine start(ProcessSpec spec, Pattern prompt, EngineSink sink, String name) {
        Map<String, String> env = new HashMap<>(System.getenv());
        // an agent reads output, it does not page through it: git log, man, systemctl and psql print at once
        env.putAll(NO_PAGER);
        env.putAll(spec.env());
        // after the caller's env: the marker by which close finds what this session left running
        String marker = sink.marker();
        env.put(Leftovers.VARIABLE, marker);
        String executable = resolve(spec.command(), env.get("PATH"));
        File dir = new File(spec.cwd());
        if (!dir.isDirectory()) {
            throw new SessionException("cwd '" + spec.cwd() + "' is not a directory; give an existing directory");
        }
        List<String> argv = new ArrayList<>();
        try {
            Process p;
            ShellIntegration.Setup shell = ShellIntegration.apply(executable, spec.args(), spec.pty(), env);
            if (spec.pty()) {
                env.putIfAbsent("TERM", "xterm-256color");
                argv.add(executable);
                argv.addAll(shell.args());
                p = new PtyProcessBuilder(argv.toArray(String[]::new))
                        .setEnvironment(env)
                        .setDirectory(dir.getPath())
                        .setInitialColumns(spec.cols())
                        .setInitialRows(spec.rows())
                        .setRedirectErrorStream(true)
                        .start();
            } else {
                // setsid makes the child a process-group leader, so group signals reach its children
                String setsid = resolveOrNull("setsid", env.get("PATH"));
                if (setsid != null) {
                    argv.add(setsid);
                }
                argv.add(executable);
                argv.addAll(PipeShell.args(executable, spec.args()));
                ProcessBuilder pb = new ProcessBuilder(argv).directory(dir).redirectErrorStream(true);
                pb.environment().clear();
                pb.environment().putAll(env);
                p = pb.start();
            }
            ProcessEngine engine = new ProcessEngine(p, spec.pty(), prompt, sink, name, new Leftovers(marker, p.pid()),
                    shell.marks());
            engine.size = new TerminalSize(spec.cols(), spec.rows());
            return engine;
        } catch (IOException e) {
            throw new SessionException("could not start '" + spec.command() + "': " + e.getMessage());
        }
    }

    private static String resolve(String command, String path) {
        if (command == null || command.isBlank()) {
            throw new SessionException("command is empty; give a program to run, e.g. \"bash\"");
        }
        String found = resolveOrNull(command, path);
        if (found == null) {
            throw new SessionException("command '" + command + "' was not found"
                    + (command.contains("/") ? " or is not executable" : " on PATH (" + path + ")")
                    + "; give an installed program or its absolute path");
        }
        return found;
    }

    private static String resolveOrNull(String command, String path) {
        if (command.contains("/")) {
            return Files.isExecutable(Path.of(command)) && !Files.isDirectory(Path.of(command)) ? command : null;
        }
        for (String dir : (path == null ? "/usr/bin:/bin" : path).split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, command);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return p.toString();
            }
        }
        return null;
    }

    private static void pump(InputStream in, EngineSink sink, ShellMarks marks) {
        byte[] buf = new byte[64 * 1024];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (n > 0 && marks != null) {
                    marks.feed(buf, n);
                } else if (n > 0) {
                    sink.output(buf, 0, n);
                }
            }
        } catch (IOException | RuntimeException e) {
            // a PTY master reads EIO once the last slave descriptor closes: that is end of output;
            // anything else ends this session's output too, never the server
        }
    }

    private void awaitExit(EngineSink sink) {
        try {
            int status = process.waitFor();
            pump.join(DRAIN_MILLIS);
            input.close();
            ExitStatus exit = ExitStatus.of(status);
            sink.exited(exit.code(), exit.signal());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public long pid() {
        return process.pid();
    }

    @Override
    public void write(String text, boolean enter, boolean secret) throws IOException {
        write(text, enter, secret, Session.INPUT_WAIT_MS);
    }

    @Override
    public Delivery write(String text, boolean enter, boolean secret, long waitMillis) throws IOException {
        return input.write((enter ? text + (pty ? "\r" : "\n") : text).getBytes(StandardCharsets.UTF_8), waitMillis);
    }

    /**
     * INT and QUIT go to the terminal's foreground job (what Ctrl-C does); TERM, KILL and HUP go to
     * the session's process group and to the foreground job if that is another group.
     */
    @Override
    public void signal(Signal signal) throws IOException {
        long group = process.pid();
        long foreground = pty ? PosixSignals.foregroundGroup(group) : -1;
        boolean toForegroundOnly = signal == Signal.INT || signal == Signal.QUIT;
        if (foreground > 1 && foreground != group) {
            PosixSignals.killGroup(foreground, signal.number());
            if (toForegroundOnly) {
                return;
            }
        }
        // a child that has not yet made itself group leader (just started) is signalled directly
        if (!PosixSignals.killGroup(group, signal.number()) && process.isAlive()) {
            PosixSignals.killProcess(group, signal.number());
        }
    }

    @Override
    public void resize(int cols, int rows) {
        if (!(process instanceof PtyProcess p)) {
            throw new SessionException("resize needs a pty session; this one runs on pipes (mode \"pipe\")");
        }
        p.setWinSize(new WinSize(cols, rows));
        size = new TerminalSize(cols, rows);
    }

    @Override
    public TerminalSize size() {
        return size;
    }

    @Override
    public SessionState liveState(String lastLine) {
        // The shell's own prompt is up (marked, its text shown, nothing run since): it waits for input, also in the
        // moment between drawing the prompt and reading, when the kernel does not show it reading yet
        if (marks != null && marks.active() && Boolean.TRUE.equals(marks.promptSince(-1))) {
            return SessionState.waiting_input;
        }
        Boolean input = awaitsInput();
        boolean waiting = input != null ? input : prompt.matches(lastLine);
        return waiting ? SessionState.waiting_input : SessionState.running;
    }

    /**
     * A shell that marks its prompts is at its prompt when it has marked one since and the prompt's text
     * has come (or, asked with no mark, once the kernel has told that the shell reads: an empty prompt);
     * what merely looks like a prompt never counts then. For any other program a prompt-like last line
     * counts, only if the kernel, where it can be asked, says the program reads.
     */
    @Override
    public boolean promptSince(long mark, long logEnd, String lastLine) {
        if (marks != null && marks.active()) {
            Boolean marked = marks.promptSince(mark);
            return marked != null ? marked : mark < 0;
        }
        // the kernel as it is: a bash whose marks never came (a profile replaced them) is judged as any program
        return logEnd > mark && prompt.matches(lastLine) && !Boolean.FALSE.equals(kernelSaysReading());
    }

    @Override
    public Integer promptStatus() {
        return marks == null ? null : marks.status();
    }

    @Override
    public boolean knowsInput() {
        return pty && TerminalInput.HERE != null;
    }

    /** Not while the shell draws its prompt: readline polls the terminal meanwhile, which is no wait for input. */
    @Override
    public Boolean awaitsInput() {
        return marks != null && marks.drawing() ? Boolean.FALSE : kernelSaysReading();
    }

    private Boolean kernelSaysReading() {
        return knowsInput() && process.isAlive() ? TerminalInput.HERE.waiting(process.pid()) : null;
    }

    @Override
    public boolean echoesInput() {
        return pty;
    }

    /** Where the kernel tells input waits, or the shell marks its prompts, the end of a command is known without quiet. */
    @Override
    public boolean showsPrompt(String lineBefore) {
        return knowsInput() || (marks != null && marks.active()) || prompt.seen(lineBefore);
    }

    @Override
    public String note() {
        return prompt.note();
    }

    /**
     * Graceful first: HUP (what closing a terminal does; an interactive shell, which a pipe-mode bash
     * is too, ignores TERM), then TERM. Whatever is still alive after the grace period is killed, and so is whatever
     * the leader left running (see {@link #endLeftovers}). (A writer blocked on a child that stopped
     * reading is released when the child dies and its end of the pipe or terminal closes.)
     */
    @Override
    public void terminate(boolean force, long graceMillis) {
        long politeUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(force ? 0 : graceMillis);
        try {
            if (process.isAlive()) {
                if (!force) {
                    trySignal(Signal.HUP);
                    trySignal(Signal.TERM);
                    process.waitFor(graceMillis, TimeUnit.MILLISECONDS);
                }
                if (process.isAlive()) {
                    trySignal(Signal.KILL);
                    if (!process.waitFor(KILL_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                        LOG.warn("process {} did not end within {} ms of KILL", process.pid(), KILL_WAIT_MILLIS);
                    }
                }
            }
            endLeftovers(politeUntil);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void endLeftovers(boolean force, long graceMillis) {
        try {
            endLeftovers(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(force ? 0 : graceMillis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Ends the processes the leader left behind: TERM, then KILL for what is still there at
     * {@code politeUntil}; returns once they are gone or {@value #KILL_WAIT_MILLIS} ms after KILL.
     * Each round looks again, so a process that forks while it is being ended is found too.
     */
    private void endLeftovers(long politeUntil) throws InterruptedException {
        end(() -> leftovers.find(process.isAlive()), politeUntil, "session process " + process.pid());
    }

    /**
     * Ends the processes that carry the marker of a session of an earlier run whose server is gone (it
     * died without ending them), as {@link #endLeftovers(long)} does, politely first for {@code graceMillis}.
     */
    static void endOrphans(Collection<String> markers, long graceMillis) {
        try {
            end(() -> Leftovers.carrying(markers), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis),
                    "sessions of an earlier run");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void end(Supplier<List<Long>> finder, long politeUntil, String whose) throws InterruptedException {
        List<Long> found = finder.get();
        if (found.isEmpty()) {
            return;
        }
        Set<Long> termed = new HashSet<>();
        long killUntil = Long.MAX_VALUE;
        while (!found.isEmpty()) {
            long now = System.nanoTime();
            boolean polite = now - politeUntil < 0;
            if (!polite && killUntil == Long.MAX_VALUE) {
                killUntil = now + TimeUnit.MILLISECONDS.toNanos(KILL_WAIT_MILLIS);
            }
            if (!polite && now - killUntil > 0) {
                LOG.warn("processes {} left by {} did not end within {} ms of KILL", found, whose, KILL_WAIT_MILLIS);
                return;
            }
            for (long pid : found) {
                if (!polite || termed.add(pid)) {
                    trySignal(pid, polite ? Signal.TERM : Signal.KILL);
                }
            }
            Thread.sleep(LEFTOVER_POLL_MILLIS);
            found = finder.get();
        }
    }

    private void trySignal(Signal s) {
        try {
            signal(s);
        } catch (IOException e) {
            LOG.debug("signal {} to {}: {}", s, process.pid(), e.getMessage());
        }
    }

    private static void trySignal(long pid, Signal s) {
        try {
            PosixSignals.killProcess(pid, s.number());
        } catch (IOException e) {
            LOG.debug("signal {} to {}: {}", s, pid, e.getMessage());
        }
    }
}
