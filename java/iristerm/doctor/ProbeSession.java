package iristerm.doctor;

import iristerm.iris.IrisApi;
import iristerm.iris.IrisEngine;
import iristerm.iris.JobLink;
import iristerm.session.EngineSink;
import iristerm.session.SessionState;
import iristerm.session.Signal;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * One iris session as the doctor's engine checks need it: the server's own {@link IrisEngine} on a
 * link of the doctor's own, with the whole output kept here. Every wait ends at a deadline with a
 * {@link Doctor.Failure} saying what did not come; IRIS is called only on the doctor's thread.
 */
final class ProbeSession implements EngineSink, AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final String CLIENT = "iris-terminal-mcp doctor";

    /** A finished command: its own output and what its {@code done} mark reported. */
    record Ran(long n, String output, String namespace, int tlevel, long elapsedMs, IrisEngine.CommandError error) {
    }

    private final JobLink link;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private IrisEngine engine;

    private ProbeSession(JobLink link) {
        this.link = link;
    }

    /** Opens a session on a link of its own and waits for its first prompt. */
    static ProbeSession open(IrisApi api, long boundMs) {
        JobLink link = new JobLink(api.calls().linkAddress());
        ProbeSession s = new ProbeSession(link);
        try {
            JobLink.Job job = link.start(api, null);
            s.engine = new IrisEngine(api, job, new IrisEngine.Attribution("doctor", "doctor", CLIENT), s, "doctor");
            if (!s.engine.awaitStarted(boundMs)) {
                throw new Doctor.Failure("the job connected but showed no prompt within " + boundMs / 1000 + " s");
            }
            return s;
        } catch (RuntimeException e) {
            s.close(true);
            throw e;
        }
    }

    long pid() {
        return engine.pid();
    }

    String namespace() {
        return engine.namespace();
    }

    /** Runs {@code code} at the prompt as one command; its number. */
    long send(String code) {
        return engine.execute(code, false);
    }

    /** Types one line, as the answer to a READ. */
    void type(String line) {
        engine.write(line, true, false);
    }

    void interrupt() {
        engine.signal(Signal.INT);
    }

    /** Runs {@code code} and waits for its end. */
    Ran run(String code, long boundMs) {
        return awaitDone(send(code), boundMs);
    }

    Ran awaitDone(long n, long boundMs) {
        // the command's end is its done mark; the session can take the next one at the prompt that follows
        await(() -> engine.done(n) != null && engine.state() != SessionState.running, "no done mark for command " + n,
                boundMs);
        IrisEngine.Done d = engine.done(n);
        String all = output();
        byte[] bytes = all.getBytes(StandardCharsets.UTF_8);
        if (d.outStart() < 0 || d.outEnd() < d.outStart() || d.outEnd() > bytes.length) {
            throw new Doctor.Failure("the start and done marks of command " + n + " put its output at " + d.outStart()
                    + ".." + d.outEnd() + ", outside the " + bytes.length + " bytes received");
        }
        String out = new String(bytes, (int) d.outStart(), (int) (d.outEnd() - d.outStart()), StandardCharsets.UTF_8);
        return new Ran(n, out, d.namespace(), d.tlevel(), d.elapsedMs(), d.error());
    }

    void awaitReading(long n, long boundMs) {
        await(() -> engine.reading() != null && engine.reading().n() == n, "no read mark for command " + n, boundMs);
    }

    void awaitStarted(long n, long boundMs) {
        await(() -> engine.started(n) >= 0, "no start mark for command " + n, boundMs);
    }

    /** Runs one statement in the session; its result. */
    JsonNode sql(String query, long boundMs) {
        CompletableFuture<JsonNode> r = engine.sql(query, JSON.createArrayNode(), null, 10);
        try {
            return r.get(boundMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new Doctor.Stuck("no sql mark within " + boundMs / 1000 + " s (state " + engine.state() + ")");
        } catch (ExecutionException e) {
            throw new Doctor.Failure(e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Doctor.Failure("interrupted");
        }
    }

    /** Asks the job to end ({@code bye}) and waits until it has closed its link. */
    void bye(long boundMs) {
        engine.signal(Signal.TERM);
        await(() -> engine.state() == SessionState.exited, "the job did not close its link after bye", boundMs);
    }

    SessionState state() {
        return engine.state();
    }

    private synchronized void await(BooleanSupplier done, String what, long boundMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs);
        while (!done.getAsBoolean()) {
            if (engine.state() == SessionState.exited) {
                throw new Doctor.Failure("the session's job ended (" + what + ")");
            }
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new Doctor.Stuck(what + " within " + boundMs / 1000 + " s (state " + engine.state() + ")");
            }
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Doctor.Failure("interrupted while waiting: " + what);
            }
        }
    }

    synchronized String output() {
        return log.toString(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void output(byte[] bytes, int offset, int length) {
        log.write(bytes, offset, length);
        notifyAll();
    }

    @Override
    public synchronized void exited(Integer exitCode, String signal) {
        notifyAll();
    }

    @Override
    public synchronized void changed() {
        notifyAll();
    }

    /** Ends the job (bye, INT and KILL as the contract says) and the doctor's link. */
    void close(boolean force) {
        if (engine != null) {
            engine.terminate(force, 2000);
        }
        link.close();
    }

    @Override
    public void close() {
        close(true);
    }
}
