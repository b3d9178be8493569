package iristerm.bench;

import io.modelcontextprotocol.client.McpSyncClient;
import iristerm.iris.FakeIrisCalls;
import iristerm.iris.IrisApi;
import iristerm.iris.IrisMethod;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static iristerm.bench.Servers.call;

/**
 * Part 5: iris_execute {@code write "tok"} through the server with the contract fake in place of
 * IRIS (FakeIrisStdioMain over stdio): the cost of the Java side. The floor is the fake alone, driven
 * in this JVM with the same Send and Read calls the engine makes. Against a live IRIS only when
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
        r.latency("floor: the fake alone, Send+Read in this JVM", floor, "");
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

    /** The fake driven directly: Send(execute) then Read until the command's done event and the prompt. */
    private static Stats fakeDirect(Benchmark.Settings s) {
        FakeIrisCalls fake = new FakeIrisCalls("_SYSTEM");
        try {
            IrisApi api = new IrisApi(fake);
            JsonNode opened = api.call(IrisMethod.OPEN, IrisApi.request().put("agent", "bench").put("idle_timeout_s", 600));
            String id = opened.path("session").asString();
            long[] cursor = {0, 0};
            readUntil(api, id, cursor, -1);
            for (int i = 0; i < s.warmup(); i++) {
                direct(api, id, cursor);
            }
            long[] t = new long[s.iterations()];
            for (int i = 0; i < t.length; i++) {
                t[i] = direct(api, id, cursor);
            }
            return Stats.of(t);
        } finally {
            fake.shutdown();
        }
    }

    private static long direct(IrisApi api, String id, long[] cursor) {
        long t0 = System.nanoTime();
        long seq = api.call(IrisMethod.SEND, IrisApi.request().put("session", id).put("text", CODE)
                .put("execute", true).put("secret", false)).path("seq").asLong();
        String out = readUntil(api, id, cursor, seq);
        long dt = System.nanoTime() - t0;
        if (!out.contains("tok")) {
            throw new IllegalStateException("the fake wrote " + out);
        }
        return dt;
    }

    /** Reads until command {@code seq} is done (or, for -1, the session is idle) and all output is in. */
    private static String readUntil(IrisApi api, String id, long[] cursor, long seq) {
        StringBuilder out = new StringBuilder();
        boolean done = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            JsonNode r = api.call(IrisMethod.READ, IrisApi.request().put("session", id).put("from", cursor[0])
                    .put("ev", cursor[1]).put("max", 65536).put("wait_ms", 10_000));
            String data = r.path("data").asString("");
            out.append(data);
            cursor[0] += data.length();
            cursor[1] = r.path("ev_next").asLong(cursor[1]);
            List<JsonNode> events = new ArrayList<>();
            r.path("events").forEach(events::add);
            for (JsonNode ev : events) {
                if ("done".equals(ev.path("type").asString("")) && ev.path("seq").asLong() == seq) {
                    done = true;
                }
            }
            boolean idle = "idle".equals(r.path("state").asString(""));
            if ((done || (seq < 0 && idle)) && cursor[0] >= r.path("end").asLong(0) && idle) {
                return out.toString();
            }
        }
        throw new IllegalStateException("the fake did not finish command " + seq);
    }
}
