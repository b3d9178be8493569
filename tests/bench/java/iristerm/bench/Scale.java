package iristerm.bench;

import io.modelcontextprotocol.client.McpSyncClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static iristerm.bench.Servers.call;
import static iristerm.bench.Servers.num;

/**
 * Part 3: many sessions open at once ({@code cat} on pipes) on one HTTP server, several clients
 * doing interactions across them concurrently; the server's heap and RSS per session, idle and after
 * each session has produced output.
 */
final class Scale {
    private Scale() {
    }

    /** Runs {@code task(client index)} on every client at once; returns when all are done (bounded). */
    interface ClientTask {
        void run(int client) throws Exception;
    }

    private static void onAll(int clients, Duration limit, Report r, String where, ClientTask task)
            throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int k = c;
                fs.add(pool.submit(() -> {
                    task.run(k);
                    return null;
                }));
            }
            long deadline = System.nanoTime() + limit.toNanos();
            for (Future<?> f : fs) {
                try {
                    f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    r.error(where, String.valueOf(e.getCause()));
                } catch (java.util.concurrent.TimeoutException e) {
                    r.error(where, "a client did not finish within " + limit.toSeconds() + " s");
                    f.cancel(true);
                }
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    /** live heap after a full GC, heap committed by the JVM, resident set size; bytes, -1 if unknown */
    record Memory(long heap, long committed, long rss) {
    }

    static void run(Benchmark.Settings s, Report r) throws Exception {
        int n = s.scaleSessions();
        int clients = s.scaleClients();
        int rounds = s.scaleRounds();
        r.section("3", String.format(Locale.ROOT, "Scale: %d sessions (cat on pipes) open at once on one HTTP server, "
                + "%d concurrent clients", n, clients));
        Path dir = Files.createTempDirectory("itm-bench-scale");
        int inputLimit = Math.max(1 << 20, s.scaleOutputBytes() + 4096);
        try (Servers.Http http = new Servers.Http(s.jar(), dir, List.of("--max-sessions", "256",
                "--max-input-bytes", Integer.toString(inputLimit)))) {
            long pid = http.pid();
            List<McpSyncClient> cs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                cs.add(http.connect());
            }
            // warm-up: every client runs interactions on a session of its own, concurrently
            onAll(clients, Duration.ofSeconds(300), r, "scale warm-up", c -> {
                McpSyncClient client = cs.get(c);
                String id = openCat(client);
                for (int i = 0; i < Math.max(2, s.warmup() / 20); i++) {
                    Interactions.interact(client, id, true, s.waitMs());
                }
                call(client, "session_close", "session", id, "force", true);
            });
            Memory base = memory(pid);

            String[] ids = new String[n];
            AtomicInteger openErrors = new AtomicInteger();
            long t0 = System.nanoTime();
            onAll(clients, Duration.ofSeconds(300), r, "scale open", c -> {
                for (int i = c; i < n; i += clients) {
                    try {
                        ids[i] = openCat(cs.get(c));
                    } catch (RuntimeException e) {
                        openErrors.incrementAndGet();
                        r.error("scale open", e.getMessage());
                    }
                }
            });
            double openSeconds = (System.nanoTime() - t0) / 1e9;
            Memory opened = memory(pid);

            ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
            AtomicInteger outputStalls = new AtomicInteger();
            AtomicInteger errors = new AtomicInteger(openErrors.get());
            long t1 = System.nanoTime();
            onAll(clients, Duration.ofSeconds(600), r, "scale interactions", c -> {
                McpSyncClient client = cs.get(c);
                List<String> mine = new ArrayList<>();
                for (int i = c; i < n; i += clients) {
                    if (ids[i] != null) {
                        mine.add(ids[i]);
                    }
                }
                for (int k = 0; k < rounds && !mine.isEmpty(); k++) {
                    try {
                        lat.add(Interactions.interact(client, mine.get(k % mine.size()), true, s.waitMs()));
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                        r.error("scale interaction", e.getMessage());
                    }
                }
            });
            double runSeconds = (System.nanoTime() - t1) / 1e9;
            long heldIdle = heldPerSession(cs.get(0), ids);
            Memory idle = memory(pid);

            // every session produces scaleOutputBytes (cat of what is sent), read back by its client
            int out = s.scaleOutputBytes();
            String body = ("y".repeat(99) + "\n").repeat(out / 100 - 1);
            onAll(clients, Duration.ofSeconds(600), r, "scale output", c -> {
                McpSyncClient client = cs.get(c);
                for (int i = c; i < n; i += clients) {
                    if (ids[i] == null) {
                        continue;
                    }
                    try {
                        long o0 = System.nanoTime();
                        Map<String, Object> m = call(client, "session_send", "session", ids[i],
                                "text", body + "end" + i, "wait_ms", s.waitMs(), "until", Map.of("pattern", "^end" + i + "\\n"),
                                "force", true, "max_bytes", 2 * out + 65536, "strip_ansi", false);
                        if (!"pattern".equals(m.get("reason")) || num(m, "bytes") < out - 100) {
                            throw new Servers.CallFailed("output of session " + i + ": reason " + m.get("reason")
                                    + ", " + num(m, "bytes") + " bytes");
                        }
                        if (System.nanoTime() - o0 >= s.waitMs() * 1_000_000L) {
                            outputStalls.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                        r.error("scale output", e.getMessage());
                    }
                }
            });
            long heldAfter = heldPerSession(cs.get(0), ids);
            Memory after = memory(pid);

            Stats floor = catFloor(s, clients, rounds);
            Stats st = Stats.of(lat);
            long stalls = lat.stream().filter(t -> t >= 1_000_000_000L).count();
            r.line("  opened %d sessions in %.2f s (%d clients at once); %d interactions in %.2f s = %.0f/s; errors: %d",
                    n - openErrors.get(), openSeconds, clients, lat.size(), runSeconds, lat.size() / runSeconds,
                    errors.get());
            r.latencyHeader();
            r.latency(String.format(Locale.ROOT, "floor: %d threads, each its own cat, direct", clients), floor, "");
            r.latency(String.format(Locale.ROOT, "MCP HTTP, %d clients across %d sessions", clients, n), st,
                    String.format(Locale.ROOT, "+%.3f ms; errors %d (target 0) %s", st.medianMs() - floor.medianMs(),
                            errors.get(), errors.get() == 0 ? "met" : "MISSED"));
            r.line("  stalls: interactions that took >= 1 s with their output there: %d; output reads (%s each) that ran "
                    + "to wait_ms (%d ms) with their output there: %d", stalls, size(s.scaleOutputBytes()), s.waitMs(),
                    outputStalls.get());
            if (stalls + outputStalls.get() > 0) {
                r.target("no reads stalled to wait_ms (part 3)", false, (stalls + outputStalls.get())
                        + " read(s) ran to wait_ms with their output there: a missed wake-up in the read wait");
            }
            r.target("zero errors, " + clients + " clients x " + n + " sessions", errors.get() == 0,
                    errors.get() + " errors in " + (lat.size() + errors.get()) + " interactions; latency median "
                            + String.format(Locale.ROOT, "%.2f ms, p99 %.2f ms", st.medianMs(), st.p99Ms()));

            r.line("  server memory, pid %d (a separate JVM, default heap settings). heap = live bytes after a full GC, "
                    + "from `jcmd %d GC.class_histogram` (its Total line; the command forces the GC); committed = heap "
                    + "the JVM holds (`jcmd %d GC.heap_info`); RSS = VmRSS of /proc/%d/status", pid, pid, pid, pid);
            r.line("  %-44s %9s %10s %9s %13s %13s %12s", "state", "heap MiB", "committed", "RSS MiB", "heap/session",
                    "RSS/session", "output held");
            r.line("  %-44s %9s %10s %9s", String.format(Locale.ROOT, "baseline: %d clients, no sessions", clients),
                    mib(base.heap()), mib(base.committed()), mib(base.rss()));
            memRow(r, n + " sessions, just opened", opened, base, n, -1);
            memRow(r, n + " sessions, idle after the interactions", idle, base, n, heldIdle);
            memRow(r, String.format(Locale.ROOT, "after %s of output each", size(out)), after, base, n, heldAfter);
            if (after.committed() > 0 && after.rss() > 0) {
                r.line("  RSS follows the committed heap, not the live one: the JVM grew its heap to %s MiB for the "
                        + "%d x %s requests and answers in flight and keeps it (no -Xmx given)", mib(after.committed()),
                        n, size(out));
            }
            if (base.heap() >= 0 && idle.heap() >= 0) {
                double beyond = (idle.heap() - base.heap()) / (double) n - heldIdle;
                boolean met = beyond <= 256 * 1024;
                double beyondAfter = (after.heap() - base.heap()) / (double) n - heldAfter;
                r.line("  heap per session beyond the output it holds: idle %s (target <= 256 KiB) %s; after output %s",
                        kib(beyond), met ? "met" : "MISSED", kib(beyondAfter));
                r.target(n + " idle sessions: heap each beyond retained output", met,
                        kib(beyond) + " (target <= 256 KiB; RSS " + kib((idle.rss() - base.rss()) / (double) n) + ")");
            } else {
                r.line("  heap: n/a (jcmd could not attach to pid %d)", pid);
            }
        } finally {
            Servers.deleteTree(dir);
        }
    }

    private static String openCat(McpSyncClient c) {
        return (String) call(c, "session_open", "command", "cat", "mode", "pipe", "name", "cat", "wait_ms", 0).get("session");
    }

    /** Average output bytes a session holds in memory: what it has produced (well under the tail). */
    @SuppressWarnings("unchecked")
    private static long heldPerSession(McpSyncClient c, String[] ids) {
        java.util.Set<String> mine = new java.util.HashSet<>(List.of(ids));
        long total = 0;
        int count = 0;
        for (Map<String, Object> row : (List<Map<String, Object>>) call(c, "session_list").get("sessions")) {
            if (mine.contains(row.get("session"))) {
                total += num(row, "bytes");
                count++;
            }
        }
        return count == 0 ? 0 : total / count;
    }

    private static Memory memory(long pid) {
        long heap = Servers.liveHeapBytes(pid);
        return new Memory(heap, Servers.committedHeapBytes(pid), Servers.rssBytes(pid));
    }

    private static void memRow(Report r, String state, Memory m, Memory base, int n, long held) {
        r.line("  %-44s %9s %10s %9s %13s %13s %12s", state, mib(m.heap()), mib(m.committed()), mib(m.rss()),
                m.heap() < 0 || base.heap() < 0 ? "n/a" : kib((m.heap() - base.heap()) / (double) n),
                m.rss() < 0 ? "n/a" : kib((m.rss() - base.rss()) / (double) n),
                held < 0 ? "" : size(held));
    }

    /** The same interactions on cat processes driven directly by as many threads, no MCP. */
    private static Stats catFloor(Benchmark.Settings s, int threads, int rounds) throws Exception {
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<DirectShell> shells = new ArrayList<>();
        try (AutoCloseable dog = Servers.watchdog(Duration.ofSeconds(120), () -> shells.forEach(DirectShell::kill))) {
            for (int t = 0; t < threads; t++) {
                shells.add(DirectShell.cat());
            }
            List<Future<?>> fs = new ArrayList<>();
            for (DirectShell sh : shells) {
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < Math.max(2, s.warmup() / 20); i++) {
                        sh.roundTrip(Interactions.TOKENS.getAndIncrement());
                    }
                    for (int i = 0; i < rounds; i++) {
                        long n = Interactions.TOKENS.getAndIncrement();
                        long t0 = System.nanoTime();
                        sh.roundTrip(n);
                        lat.add(System.nanoTime() - t0);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            shells.forEach(DirectShell::close);
        }
        return Stats.of(lat);
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", bytes / (double) (1 << 20));
    }

    static String kib(double bytes) {
        return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024);
    }

    static String size(long bytes) {
        return bytes >= 1_000_000 ? String.format(Locale.ROOT, "%.2f MB", bytes / 1e6)
                : String.format(Locale.ROOT, "%.1f KB", bytes / 1e3);
    }
}
