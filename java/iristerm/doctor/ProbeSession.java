package iristerm.doctor;

import iristerm.iris.IrisApi;
import iristerm.iris.IrisEngine;
import iristerm.iris.JobLink;
import iristerm.iris.KeptOutput;
import iristerm.session.SessionState;
import iristerm.session.Signal;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

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
final class ProbeSession implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final String CLIENT = "iris-terminal-mcp doctor";

    /** A finished command: its own output and what its {@code done} mark reported. */
    record Ran(long n, String output, String namespace, int tlevel, long elapsedMs, IrisEngine.CommandError error) {
    }

    private final JobLink link;
    private final KeptOutput log = new KeptOutput();
    private IrisEngine engine;

    private ProbeSession(JobLink link) {
        this.link = link;
    }

    /** Opens a session on a link of its own and waits for its first prompt. */
    static ProbeSession open(IrisApi api, long boundMs) {
        JobLink link = new JobLink(api.calls().linkAddress());
        ProbeSession s = new ProbeSession(link);
        try {
            // the doctor's own probe, not a caller's session: no owner to compare the job's user with
            JobLink.Job job = link.start(api, null, null);
            s.engine = new IrisEngine(api, job, new IrisEngine.Attribution("doctor", "doctor", CLIENT), null, s.log,
                    "doctor");
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
        String out = log.text(d.outStart(), d.outEnd());
        if (out == null) {
            throw new Doctor.Failure("the start and done marks of command " + n + " put its output at " + d.outStart()
                    + ".." + d.outEnd() + ", outside what was received");
        }
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

    private void await(BooleanSupplier done, String what, long boundMs) {
        boolean came;
        try {
            came = log.await(() -> done.getAsBoolean() || engine.state() == SessionState.exited, boundMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Doctor.Failure("interrupted while waiting: " + what);
        }
        if (done.getAsBoolean()) {
            return;
        }
        if (came) {
            throw new Doctor.Failure("the session's job ended (" + what + ")");
        }
        throw new Doctor.Stuck(what + " within " + boundMs / 1000 + " s (state " + engine.state() + ")");
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
