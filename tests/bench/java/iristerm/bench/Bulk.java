package iristerm.bench;

import io.modelcontextprotocol.client.McpSyncClient;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static iristerm.bench.Servers.call;
import static iristerm.bench.Servers.num;

/**
 * Part 2: bulk output produced by the session's process ({@code yes <99 x> | head -c N}: lines of
 * 100 bytes), delivered to an agent paging 1 MiB at a time and spilled with to_file, next to
 * {@code cat} of the same bytes into a file.
 */
final class Bulk {
    static final int PAGE = 1 << 20;

    private Bulk() {
    }

    static String generator(long bytes) {
        return "yes " + "x".repeat(99) + " | head -c " + bytes;
    }

    static void run(Benchmark.Settings s, Report r) throws Exception {
        long n = s.bulkBytes();
        long warm = Math.max(PAGE, n / 10);
        r.section("2", String.format(Locale.ROOT, "Bulk output: %.0f MB from the session's process (%s)", n / 1e6,
                generator(n).replace(" | head -c " + n, " | head -c N")));
        r.line("  time from session_open to the last byte delivered; one %.0f MB warm-up per path first", warm / 1e6);
        Path dir = Files.createTempDirectory("itm-bench-bulk");
        catFloor(dir, warm, r);
        double floorCat = seconds(catFloor(dir, n, r));
        seconds(javaFloor(warm));
        double floorJava = seconds(javaFloor(n));

        double stdioPage;
        double stdioFile;
        double stdioFileStrip = Double.NaN;
        McpSyncClient stdio = Servers.stdio(Servers.jarStdio(s.jar()), dir.resolve("stdio"), List.of());
        try {
            page(stdio, warm);
            stdioPage = seconds(page(stdio, n));
            toFile(stdio, dir.resolve("stdio"), warm, false);
            stdioFile = seconds(toFile(stdio, dir.resolve("stdio"), n, false));
            if (!s.smoke()) {
                stdioFileStrip = seconds(toFile(stdio, dir.resolve("stdio"), n, true));
            }
        } finally {
            Servers.closeQuietly(stdio);
        }
        double httpPage;
        try (Servers.Http http = new Servers.Http(s.jar(), dir.resolve("http"), List.of())) {
            McpSyncClient c = http.connect();
            page(c, warm);
            httpPage = seconds(page(c, n));
        }
        double rawPage;
        try (RawStdio raw = new RawStdio(Servers.jarStdio(s.jar()), dir.resolve("raw"), List.of(),
                Duration.ofSeconds(300))) {
            rawPage(raw, warm);
            rawPage = seconds(rawPage(raw, n));
        }
        Servers.deleteTree(dir);

        r.line("  %-48s %9s %9s  %s", "path", "seconds", "MB/s", "vs floor / target");
        double floorRate = rate(n, floorCat);
        r.line("  %-48s %9.3f %9.1f", "floor: generator | cat > file (same run)", floorCat, floorRate);
        r.line("  %-48s %9.3f %9.1f  (not a floor: no disk)", "raw: generator's pipe read by this JVM", floorJava,
                rate(n, floorJava));
        bulkRow(r, "MCP stdio, pages of 1 MiB (force, strip_ansi false)", n, stdioPage, floorRate, 50, true);
        bulkRow(r, "MCP HTTP, pages of 1 MiB (force, strip_ansi false)", n, httpPage, floorRate, 50, true);
        bulkRow(r, "(info) stdio pages, raw JSON-RPC client, no SDK", n, rawPage, floorRate, 50, false);
        bulkRow(r, "MCP stdio, to_file (strip_ansi false)", n, stdioFile, floorRate, 100, true);
        if (!Double.isNaN(stdioFileStrip)) {
            bulkRow(r, "MCP stdio, to_file (strip_ansi default: true)", n, stdioFileStrip, floorRate, 100, false);
        }
    }

    private static void bulkRow(Report r, String path, long n, double seconds, double floorRate, double target,
                                boolean isTarget) {
        double mbs = rate(n, seconds);
        boolean met = mbs >= target;
        r.line("  %-48s %9.3f %9.1f  %3.0f%% of floor; target >= %.0f MB/s %s", path, seconds, mbs,
                100 * mbs / floorRate, target, isTarget ? (met ? "met" : "MISSED") : "(info)");
        if (isTarget) {
            r.target("bulk " + path.substring(4), met, String.format(Locale.ROOT,
                    "%.1f MB/s (target >= %.0f; floor cat > file %.1f MB/s)", mbs, target, floorRate));
        }
    }

    private static double rate(long bytes, double seconds) {
        return bytes / 1e6 / seconds;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /** The floor: the same generator with its bytes written to a file by {@code cat}. */
    private static long catFloor(Path dir, long n, Report r) throws Exception {
        Path file = dir.resolve("floor.out");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("bash", "-c", generator(n) + " | cat > '" + file + "'").start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("the cat floor did not finish in 120 s");
        }
        long dt = System.nanoTime() - t0;
        if (Files.size(file) != n) {
            r.error("bulk floor", "cat wrote " + Files.size(file) + " bytes, expected " + n);
        }
        Files.delete(file);
        return dt;
    }

    /** For scale: the generator's pipe drained by this JVM, nothing stored. */
    private static long javaFloor(long n) throws Exception {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("bash", "-c", generator(n)).redirectErrorStream(true).start();
        long got = 0;
        try (AutoCloseable dog = Servers.watchdog(Duration.ofSeconds(120), p::destroyForcibly);
             InputStream in = p.getInputStream()) {
            byte[] buf = new byte[PAGE];
            int k;
            while ((k = in.read(buf)) >= 0) {
                got += k;
            }
        }
        p.waitFor(10, TimeUnit.SECONDS);
        long dt = System.nanoTime() - t0;
        if (got != n) {
            throw new IOException("the generator gave " + got + " bytes, expected " + n);
        }
        return dt;
    }

    private static String openGenerator(McpSyncClient c, long n) {
        return (String) call(c, "session_open", "command", "bash", "args", List.of("-c", generator(n)),
                "mode", "pipe", "name", "bulk", "wait_ms", 0).get("session");
    }

    /** An agent paging through the output: session_read force:true, 1 MiB at a time, until all has come. */
    static long page(McpSyncClient c, long n) {
        long t0 = System.nanoTime();
        String id = openGenerator(c, n);
        long got = 0;
        long deadline = t0 + TimeUnit.SECONDS.toNanos(300);
        while (got < n) {
            Map<String, Object> m = call(c, "session_read", "session", id, "wait_ms", 30_000, "max_bytes", PAGE,
                    "force", true, "strip_ansi", false, "until", "data");
            long b = num(m, "bytes");
            String data = (String) m.get("data");
            if (data == null || data.length() != b) {
                throw new Servers.CallFailed("a page said " + b + " bytes but carried "
                        + (data == null ? "no data" : data.length() + " characters"));
            }
            got += b;
            if ((b == 0 && "exit".equals(m.get("reason"))) || System.nanoTime() > deadline) {
                throw new Servers.CallFailed("paging stopped at " + got + " of " + n + " bytes: " + m.get("reason"));
            }
        }
        long dt = System.nanoTime() - t0;
        call(c, "session_close", "session", id, "force", true);
        return dt;
    }

    /** The same paging through {@link RawStdio}: the server's share without the SDK client. */
    static long rawPage(RawStdio c, long n) throws IOException {
        long t0 = System.nanoTime();
        String id = c.call("session_open", "command", "bash", "args", List.of("-c", generator(n)), "mode", "pipe",
                "name", "bulk", "wait_ms", 0).path("session").asString();
        long got = 0;
        while (got < n) {
            var m = c.call("session_read", "session", id, "wait_ms", 30_000, "max_bytes", PAGE, "force", true,
                    "strip_ansi", false, "until", "data");
            long b = m.path("bytes").asLong();
            if (m.path("data").asString("").length() != b) {
                throw new Servers.CallFailed("a raw page said " + b + " bytes but carried other data");
            }
            got += b;
            if (b == 0 && "exit".equals(m.path("reason").asString(""))) {
                throw new Servers.CallFailed("raw paging stopped at " + got + " of " + n + " bytes");
            }
        }
        long dt = System.nanoTime() - t0;
        c.call("session_close", "session", id, "force", true);
        return dt;
    }

    /** All of the output spilled to a file with to_file, waiting until the process has exited. */
    static long toFile(McpSyncClient c, Path dataDir, long n, boolean stripAnsi) throws IOException {
        long t0 = System.nanoTime();
        String id = openGenerator(c, n);
        long got = 0;
        long onDisk = 0;
        for (int part = 0; got < n && part < 20; part++) {
            String name = "bench/bulk-" + part + ".out";
            Map<String, Object> m = call(c, "session_read", "session", id, "wait_ms", 55_000,
                    "until", Map.of("exit", true), "to_file", name, "strip_ansi", stripAnsi);
            got += num(m, "bytes");
            onDisk += Files.size(dataDir.resolve("files").resolve(name));
        }
        long dt = System.nanoTime() - t0;
        call(c, "session_close", "session", id, "force", true);
        Servers.deleteTree(dataDir.resolve("files").resolve("bench"));
        if (got != n || onDisk != n) {
            throw new Servers.CallFailed("to_file delivered " + got + " bytes (" + onDisk + " on disk), expected " + n);
        }
        return dt;
    }
}
