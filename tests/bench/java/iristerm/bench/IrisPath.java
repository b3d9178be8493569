package iristerm.bench;

import io.modelcontextprotocol.client.McpSyncClient;
import iristerm.iris.FakeIrisCalls;
import iristerm.iris.IrisApi;
import iristerm.iris.IrisEngine;
import iristerm.iris.JobLink;
import iristerm.iris.KeptOutput;
import iristerm.session.SessionState;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static iristerm.bench.Servers.call;

/**
 * Part 5: iris_execute {@code write "tok"} through the server with the contract fake in place of
 * IRIS (FakeIrisStdioMain over stdio): the cost of the Java side. The floor is the fake alone, driven
 * in this JVM by the engine over its link. Against a live IRIS only when
 * IRIS_HOSTNAME is set.
 */
final class IrisPath {
    private static final String CODE = "write \"tok\"";

    private IrisPath() {
    }

    static void run(Benchmark.Settings s, Report r) throws Exception {
        r.section("5", "IRIS path: iris_execute write \"tok\" round trip");
        r.line("  %d warm-up then %d measured; fake = tests' FakeIrisCalls (docs/iris-contract.md) in the server JVM",
                s.warmup(), s.iterations());
        Stats floor = fakeDirect(s);
        Path dir = Files.createTempDirectory("itm-bench-iris");
        Stats fake;
        try {
            List<String> launch = List.of("-cp", System.getProperty("java.class.path"),
                    "iristerm.e2e.FakeIrisStdioMain", "--process", "off");
            McpSyncClient c = Servers.stdio(launch, dir, List.of());
            try {
                fake = measure(s, r, c, "iris fake");
            } finally {
                Servers.closeQuietly(c);
            }
        } finally {
            Servers.deleteTree(dir);
        }
        r.latencyHeader();
        r.latency("floor: the fake alone, engine over the link in this JVM", floor, "");
        r.latency("MCP stdio, iris_execute, fake IRIS", fake, String.format(Locale.ROOT,
                "+%.3f ms (Java side: MCP + engine; no target)", fake.medianMs() - floor.medianMs()));

        String host = System.getenv("IRIS_HOSTNAME");
        if (host == null || host.isBlank()) {
            r.line("  live IRIS: skipped (IRIS_HOSTNAME is not set; set IRIS_HOSTNAME, IRIS_PORT, IRIS_NAMESPACE, "
                    + "IRIS_USERNAME, IRIS_PASSWORD with the Terminal classes installed to measure it)");
            return;
        }
        Path live = Files.createTempDirectory("itm-bench-live");
        try {
            McpSyncClient c = Servers.stdio(Servers.jarStdio(s.jar()), live, List.of("--process", "off"));
            try {
                Stats st = measure(s, r, c, "iris live");
                r.latency("MCP stdio, iris_execute, live IRIS at " + host, st, "(no floor measured)");
            } finally {
                Servers.closeQuietly(c);
            }
        } finally {
            Servers.deleteTree(live);
        }
    }

    private static Stats measure(Benchmark.Settings s, Report r, McpSyncClient c, String where) {
        String session = (String) call(c, "session_open", "kind", "iris").get("session");
        for (int i = 0; i < s.warmup(); i++) {
            execute(c, session);
        }
        long[] t = new long[s.iterations()];
        int ok = 0;
        for (int i = 0; i < t.length; i++) {
            try {
                t[ok] = execute(c, session);
                ok++;
            } catch (RuntimeException e) {
                r.error(where, e.getMessage());
                if (i - ok > 5) {
                    throw e;
                }
            }
        }
        call(c, "session_close", "session", session);
        return Stats.of(Arrays.copyOf(t, ok));
    }

    private static long execute(McpSyncClient c, String session) {
        long t0 = System.nanoTime();
        Map<String, Object> m = call(c, "iris_execute", "session", session, "code", CODE, "timeout_ms", 10_000);
        long dt = System.nanoTime() - t0;
        if (!"ok".equals(m.get("status")) || !"tok".equals(m.get("output"))) {
            throw new Servers.CallFailed("iris_execute answered " + Interactions.abbreviate(m));
        }
        return dt;
    }

    /** The fake's job driven directly by the engine over its link in this JVM: execute, then wait for its done mark. */
    private static Stats fakeDirect(Benchmark.Settings s) throws InterruptedException {
        FakeIrisCalls fake = new FakeIrisCalls("_SYSTEM");
        IrisApi api = new IrisApi(fake);
        KeptOutput sink = new KeptOutput();
        try (JobLink link = new JobLink(fake.linkAddress())) {
            IrisEngine engine = new IrisEngine(api, link.start(api, null, null),
                    new IrisEngine.Attribution("bench", "bench", null), null, sink, "bench");
            try {
                if (!engine.awaitStarted(10_000)) {
                    throw new IllegalStateException("the fake's job showed no prompt");
                }
                for (int i = 0; i < s.warmup(); i++) {
                    direct(engine, sink);
                }
                long[] t = new long[s.iterations()];
                for (int i = 0; i < t.length; i++) {
                    t[i] = direct(engine, sink);
                }
                return Stats.of(t);
            } finally {
                engine.terminate(true, 0);
            }
        } finally {
            fake.shutdown();
        }
    }

    private static long direct(IrisEngine engine, KeptOutput sink) throws InterruptedException {
        long t0 = System.nanoTime();
        long n = engine.execute(CODE, false);
        if (!sink.await(() -> engine.done(n) != null && engine.state() == SessionState.idle, 30_000)) {
            throw new IllegalStateException("the fake did not finish a command within 30 s");
        }
        return System.nanoTime() - t0;
    }
}
