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
import java.util.concurrent.TimeUnit;

/**
 * Part 4: a fresh server JVM over stdio, spoken to in raw JSON-RPC lines (no client library in the
 * measurement): process start to the initialize answer, and to the first session_open answer.
 */
final class ColdStart {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    private static final String OPEN = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"session_open\",\"arguments\":{\"command\":\"cat\",\"mode\":\"pipe\",\"wait_ms\":0}}}";

    private ColdStart() {
    }

    record Run(long initNanos, long openNanos) {
    }

    static void run(Benchmark.Settings s, Report r) throws Exception {
        r.section("4", "Cold start over stdio: JVM start to initialize answered, and to the first session_open answered");
        r.line("  raw JSON-RPC lines on the server's stdin/stdout; 1 unmeasured run first (file cache), then %d runs",
                s.coldRuns());
        Path dir = Files.createTempDirectory("itm-bench-cold");
        try {
            once(s.jar(), dir.resolve("warm"));
            javaVersion();
            long[] init = new long[s.coldRuns()];
            long[] open = new long[s.coldRuns()];
            long[] floor = new long[s.coldRuns()];
            for (int i = 0; i < s.coldRuns(); i++) {
                Run run = once(s.jar(), dir.resolve("run" + i));
                init[i] = run.initNanos();
                open[i] = run.openNanos();
                floor[i] = javaVersion();
            }
            Stats fl = Stats.of(floor);
            Stats in = Stats.of(init);
            Stats op = Stats.of(open);
            r.latencyHeader();
            r.latency("floor: JVM start to exit (java -version)", fl, "");
            boolean met = in.medianMs() <= 700;
            r.latency("JVM start to initialize answered", in, String.format(Locale.ROOT,
                    "+%.0f ms; target <= 700 ms on 2 cores %s", in.medianMs() - fl.medianMs(), met ? "met" : "MISSED"));
            r.latency("JVM start to first session_open answered", op, String.format(Locale.ROOT,
                    "+%.0f ms", op.medianMs() - fl.medianMs()));
            r.target("cold start to initialize", met, String.format(Locale.ROOT,
                    "%.0f ms median (target <= 700 ms; floor java -version %.0f ms; to first session_open %.0f ms)",
                    in.medianMs(), fl.medianMs(), op.medianMs()));
            if (!s.smoke()) {
                withArchive(s, r, dir);
            }
        } finally {
            Servers.deleteTree(dir);
        }
    }

    private static Run once(Path jar, Path dataDir) throws Exception {
        return once(jar, dataDir, List.of());
    }

    private static Run once(Path jar, Path dataDir, List<String> jvmOptions) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Servers.java());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", jar.toString(), "stdio", "--data-dir", dataDir.toString()));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (AutoCloseable dog = Servers.watchdog(Duration.ofSeconds(60), p::destroyForcibly);
             BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            OutputStream in = p.getOutputStream();
            send(in, INITIALIZE);
            expect(out, 1);
            long init = System.nanoTime() - t0;
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

    /**
     * What a class-data-sharing archive would give (JDK 17 AppCDS): one training run writes it with
     * -XX:ArchiveClassesAtExit, then the same runs start with -XX:SharedArchiveFile. Information for
     * the packaging, not a target.
     */
    private static void withArchive(Benchmark.Settings s, Report r, Path dir) throws Exception {
        Path jsa = dir.resolve("app.jsa");
        List<String> quiet = List.of("-Xlog:disable", "-Xlog:all=warning:stderr");
        List<String> dump = new ArrayList<>(quiet);
        dump.add("-XX:ArchiveClassesAtExit=" + jsa);
        once(s.jar(), dir.resolve("train"), dump);
        if (!Files.isRegularFile(jsa)) {
            r.line("  (info) AppCDS: no archive was written; skipped");
            return;
        }
        List<String> use = new ArrayList<>(quiet);
        use.add("-XX:SharedArchiveFile=" + jsa);
        List<String> useC1 = new ArrayList<>(use);
        useC1.add("-XX:TieredStopAtLevel=1");
        for (List<String> opts : List.of(use, useC1)) {
            long[] init = new long[s.coldRuns()];
            for (int i = 0; i < init.length; i++) {
                init[i] = once(s.jar(), dir.resolve("cds" + i), opts).initNanos();
            }
            r.latency(opts == use ? "(info) to initialize, with an AppCDS archive" : "(info) AppCDS + TieredStopAtLevel=1",
                    Stats.of(init), "JVM options the launcher could add; not a target");
        }
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
