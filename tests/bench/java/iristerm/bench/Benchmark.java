package iristerm.bench;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures iris-terminal-mcp the way an agent uses it, each figure next to the raw floor measured
 * in the same run: (1) interaction round trip, (2) bulk output, (3) scale, (4) cold start, (5) the
 * IRIS path against the contract fake (and a live IRIS when IRIS_HOSTNAME is set), (6) the first
 * calls after a start through bin/iris-terminal-mcp.
 *
 * <p>Run: {@code mvn -B -Pbench verify} (or, after a build, {@code java -cp <test classpath>
 * iristerm.bench.Benchmark [--smoke] [--only=1,3] [--out=FILE]}). The smoke settings run inside
 * {@code mvn verify} as {@code BenchmarkSmokeIT}, so the benchmark cannot rot.
 */
public final class Benchmark {

    /** How much of each part to do. */
    public record Settings(boolean smoke, Path jar, int warmup, int iterations, long bulkBytes,
                           int scaleSessions, int scaleClients, int scaleRounds, int scaleOutputBytes,
                           int coldRuns, long waitMs, List<Integer> only) {

        public static Settings full(Path jar) {
            return new Settings(false, jar, 1000, 500, 100_000_000L, 200, 20, 100, 1_000_000, 5, 10_000, List.of());
        }

        /** A few iterations of every part: proves each runs end to end, in well under a minute. */
        public static Settings smoke(Path jar) {
            return new Settings(true, jar, 5, 20, 4_000_000L, 40, 20, 3, 100_000, 1, 3_000, List.of());
        }

        Settings only(List<Integer> parts) {
            return new Settings(smoke, jar, warmup, iterations, bulkBytes, scaleSessions, scaleClients, scaleRounds,
                    scaleOutputBytes, coldRuns, waitMs, parts);
        }

        boolean runs(int part) {
            return only.isEmpty() || only.contains(part);
        }
    }

    /** What a run found: the errors, the sections it printed, and the targets. */
    public record Outcome(int errors, List<String> sections, List<String> missedTargets) {
    }

    private Benchmark() {
    }

    public static void main(String[] argv) throws IOException {
        quietLogs();
        boolean smoke = false;
        List<Integer> only = new ArrayList<>();
        Path outFile = null;
        // one Maven property may carry several options: split every argument on whitespace
        List<String> words = new ArrayList<>();
        for (String a : argv) {
            for (String w : a.trim().split("\\s+")) {
                if (!w.isEmpty()) {
                    words.add(w);
                }
            }
        }
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            String key = w.contains("=") ? w.substring(0, w.indexOf('=')) : w;
            String value = w.contains("=") ? w.substring(w.indexOf('=') + 1)
                    : (key.equals("--only") || key.equals("--out")) && i + 1 < words.size() ? words.get(++i) : null;
            switch (key) {
                case "--smoke" -> smoke = true;
                case "--only" -> {
                    for (String p : value.split(",")) {
                        only.add(Integer.parseInt(p.trim()));
                    }
                }
                case "--out" -> outFile = Path.of(value);
                default -> {
                    System.err.println("usage: Benchmark [--smoke] [--only=1,2,3,4,5,6] [--out=FILE]");
                    System.exit(2);
                }
            }
        }
        Path jar = Path.of(System.getProperty("iristerm.jar", "target/iris-terminal-mcp.jar")).toAbsolutePath();
        Settings settings = (smoke ? Settings.smoke(jar) : Settings.full(jar)).only(only);
        PrintStream out = System.out;
        OutputStream file = null;
        if (outFile != null) {
            if (outFile.toAbsolutePath().getParent() != null) {
                Files.createDirectories(outFile.toAbsolutePath().getParent());
            }
            file = new FileOutputStream(outFile.toFile());
            out = new PrintStream(new Tee(System.out, file), true, StandardCharsets.UTF_8);
        }
        Outcome o = run(settings, out);
        out.flush();
        if (file != null) {
            file.close();
            System.out.println("(results also written to " + outFile + ")");
        }
        System.exit(o.errors() == 0 ? 0 : 1);
    }

    /** The SDK and the server log at info by default; the benchmark's own output is what matters. */
    static void quietLogs() {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
    }

    public static Outcome run(Settings s, PrintStream out) {
        quietLogs();
        Report r = new Report(out);
        long started = System.nanoTime();
        header(s, r);
        if (!Files.isRegularFile(s.jar())) {
            r.error("setup", "no server jar at " + s.jar() + "; build it first (mvn -B package -DskipTests)");
        } else {
            part(s, r, 1, () -> Interactions.run(s, r));
            part(s, r, 2, () -> Bulk.run(s, r));
            part(s, r, 3, () -> Scale.run(s, r));
            part(s, r, 4, () -> ColdStart.run(s, r));
            part(s, r, 5, () -> IrisPath.run(s, r));
            part(s, r, 6, () -> FirstCalls.run(s, r));
        }
        r.summary();
        r.line("== finished in %.1f s", (System.nanoTime() - started) / 1e9);
        List<String> missed = r.targets().stream().filter(t -> !t.met()).map(Report.Target::what).toList();
        return new Outcome(r.errorCount(), r.sections(), missed);
    }

    interface Part {
        void run() throws Exception;
    }

    private static void part(Settings s, Report r, int n, Part p) {
        if (!s.runs(n)) {
            return;
        }
        long t0 = System.nanoTime();
        try {
            p.run();
        } catch (Exception | AssertionError e) {
            r.error("part " + n, e.toString());
        }
        r.line("  (part %d took %.1f s; load average now %s)", n, (System.nanoTime() - t0) / 1e9, loadAverage());
    }

    private static void header(Settings s, Report r) {
        Runtime rt = Runtime.getRuntime();
        r.line("iris-terminal-mcp benchmark (%s settings) — %s", s.smoke() ? "SMOKE" : "full", Instant.now());
        r.line("machine: %d cores (%s), %s RAM; OS: %s %s %s", rt.availableProcessors(), cpuModel(), memTotal(),
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"));
        List<String> own = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-X")).toList();
        r.line("JVM: %s %s (%s); this (client) JVM's options: %s; servers: as the part says (java -jar: none; "
                        + "bin/iris-terminal-mcp: its own)",
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                System.getProperty("java.vm.vendor"), own.isEmpty() ? "none" : String.join(" ", own));
        r.line("server: %s (a child JVM per run); client: MCP Java SDK client in this JVM (pid %d)", s.jar(),
                ProcessHandle.current().pid());
        r.line("units: ms = 10^-3 s, MB = 10^6 bytes, MiB = 2^20 bytes; latencies are wall-clock System.nanoTime; "
                + "percentiles are nearest-rank");
        List<String> cfg = new ArrayList<>();
        cfg.add(s.warmup() + " warm-up + " + s.iterations() + " measured interactions");
        cfg.add(String.format(Locale.ROOT, "bulk %.0f MB", s.bulkBytes() / 1e6));
        cfg.add(s.scaleSessions() + " sessions x " + s.scaleClients() + " clients x " + s.scaleRounds() + " rounds");
        cfg.add(s.coldRuns() + " cold starts");
        cfg.add("wait_ms " + s.waitMs());
        r.line("settings: " + String.join(", ", cfg) + (s.only().isEmpty() ? "" : "; parts " + s.only()));
        r.line("load average at start: %s (other work on the machine skews every figure; the floors share it)",
                loadAverage());
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    private static String memTotal() {
        try {
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            return String.format(Locale.ROOT, "%.1f GiB", os.getTotalMemorySize() / (double) (1L << 30));
        } catch (RuntimeException | LinkageError e) {
            return "?";
        }
    }

    /** Writes to two streams: the console and the results file. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }
}
