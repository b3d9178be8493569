package iristerm.bench;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Part 4: fresh server JVMs, spoken to in raw JSON-RPC lines (no client library in the measurement):
 * process start to the initialize answer and to the first session_open answer over stdio, and to
 * "listening" for serve — started plainly ({@code java -jar}) and through bin/iris-terminal-mcp (the
 * command the README's client configurations use) with its class-data archive written beforehand.
 */
final class ColdStart {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    private static final String OPEN = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"session_open\",\"arguments\":{\"command\":\"cat\",\"mode\":\"pipe\",\"wait_ms\":0}}}";
    static final double TARGET_MS = 400;

    private ColdStart() {
    }

    /**
     * Process start to a point of the start (initialize answered, listening), the server's CPU by then
     * (null where /proc cannot tell), the busy share of the machine's cores meanwhile (NaN if unknown),
     * and how long reading those took.
     */
    record Reached(long nanos, ThreadCpu cpu, double machineBusy, long readNanos) {
    }

    record Run(Reached init, long openNanos) {
    }

    static void run(Benchmark.Settings s, Report r) throws Exception {
        r.section("4", "Cold start: JVM start to initialize answered (stdio) / to listening (serve)");
        r.line("  raw JSON-RPC lines on the server's stdin/stdout; %s%d runs each, interleaved",
                s.smoke() ? "" : "1 unmeasured run of each first (file cache), then ", s.coldRuns());
        Path dir = Files.createTempDirectory("itm-bench-cold");
        try {
            Launcher launcher = Launcher.prepared(s.jar());
            r.line("  launcher: %s, its class-data archive written by one unmeasured start: %s", launcher.script(),
                    launcher.archive().getFileName());
            List<String> plain = List.of(Servers.java(), "-jar", s.jar().toString(), "stdio");
            if (!s.smoke()) {
                once(plain, Map.of(), dir.resolve("warm"));
                once(launcher.command("stdio"), launcher.env(), dir.resolve("warm-launcher"));
                listening(launcher, dir.resolve("warm-serve"));
                javaVersion();
            }
            int n = s.coldRuns();
            long[] floor = new long[n];
            long[] plainInit = new long[n];
            long[] plainOpen = new long[n];
            long[] init = new long[n];
            long[] open = new long[n];
            long[] serve = new long[n];
            List<Reached> plainReached = new ArrayList<>();
            List<Reached> initReached = new ArrayList<>();
            List<Reached> serveReached = new ArrayList<>();
            List<Long> readsBeforeOpen = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                floor[i] = javaVersion();
                Run p = once(plain, Map.of(), dir.resolve("plain" + i));
                plainInit[i] = p.init().nanos();
                plainReached.add(p.init());
                plainOpen[i] = p.openNanos();
                readsBeforeOpen.add(p.init().readNanos());
                Run l = once(launcher.command("stdio"), launcher.env(), dir.resolve("launcher" + i));
                init[i] = l.init().nanos();
                initReached.add(l.init());
                open[i] = l.openNanos();
                readsBeforeOpen.add(l.init().readNanos());
                Reached listened = listening(launcher, dir.resolve("serve" + i));
                serve[i] = listened.nanos();
                serveReached.add(listened);
            }
            int cores = Runtime.getRuntime().availableProcessors();
            StartCpu plainStart = StartCpu.of(plainReached, cores);
            StartCpu launcherStart = StartCpu.of(initReached, cores);
            StartCpu serveStart = StartCpu.of(serveReached, cores);
            Stats fl = Stats.of(floor);
            r.latencyHeader();
            r.latency("floor: JVM start to exit (java -version)", fl, spread(floor));
            r.latency(PLAIN_INIT, Stats.of(plainInit), spread(plainInit) + "; plain JVM, info");
            r.latency("java -jar … stdio: to first session_open", Stats.of(plainOpen), spread(plainOpen));
            startRow(r, LAUNCHER_INIT, init, fl, launcherStart);
            r.latency("launcher stdio: to first session_open", Stats.of(open), spread(open));
            startRow(r, SERVE_LISTENING, serve, fl, serveStart);
            r.line("  the server's CPU by then, by thread group, and how busy the machine's cores were meanwhile (each a "
                    + "median of the %d runs; ms; %d cores here):", n, cores);
            cpuRow(r, PLAIN_INIT, plainStart);
            cpuRow(r, LAUNCHER_INIT, launcherStart);
            cpuRow(r, SERVE_LISTENING, serveStart);
            r.line("  (read from /proc/PID/task/*/schedstat right after the answer or line came, in %.2f ms median, "
                    + "before session_open is sent; the PID is the JVM's: the launcher execs java; %s; stdio's "
                    + "start-preparation thread is among them: the server awaits it before it reads the first request)",
                    Stats.of(readsBeforeOpen).medianMs(), ThreadCpu.ENDED_NOTE);
        } finally {
            Servers.deleteTree(dir);
        }
    }

    private static final String PLAIN_INIT = "java -jar … stdio: to initialize answered";
    private static final String LAUNCHER_INIT = "launcher stdio: to initialize answered";
    private static final String SERVE_LISTENING = "launcher serve: to listening";

    private static void startRow(Report r, String what, long[] nanos, Stats floor, StartCpu cpu) {
        Stats st = Stats.of(nanos);
        boolean met = st.medianMs() <= TARGET_MS;
        r.latency(what, st, String.format(Locale.ROOT, "+%.0f ms over floor; %s; target <= %.0f ms %s",
                st.medianMs() - floor.medianMs(), spread(nanos), TARGET_MS, met ? "met" : "MISSED"));
        r.target("cold start, " + what, met, String.format(Locale.ROOT,
                "%.0f ms median, %s (target <= %.0f ms; floor java -version %.0f ms)%s", st.medianMs(), spread(nanos),
                TARGET_MS, floor.medianMs(), met || cpu == null ? "" : "; " + cpu.limit()));
    }

    private static void cpuRow(Report r, String what, StartCpu cpu) {
        if (cpu == null) {
            r.line("  %-44s %s", what, ThreadCpu.NOT_HERE);
            return;
        }
        r.line("  %-44s wall %.0f, CPU %.0f: %s", what, cpu.wallMs(), cpu.cpuMs(), cpu.groups().all());
        r.line("  %-44s %s", "", cpu.reading());
    }

    /** The spread across runs: fastest to slowest. */
    static String spread(long[] nanos) {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long t : nanos) {
            min = Math.min(min, t);
            max = Math.max(max, t);
        }
        return String.format(Locale.ROOT, "runs %.0f–%.0f ms", Stats.ms(min), Stats.ms(max));
    }

    private static Run once(List<String> command, Map<String, String> env, Path dataDir) throws Exception {
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("--data-dir", dataDir.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        MachineCpu machine = MachineCpu.now();
        long t0 = System.nanoTime();
        Process p = pb.start();
        try (AutoCloseable dog = Servers.watchdog(Duration.ofSeconds(60), p::destroyForcibly);
             BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            OutputStream in = p.getOutputStream();
            send(in, INITIALIZE);
            expect(out, 1);
            Reached init = reached(System.nanoTime() - t0, p, machine);
            send(in, INITIALIZED);
            send(in, OPEN);
            JsonNode opened = expect(out, 2);
            long open = System.nanoTime() - t0;
            if (opened.path("result").path("isError").asBoolean(false)) {
                throw new IOException("session_open failed: " + opened);
            }
            in.close();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return new Run(init, open);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    /** serve through the launcher: process start to the "listening on" line; then SIGTERM. */
    private static Reached listening(Launcher launcher, Path dataDir) throws Exception {
        List<String> cmd = new ArrayList<>(launcher.command("serve"));
        cmd.addAll(List.of("--listen", "127.0.0.1:0", "--token", Servers.TOKEN, "--data-dir", dataDir.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(launcher.env());
        MachineCpu machine = MachineCpu.now();
        long t0 = System.nanoTime();
        Process p = pb.start();
        try (AutoCloseable dog = Servers.watchdog(Duration.ofSeconds(60), p::destroyForcibly);
             BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = err.readLine()) != null) {
                if (line.contains("listening on http://")) {
                    Reached t = reached(System.nanoTime() - t0, p, machine);
                    p.destroy();
                    if (!p.waitFor(30, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                    return t;
                }
            }
            throw new IOException("serve ended before listening");
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * {@code nanos} reached, with the server's CPU and the machine's read right then. The process
     * spawned must be the JVM itself (the launcher execs java): a launcher that waited for a java
     * child instead would have the shell's CPU read as the server's.
     */
    private static Reached reached(long nanos, Process p, MachineCpu atStart) throws IOException {
        long t0 = System.nanoTime();
        ThreadCpu cpu = Servers.threadCpu(p.pid());
        double busy = MachineCpu.busy(atStart, MachineCpu.now());
        long read = System.nanoTime() - t0;
        java.util.Optional<String> command = p.info().command();
        if (command.isPresent() && !command.get().endsWith("/java")) {
            throw new IOException("the process started is " + command.get() + ", not java: its CPU is not the server's");
        }
        return new Reached(nanos, cpu, busy, read);
    }

    private static long javaVersion() throws Exception {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(Servers.java(), "-version").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("java -version did not end in 60 s");
        }
        return System.nanoTime() - t0;
    }

    private static void send(OutputStream in, String line) throws IOException {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static JsonNode expect(BufferedReader out, int id) throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            JsonNode n;
            try {
                n = JSON.readTree(line);
            } catch (RuntimeException notJson) {
                continue;
            }
            if (n.path("id").asInt(-1) == id) {
                if (n.has("error")) {
                    throw new IOException("request " + id + " failed: " + line);
                }
                return n;
            }
        }
        throw new IOException("the server closed stdout before answering request " + id);
    }
}
