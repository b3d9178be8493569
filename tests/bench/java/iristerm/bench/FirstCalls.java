package iristerm.bench;

import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Part 6: what a client feels after it spawned the server through bin/iris-terminal-mcp (its
 * class-data archive written beforehand): the first interactions from a fresh start, interactions
 * on many sessions at once over the one connection, and one wait that takes all of a
 * {@code seq 1 200000}. Raw JSON-RPC client (no client library in the figures), every row beside
 * its floor from the same run.
 */
final class FirstCalls {
    /** interactions measured from the start */
    private static final int FIRST = 200;
    private static final int CONCURRENT_SESSIONS = 20;
    private static final int SEQ_COUNT = 200_000;
    private static final int MAX_READ = 4 << 20;
    private static final double FIRST_OVER_FLOOR_MS = 1;
    private static final double CONCURRENT_MS = 5;
    private static final double SEQ_MS = 100;
    private static final int SEQ_CALLS = 2;

    private FirstCalls() {
    }

    static void run(Benchmark.Settings s, Report r) throws Exception {
        int first = s.smoke() ? 20 : FIRST;
        int rounds = s.smoke() ? 3 : 20;
        r.section("6", String.format(Locale.ROOT, "First calls through the launcher, from a fresh start: %d interactions; "
                + "%d sessions x %d interactions at once on one connection; seq 1 %d in one wait", first,
                CONCURRENT_SESSIONS, rounds, SEQ_COUNT));
        Path dir = Files.createTempDirectory("itm-bench-first");
        try {
            Launcher launcher = Launcher.prepared(s.jar());
            int warm = warmClient(launcher, dir, s, rounds);
            r.line("  client: this JVM's raw JSON-RPC client, its JIT warmed first against a throwaway server (%d "
                    + "interactions, %d rounds at once, 2 seq reads), so the rows are the fresh server's first calls", warm,
                    CLIENT_WARM_ROUNDS);
            Stats floorOne = floorSerial(first);
            Stats floorMany = floorConcurrent(rounds);
            long seqFloor = seqFloor();
            try (RawStdio c = new RawStdio(launcher.command("stdio"), launcher.env(), dir.resolve("fresh"), List.of(),
                    Duration.ofSeconds(300))) {
                String id = Interactions.openRawBash(c);
                long[] t = new long[first];
                ThreadCpu cpu0 = Servers.threadCpu(c.pid());
                for (int i = 0; i < first; i++) {
                    t[i] = Interactions.rawInteract(c, id, s.waitMs());
                }
                ThreadCpu firstCpu = ThreadCpu.between(cpu0, Servers.threadCpu(c.pid()));
                Stats firstStats = Stats.of(t);
                ThreadCpu[] cpuMany = new ThreadCpu[4];
                Stats many = concurrent(c, rounds, s.waitMs(), cpuMany);
                ThreadCpu manyCpu = ThreadCpu.between(cpuMany[0], cpuMany[1]);
                ThreadCpu clientCpu = ThreadCpu.between(cpuMany[2], cpuMany[3]);
                ThreadCpu cpu2 = Servers.threadCpu(c.pid());
                Seq seq = seq(c, s.waitMs());
                ThreadCpu seqCpu = ThreadCpu.between(cpu2, Servers.threadCpu(c.pid()));
                r.latencyHeader();
                r.latency("floor: bash on pipes, direct, one at a time", floorOne, "");
                r.latency(String.format(Locale.ROOT, "floor: %d bashes on pipes, direct, at once", CONCURRENT_SESSIONS),
                        floorMany, "");
                double over = firstStats.medianMs() - floorOne.medianMs();
                boolean firstMet = over <= FIRST_OVER_FLOOR_MS;
                r.latency(String.format(Locale.ROOT, "first %d interactions after start", first), firstStats,
                        String.format(Locale.ROOT, "+%.3f ms over floor (target <= %.0f ms) %s", over,
                                FIRST_OVER_FLOOR_MS, firstMet ? "met" : "MISSED"));
                r.target("first interactions after a start, over the floor", firstMet, String.format(Locale.ROOT,
                        "+%.3f ms median (%.3f vs floor %.3f; first %d; target <= %.0f ms)%s", over,
                        firstStats.medianMs(), floorOne.medianMs(), first, FIRST_OVER_FLOOR_MS,
                        firstMet || firstCpu == null ? "" : "; server CPU " + firstCpu.perCall(first)));
                boolean manyMet = many.medianMs() <= CONCURRENT_MS;
                r.latency(String.format(Locale.ROOT, "%d x %d at once, one connection", CONCURRENT_SESSIONS, rounds),
                        many, String.format(Locale.ROOT, "+%.3f ms over floor; target median <= %.0f ms %s",
                                many.medianMs() - floorMany.medianMs(), CONCURRENT_MS, manyMet ? "met" : "MISSED"));
                r.target(CONCURRENT_SESSIONS + " sessions x " + rounds + " interactions at once", manyMet,
                        String.format(Locale.ROOT, "%.3f ms median (floor %.3f; target <= %.0f ms)", many.medianMs(),
                                floorMany.medianMs(), CONCURRENT_MS));
                boolean seqMet = seq.calls() <= SEQ_CALLS && Stats.ms(seq.nanos()) <= SEQ_MS;
                String seqFigure = String.format(Locale.ROOT, "%d bytes in %d call(s), %.1f ms (floor: seq read "
                                + "directly %.1f ms; target <= %d calls and <= %.0f ms)", seq.bytes(), seq.calls(),
                        Stats.ms(seq.nanos()), Stats.ms(seqFloor), SEQ_CALLS, SEQ_MS);
                r.line("  seq 1 %d through one session_send wait: %s %s", SEQ_COUNT, seqFigure, seqMet ? "met" : "MISSED");
                if (firstCpu != null && manyCpu != null && clientCpu != null && seqCpu != null) {
                    int atOnce = CONCURRENT_SESSIONS * rounds;
                    r.line("  server CPU (all its threads): first %d: %s; %d x %d at once: %s (this client's: %.3f ms); "
                                    + "seq: %.1f ms", first, firstCpu.perCall(first), CONCURRENT_SESSIONS, rounds,
                            manyCpu.perCall(atOnce), Stats.ms(clientCpu.total()) / atOnce, Stats.ms(seqCpu.total()));
                    r.line("  (per thread from /proc/PID/task/*/schedstat before and after each phase; %s)",
                            ThreadCpu.ENDED_NOTE);
                } else {
                    r.line("  server CPU: " + ThreadCpu.NOT_HERE);
                }
                r.target("seq 1 " + SEQ_COUNT + " read completely", seqMet, seqFigure);
            }
        } finally {
            Servers.deleteTree(dir);
        }
    }

    private static final int CLIENT_WARM_ROUNDS = 3;

    /**
     * Runs every phase against a server started only for this, so that this JVM's client code (JSON
     * encoding and parsing, the dispatch of answers) is compiled before the measured server starts:
     * a cold client costs more CPU per interaction than the server, and would be measured as its.
     * Returns the number of single interactions it ran.
     */
    private static int warmClient(Launcher launcher, Path dir, Benchmark.Settings s, int rounds) throws Exception {
        int warm = s.smoke() ? 20 : 5000;
        try (RawStdio w = new RawStdio(launcher.command("stdio"), launcher.env(), dir.resolve("client-warm-up"),
                List.of(), Duration.ofSeconds(300))) {
            String id = Interactions.openRawBash(w);
            for (int i = 0; i < warm; i++) {
                Interactions.rawInteract(w, id, s.waitMs());
            }
            for (int i = 0; i < CLIENT_WARM_ROUNDS; i++) {
                concurrent(w, rounds, s.waitMs(), new ThreadCpu[4]);
            }
            seq(w, s.waitMs());
            seq(w, s.waitMs());
        }
        jitSettled();
        return warm;
    }

    /**
     * Waits (at most {@link #JIT_SETTLE}) until this JVM's JIT has stopped compiling: its optimising
     * compiler goes on for seconds after the warm-up and would take the measured server's CPU.
     */
    private static void jitSettled() throws InterruptedException {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long deadline = System.nanoTime() + JIT_SETTLE.toNanos();
        long seen = -1;
        while (System.nanoTime() < deadline) {
            long now = jit.getTotalCompilationTime();
            if (now == seen) {
                return;
            }
            seen = now;
            Thread.sleep(300);
        }
    }

    private static final Duration JIT_SETTLE = Duration.ofSeconds(20);

    /**
     * Interactions on {@link #CONCURRENT_SESSIONS} sessions at once, one thread per session; the
     * server's CPU time before and after them goes into {@code cpu[0..1]}, this JVM's (the client's)
     * into {@code cpu[2..3]}.
     */
    private static Stats concurrent(RawStdio c, int rounds, long waitMs, ThreadCpu[] cpu) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < CONCURRENT_SESSIONS; i++) {
            ids.add(Interactions.openRawBash(c));
        }
        cpu[0] = Servers.threadCpu(c.pid());
        cpu[2] = Servers.threadCpu(ProcessHandle.current().pid());
        List<Callable<long[]>> tasks = new ArrayList<>();
        for (String id : ids) {
            tasks.add(() -> {
                long[] t = new long[rounds];
                for (int i = 0; i < rounds; i++) {
                    t[i] = Interactions.rawInteract(c, id, waitMs);
                }
                return t;
            });
        }
        List<Long> all = new ArrayList<>();
        for (long[] t : onThreads(tasks)) {
            for (long x : t) {
                all.add(x);
            }
        }
        cpu[1] = Servers.threadCpu(c.pid());
        cpu[3] = Servers.threadCpu(ProcessHandle.current().pid());
        for (String id : ids) {
            c.call("session_close", "session", id, "force", true);
        }
        return Stats.of(all);
    }

    record Seq(long bytes, int calls, long nanos) {
    }

    /**
     * {@code seq 1 200000} in a bash on pipes, read by one session_send that waits until the line
     * after it; reads on (force, pages of {@link #MAX_READ}) only if that did not take it all.
     */
    private static Seq seq(RawStdio c, long waitMs) throws IOException {
        String id = Interactions.openRawBash(c);
        long t0 = System.nanoTime();
        JsonNode m = c.call("session_send", "session", id, "text", "seq 1 " + SEQ_COUNT + "; echo seq-$((40+2))-done",
                "wait_ms", waitMs, "max_bytes", MAX_READ, "until", Map.of("pattern", "^seq-42-done\\r?\\n"));
        int calls = 1;
        long bytes = m.path("bytes").asLong();
        while (!m.path("data").asString("").contains("seq-42-done")) {
            if (calls > 100) {
                throw new Servers.CallFailed("seq: the end marker did not come in 100 reads: " + Interactions.abbreviate(m));
            }
            m = c.call("session_read", "session", id, "wait_ms", waitMs, "max_bytes", MAX_READ, "force", true,
                    "until", Map.of("pattern", "^seq-42-done\\r?\\n"));
            calls++;
            bytes += m.path("bytes").asLong();
        }
        long dt = System.nanoTime() - t0;
        c.call("session_close", "session", id, "force", true);
        return new Seq(bytes, calls, dt);
    }

    private static Stats floorSerial(int n) throws Exception {
        return Stats.of(directRoundTrips(n));
    }

    private static Stats floorConcurrent(int rounds) throws Exception {
        List<Callable<long[]>> tasks = new ArrayList<>();
        for (int k = 0; k < CONCURRENT_SESSIONS; k++) {
            tasks.add(() -> directRoundTrips(rounds));
        }
        List<Long> all = new ArrayList<>();
        for (long[] t : onThreads(tasks)) {
            for (long x : t) {
                all.add(x);
            }
        }
        return Stats.of(all);
    }

    /** {@code n} interactions with a bash of its own on pipes, driven directly. */
    private static long[] directRoundTrips(int n) throws Exception {
        DirectShell pipe = DirectShell.pipe();
        try (pipe; AutoCloseable dog = Servers.watchdog(Duration.ofSeconds(300), pipe::kill)) {
            long[] t = new long[n];
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                pipe.roundTrip(Interactions.TOKENS.getAndIncrement());
                t[i] = System.nanoTime() - t0;
            }
            return t;
        }
    }

    private static List<long[]> onThreads(List<Callable<long[]>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            List<long[]> results = new ArrayList<>();
            for (Future<long[]> f : pool.invokeAll(tasks, 300, TimeUnit.SECONDS)) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code seq 1 200000} run directly, its output read to the end. */
    private static long seqFloor() throws Exception {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("seq", "1", Integer.toString(SEQ_COUNT)).start();
        try (InputStream out = p.getInputStream()) {
            out.transferTo(java.io.OutputStream.nullOutputStream());
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("seq did not end in 60 s");
        }
        return System.nanoTime() - t0;
    }
}
