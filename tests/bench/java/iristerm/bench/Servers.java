package iristerm.bench;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.e2e.ServeProcess;
import iristerm.json.Json;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The packaged server as a child process, reached through the MCP Java SDK's own clients. */
final class Servers {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    static final String TOKEN = "bench-token-0123456789abcdef";
    private static final ScheduledExecutorService WATCHDOGS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-watchdog");
        t.setDaemon(true);
        return t;
    });

    /** Things worth knowing that are not figures: slow shutdowns and the like; printed with the summary. */
    static final java.util.Queue<String> NOTES = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private Servers() {
    }

    static String java() {
        return ServeProcess.java();
    }

    /** Launch arguments of the packaged stdio server. */
    static List<String> jarStdio(Path jar) {
        return List.of("-jar", jar.toString(), "stdio");
    }

    /** A stdio server spawned by the SDK's stdio transport; closing the client ends it. */
    static McpSyncClient stdio(List<String> launch, Path dataDir, List<String> options) {
        List<String> args = new ArrayList<>(launch);
        args.addAll(List.of("--data-dir", dataDir.toString()));
        args.addAll(options);
        StdioClientTransport transport = new StdioClientTransport(
                ServerParameters.builder(java()).args(args).build(), Json.MCP);
        transport.setStdErrorHandler(line -> { });
        McpSyncClient client = McpClient.sync(transport)
                .requestTimeout(REQUEST_TIMEOUT)
                .initializationTimeout(Duration.ofSeconds(60))
                .build();
        client.initialize();
        return client;
    }

    /** {@code serve} on a free loopback port. */
    static final class Http implements AutoCloseable {
        final Process process;
        final URI endpoint;
        private final List<McpSyncClient> clients = new ArrayList<>();

        Http(Path jar, Path dataDir, List<String> options) throws Exception {
            List<String> all = new ArrayList<>(List.of("--token", TOKEN));
            all.addAll(options);
            ServeProcess serve = ServeProcess.start(jar, dataDir, all, 60);
            process = serve.process();
            endpoint = serve.endpoint();
        }

        long pid() {
            return process.pid();
        }

        McpSyncClient connect() {
            HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                    .builder("http://" + endpoint.getAuthority())
                    .endpoint(endpoint.getPath())
                    .jsonMapper(Json.MCP)
                    .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + TOKEN))
                    .build();
            McpSyncClient client = McpClient.sync(transport)
                    .requestTimeout(REQUEST_TIMEOUT)
                    .initializationTimeout(Duration.ofSeconds(60))
                    .build();
            client.initialize();
            synchronized (clients) {
                clients.add(client);
            }
            return client;
        }

        /** Clients first, then SIGTERM (the server ends its sessions), bounded; then KILL. */
        @Override
        public void close() {
            long t0 = System.nanoTime();
            synchronized (clients) {
                for (McpSyncClient c : clients) {
                    closeQuietly(c);
                }
                clients.clear();
            }
            long t1 = System.nanoTime();
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    NOTES.add("an HTTP server did not stop within 30 s of SIGTERM and was killed");
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long t2 = System.nanoTime();
            if (t2 - t0 > TimeUnit.SECONDS.toNanos(3)) {
                NOTES.add(String.format(java.util.Locale.ROOT, "closing an HTTP server took %.1f s (%.1f s for its "
                        + "clients' closeGracefully, %.1f s from SIGTERM to exit)", (t2 - t0) / 1e9, (t1 - t0) / 1e9,
                        (t2 - t1) / 1e9));
            }
        }
    }

    static void closeQuietly(McpSyncClient c) {
        if (c == null) {
            return;
        }
        long t0 = System.nanoTime();
        try {
            c.closeGracefully();
        } catch (RuntimeException e) {
            c.close();
        }
        long dt = System.nanoTime() - t0;
        if (dt > TimeUnit.SECONDS.toNanos(3)) {
            NOTES.add(String.format(java.util.Locale.ROOT, "closing an MCP client took %.1f s", dt / 1e9));
        }
    }

    // ---- tool calls ----------------------------------------------------------------------------

    /** A failed call, with the server's message. */
    static final class CallFailed extends RuntimeException {
        CallFailed(String message) {
            super(message);
        }
    }

    static Map<String, Object> args(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** The structured content of a successful call; a tool error throws {@link CallFailed}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> call(McpSyncClient client, String tool, Object... kv) {
        McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest(tool, args(kv)));
        if (Boolean.TRUE.equals(r.isError())) {
            StringBuilder b = new StringBuilder();
            for (McpSchema.Content c : r.content()) {
                if (c instanceof McpSchema.TextContent t) {
                    b.append(t.text());
                }
            }
            throw new CallFailed(tool + " failed: " + b);
        }
        return (Map<String, Object>) r.structuredContent();
    }

    static long num(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number n ? n.longValue() : -1;
    }

    // ---- bounds and probes ---------------------------------------------------------------------

    /** Runs {@code onTimeout} (e.g. destroying a process a blocked read waits on) if not closed in time. */
    static AutoCloseable watchdog(Duration limit, Runnable onTimeout) {
        ScheduledFuture<?> f = WATCHDOGS.schedule(onTimeout, limit.toMillis(), TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    /** Resident set size of a process in bytes (VmRSS of /proc/PID/status), or -1. */
    static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or the process is gone
        }
        return -1;
    }

    /**
     * CPU time a process has used, by group of its threads, in nanoseconds; null if it cannot be told
     * (not Linux, or the process is gone). Live threads from the first field of each
     * /proc/PID/task/TID/schedstat (nanosecond resolution, unlike the clock ticks of /proc/PID/stat)
     * and their names from .../comm; threads that have ended are no longer listed, so their time is
     * the process's CPU clock ({@link ProcessClock}, which keeps it) less the live threads'.
     */
    static ThreadCpu threadCpu(long pid) {
        String proc = "/proc/" + pid;
        String[] tasks = new java.io.File(proc + "/task").list();
        if (tasks == null) {
            return null;
        }
        java.util.EnumMap<ThreadCpu.Group, Long> nanos = new java.util.EnumMap<>(ThreadCpu.Group.class);
        long live = 0;
        for (String task : tasks) {
            try {
                long n = Long.parseLong(procFile(proc + "/task/" + task + "/schedstat").split(" ", 2)[0]);
                nanos.merge(ThreadCpu.group(procFile(proc + "/task/" + task + "/comm").strip()), n, Long::sum);
                live += n;
            } catch (IOException | NumberFormatException ended) {
                // a thread that ended between the listing and the read: the total below counts it
            }
        }
        // read after the threads, so it is never behind them (it is ahead by what they used meanwhile)
        long total = ProcessClock.nanos(pid);
        if (total < 0) {
            return null;
        }
        nanos.put(ThreadCpu.Group.ENDED, Math.max(0, total - live));
        return new ThreadCpu(nanos);
    }

    /**
     * A small /proc file's text. A plain stream, not {@link Files#readString}: a reading opens some fifty
     * of these right after a measured point, and the NIO path took about three times as long.
     */
    private static String procFile(String path) throws IOException {
        try (java.io.FileInputStream in = new java.io.FileInputStream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("^Total\\s+\\d+\\s+(\\d+)\\s*$", Pattern.MULTILINE);
    private static final Pattern HEAP_TOTAL = Pattern.compile("heap\\s+total (\\d+)K");

    /**
     * Live heap bytes of a JVM: {@code jcmd PID GC.class_histogram} forces a full GC and sums the
     * objects that survive it. -1 if jcmd is missing or cannot attach.
     */
    static long liveHeapBytes(long pid) {
        Matcher m = HISTOGRAM_TOTAL.matcher(jcmd(pid, "GC.class_histogram"));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Heap the JVM has committed (its size, garbage included): {@code jcmd PID GC.heap_info}. -1 if unknown. */
    static long committedHeapBytes(long pid) {
        Matcher m = HEAP_TOTAL.matcher(jcmd(pid, "GC.heap_info"));
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : -1;
    }

    private static String jcmd(long pid, String command) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return "";
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
                    .redirectErrorStream(true).start();
            CompletableFuture<String> text = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "";
                }
            });
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "";
            }
            return text.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "";
        }
    }

    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort: a temp directory
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }
}
