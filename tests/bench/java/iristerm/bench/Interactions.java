package iristerm.bench;

import io.modelcontextprotocol.client.McpSyncClient;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static iristerm.bench.Servers.call;

/**
 * Part 1: one interaction as an agent does it — session_send {@code echo tok$((N))} with wait_ms and
 * until {"pattern": "tokN\r?\n"} (a pipe bash is interactive, so its prompt may precede the output on the same line)
 * — over stdio and HTTP, on a pipe and a PTY session, next to the
 * same interaction on bash driven directly from Java (pipes, and pty4j).
 */
final class Interactions {
    /** Unique tokens across the whole run, so a pattern never matches an earlier interaction's output. */
    static final AtomicLong TOKENS = new AtomicLong(1);

    private Interactions() {
    }

    /** One interaction through MCP; returns its round trip in nanoseconds. */
    static long interact(McpSyncClient client, String session, boolean cat, long waitMs) {
        long n = TOKENS.getAndIncrement();
        // the PTY echoes the typed line: "echo tok$((N))" does not contain "tokN", its output does
        String text = cat ? "tok" + n : "echo tok$((" + n + "))";
        long t0 = System.nanoTime();
        Map<String, Object> r = call(client, "session_send", "session", session, "text", text, "wait_ms", waitMs,
                "until", Map.of("pattern", "tok" + n + "\\r?\\n"));
        long dt = System.nanoTime() - t0;
        Object data = r.get("data");
        if (!"pattern".equals(r.get("reason")) || !(data instanceof String d) || !d.contains("tok" + n)) {
            throw new Servers.CallFailed("interaction tok" + n + " answered reason=" + r.get("reason") + " data="
                    + abbreviate(data));
        }
        return dt;
    }

    static String openBash(McpSyncClient client, String mode) {
        String id = (String) call(client, "session_open", "command", "bash", "args", List.of("--norc", "--noprofile"),
                "mode", mode, "env", Map.of("PS1", "$ "), "wait_ms", 0).get("session");
        if (mode.equals("pty")) {
            Map<String, Object> r = call(client, "session_read", "session", id, "wait_ms", 10_000, "until",
                    Map.of("prompt", true));
            if (!"prompt".equals(r.get("reason"))) {
                throw new Servers.CallFailed("bash in a pty showed no prompt: " + r);
            }
        }
        return id;
    }

    /** Pipe and PTY results of one server: warm-up, then measured interactions alternating the two sessions. */
    record Pair(Stats pipe, Stats pty, Stats firstPipe, int stalls) {
    }

    static void run(Benchmark.Settings s, Report r) throws Exception {
        r.section("1", "Interaction round trip: session_send \"echo tok$((N))\" + wait_ms, until {\"pattern\": "
                + "\"tokN\\r?\\n\"}");
        r.line("  per server: %d warm-up interactions on each of a pipe and a PTY bash (the server JVM's JIT needs "
                + "them), then %d measured on each, alternating; floor = the same line written to bash by this JVM "
                + "and read back on the calling thread, no MCP", s.warmup(), s.iterations());
        Stats[] floors = floors(s);

        Path dir = Files.createTempDirectory("itm-bench-rt");
        Pair stdio;
        McpSyncClient client = Servers.stdio(Servers.jarStdio(s.jar()), dir.resolve("stdio"), List.of());
        try {
            stdio = measure(s, r, client, "stdio");
        } finally {
            Servers.closeQuietly(client);
        }
        Pair http;
        try (Servers.Http server = new Servers.Http(s.jar(), dir.resolve("http"), List.of())) {
            http = measure(s, r, server.connect(), "http");
        }
        Stats raw = raw(s, dir.resolve("raw"));
        Servers.deleteTree(dir);

        r.latencyHeader();
        r.latency("floor: bash on pipes, direct (ProcessBuilder)", floors[0], "");
        r.latency("floor: bash in a PTY, direct (pty4j)", floors[1], "");
        row(r, "MCP stdio, pipe session", stdio.pipe(), floors[0], 1.0, "stdio");
        row(r, "MCP stdio, pty session", stdio.pty(), floors[1], 1.0, "stdio");
        row(r, "MCP HTTP, pipe session", http.pipe(), floors[0], 2.0, "HTTP");
        row(r, "MCP HTTP, pty session", http.pty(), floors[1], 2.0, "HTTP");
        r.latency("(info) stdio pipe, raw JSON-RPC client, no SDK", raw, String.format(Locale.ROOT,
                "+%.3f ms: the server's share, without the SDK client", raw.medianMs() - floors[0].medianMs()));
        r.latency("(info) stdio pipe, first 100 after server start", stdio.firstPipe(), "JIT warm-up, not a target");
        r.latency("(info) HTTP pipe, first 100 after server start", http.firstPipe(), "JIT warm-up, not a target");
        int stalls = stdio.stalls() + http.stalls();
        r.line("  stalls: interactions (warm-up included) that took >= 1 s although their output had come (reason "
                + "pattern, the wait ran to wait_ms): %d", stalls);
        if (stalls > 0) {
            r.target("no reads stalled to wait_ms (part 1)", false, stalls + " interaction(s) ran to wait_ms ("
                    + s.waitMs() + " ms) with their output there: a missed wake-up in the read wait");
        }
    }

    private static void row(Report r, String path, Stats mcp, Stats floor, double targetMs, String transport) {
        double over = mcp.medianMs() - floor.medianMs();
        boolean met = over <= targetMs;
        String tail = String.format(Locale.ROOT, "+%.3f ms (target <= %.0f ms) %s", over, targetMs,
                met ? "met" : "MISSED");
        r.latency(path, mcp, tail);
        r.target("MCP overhead over the floor, " + path.substring(4), met,
                String.format(Locale.ROOT, "+%.3f ms median (%.3f vs floor %.3f; target <= %.0f ms %s)", over,
                        mcp.medianMs(), floor.medianMs(), targetMs, transport));
    }

    private static Pair measure(Benchmark.Settings s, Report r, McpSyncClient c, String where) {
        String pipe = openBash(c, "pipe");
        String pty = openBash(c, "pty");
        try {
            long[] first = new long[Math.min(100, s.warmup())];
            int stalls = 0;
            for (int i = 0; i < s.warmup(); i++) {
                long t = interact(c, pipe, false, s.waitMs());
                if (i < first.length) {
                    first[i] = t;
                }
                stalls += t >= 1_000_000_000L ? 1 : 0;
                stalls += interact(c, pty, false, s.waitMs()) >= 1_000_000_000L ? 1 : 0;
            }
            long[] tPipe = new long[s.iterations()];
            long[] tPty = new long[s.iterations()];
            int okPipe = 0;
            int okPty = 0;
            int errors = 0;
            for (int i = 0; i < s.iterations(); i++) {
                for (boolean isPty : new boolean[]{false, true}) {
                    try {
                        long t = interact(c, isPty ? pty : pipe, false, s.waitMs());
                        stalls += t >= 1_000_000_000L ? 1 : 0;
                        if (isPty) {
                            tPty[okPty++] = t;
                        } else {
                            tPipe[okPipe++] = t;
                        }
                    } catch (RuntimeException e) {
                        r.error(where + (isPty ? " pty" : " pipe"), e.getMessage());
                        if (++errors > 5) {
                            throw e;
                        }
                    }
                }
            }
            return new Pair(Stats.of(Arrays.copyOf(tPipe, okPipe)), Stats.of(Arrays.copyOf(tPty, okPty)),
                    Stats.of(first), stalls);
        } finally {
            call(c, "session_close", "session", pipe, "force", true);
            call(c, "session_close", "session", pty, "force", true);
        }
    }

    /** The same pipe interaction through {@link RawStdio}: what the server costs without the SDK client. */
    private static Stats raw(Benchmark.Settings s, Path dir) throws Exception {
        try (RawStdio c = new RawStdio(Servers.jarStdio(s.jar()), dir, List.of(), Duration.ofSeconds(300))) {
            String id = openRawBash(c);
            long[] t = new long[s.iterations()];
            for (int i = -s.warmup(); i < t.length; i++) {
                long dt = rawInteract(c, id, s.waitMs());
                if (i >= 0) {
                    t[i] = dt;
                }
            }
            return Stats.of(t);
        }
    }

    /** One pipe interaction through {@link RawStdio} (safe from several threads); its round trip in nanoseconds. */
    static long rawInteract(RawStdio c, String session, long waitMs) throws IOException {
        long n = TOKENS.getAndIncrement();
        long t0 = System.nanoTime();
        var m = c.call("session_send", "session", session, "text", "echo tok$((" + n + "))", "wait_ms", waitMs,
                "until", Map.of("pattern", "tok" + n + "\\r?\\n"));
        long dt = System.nanoTime() - t0;
        if (!"pattern".equals(m.path("reason").asString(""))) {
            throw new Servers.CallFailed("interaction tok" + n + " answered " + abbreviate(m));
        }
        return dt;
    }

    /** A bash on pipes in a raw client's server, as the measured interactions use it. */
    static String openRawBash(RawStdio c) throws IOException {
        return c.call("session_open", "command", "bash", "args", List.of("--norc", "--noprofile"), "mode", "pipe", "wait_ms", 0)
                .path("session").asString();
    }

    /** Floors of both kinds, alternating like the measured interactions. */
    private static Stats[] floors(Benchmark.Settings s) throws Exception {
        DirectShell pipe = DirectShell.pipe();
        DirectShell pty = DirectShell.pty();
        try (pipe; pty; AutoCloseable dog = Servers.watchdog(Duration.ofSeconds(300), () -> {
            pipe.kill();
            pty.kill();
        })) {
            pty.awaitPrompt();
            long[] tPipe = new long[s.iterations()];
            long[] tPty = new long[s.iterations()];
            for (int i = -s.warmup(); i < s.iterations(); i++) {
                long t0 = System.nanoTime();
                pipe.roundTrip(TOKENS.getAndIncrement());
                long t1 = System.nanoTime();
                pty.roundTrip(TOKENS.getAndIncrement());
                long t2 = System.nanoTime();
                if (i >= 0) {
                    tPipe[i] = t1 - t0;
                    tPty[i] = t2 - t1;
                }
            }
            return new Stats[]{Stats.of(tPipe), Stats.of(tPty)};
        }
    }

    static String abbreviate(Object o) {
        String s = String.valueOf(o);
        return s.length() > 120 ? s.substring(0, 120) + "…" : s;
    }
}
