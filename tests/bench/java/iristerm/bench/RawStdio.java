package iristerm.bench;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal MCP client over stdio written here: JSON-RPC lines out, a reader thread that hands each
 * answer to the call waiting for its id. Several calls may be in flight at once. A diagnostic next
 * to the SDK client, to tell the server's own cost from the client library's.
 */
final class RawStdio implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Process process;
    private final OutputStream in;
    private final AutoCloseable watchdog;
    private final Duration limit;
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final Map<Integer, CompletableFuture<JsonNode>> waiting = new ConcurrentHashMap<>();

    /** {@code java -jar <jar> stdio} with the given JVM arguments in front of the jar's. */
    RawStdio(List<String> launch, Path dataDir, List<String> options, Duration limit) throws IOException {
        this(withJava(launch), Map.of(), dataDir, options, limit);
    }

    /** @param command the whole command (e.g. the launcher and "stdio"); {@code env} is added to this one's */
    RawStdio(List<String> command, Map<String, String> env, Path dataDir, List<String> options, Duration limit)
            throws IOException {
        this.limit = limit;
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("--data-dir", dataDir.toString()));
        cmd.addAll(options);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        process = pb.start();
        watchdog = Servers.watchdog(limit, process::destroyForcibly);
        in = process.getOutputStream();
        InputStream out = process.getInputStream();
        Thread reader = new Thread(() -> dispatch(out), "raw-stdio-reader");
        reader.setDaemon(true);
        reader.start();
        request("initialize", Map.of("protocolVersion", "2025-06-18", "capabilities", Map.of(),
                "clientInfo", Map.of("name", "bench-raw", "version", "1")));
        send(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
    }

    private static List<String> withJava(List<String> launch) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Servers.java());
        cmd.addAll(launch);
        return cmd;
    }

    /**
     * Hands each answer line to the call waiting for its id. Lines are split and parsed as bytes, as
     * a client that reads a pipe would: decoding a multi-megabyte answer into a String first doubled
     * this client's share of a large read.
     */
    private void dispatch(InputStream out) {
        try {
            byte[] chunk = new byte[1 << 16];
            Line line = new Line();
            int n;
            while ((n = out.read(chunk)) > 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (chunk[i] == '\n') {
                        line.write(chunk, start, i - start);
                        deliver(line.parse());
                        line.reset();
                        start = i + 1;
                    }
                }
                line.write(chunk, start, n - start);
            }
        } catch (IOException | RuntimeException e) {
            // the server ended: the waiting calls fail below
        }
        IOException ended = new IOException("the server closed stdout before answering");
        waiting.values().forEach(f -> f.completeExceptionally(ended));
    }

    private void deliver(JsonNode n) {
        CompletableFuture<JsonNode> f = waiting.remove(n.path("id").asInt(-1));
        if (f != null) {
            f.complete(n);
        }
    }

    /** One line's bytes, parsed where they lie. */
    private static final class Line extends ByteArrayOutputStream {
        Line() {
            super(1 << 16);
        }

        JsonNode parse() {
            return JSON.readTree(buf, 0, count);
        }
    }

    /** A tool call's structured content; a tool error throws. Safe to call from several threads. */
    JsonNode call(String tool, Object... kv) throws IOException {
        JsonNode result = request("tools/call", Map.of("name", tool, "arguments", Servers.args(kv)));
        if (result.path("isError").asBoolean(false)) {
            throw new Servers.CallFailed(tool + " failed: " + result.path("content"));
        }
        return result.path("structuredContent");
    }

    private JsonNode request(String method, Object params) throws IOException {
        int id = nextId.getAndIncrement();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        waiting.put(id, answer);
        if (!process.isAlive()) {
            waiting.remove(id);
            throw new IOException("the server has ended");
        }
        send(Map.of("jsonrpc", "2.0", "id", id, "method", method, "params", params));
        JsonNode n;
        try {
            n = answer.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(method + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(method + " not answered in " + limit, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(method + " interrupted", e);
        }
        if (n.has("error")) {
            throw new IOException(method + " failed: " + n.path("error"));
        }
        return n.path("result");
    }

    private synchronized void send(Object message) throws IOException {
        byte[] b = JSON.writeValueAsBytes(message);
        in.write(b);
        in.write('\n');
        in.flush();
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws Exception {
        try {
            in.close();
        } catch (IOException e) {
            // ending anyway
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        watchdog.close();
    }
}
