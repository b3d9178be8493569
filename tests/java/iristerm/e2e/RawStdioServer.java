package iristerm.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

/**
 * The packaged jar's {@code stdio} as a child process driven with raw bytes, for what the SDK
 * client cannot send: blank lines, garbage, over-long lines, an early end of input. Every line the
 * server writes is kept in order; every wait for one is bounded.
 */
final class RawStdioServer implements AutoCloseable {
    /** A JSON-RPC message never arrives when this passes without one; generous for a loaded machine. */
    static final long ANSWER_SECONDS = 60;

    private final Process process;
    private final OutputStream stdin;
    private final BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final Thread stdout;

    RawStdioServer(Path dataDir, String... options) throws IOException {
        this(dataDir, List.of("-jar", StdioServer.jar().toString(), "stdio"), options);
    }

    /** As above, launched with {@code launch} (the JVM's arguments up to the server's own) in place of the jar. */
    RawStdioServer(Path dataDir, List<String> launch, String... options) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ServeProcess.java()));
        cmd.addAll(launch);
        cmd.addAll(List.of("--data-dir", dataDir.toString()));
        cmd.addAll(List.of(options));
        process = new ProcessBuilder(cmd).start();
        stdin = process.getOutputStream();
        stdout = daemon("raw-stdout", () -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(Json.MAPPER.readTree(line));
                }
            }
        });
        daemon("raw-stderr", () -> {
            try (InputStream err = process.getErrorStream()) {
                err.transferTo(stderrSink());
            }
        });
    }

    private OutputStream stderrSink() {
        return new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (stderr) {
                    stderr.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (stderr) {
                    stderr.write(b, off, len);
                }
            }
        };
    }

    private interface Pump {
        void run() throws IOException;
    }

    private static Thread daemon(String name, Pump pump) {
        Thread t = new Thread(() -> {
            try {
                pump.run();
            } catch (IOException e) {
                // the process ended; the waits below report what is missing
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    long pid() {
        return process.pid();
    }

    String stderr() {
        synchronized (stderr) {
            return stderr.toString(StandardCharsets.UTF_8);
        }
    }

    /** initialize and notifications/initialized, as a client starts. */
    RawStdioServer initialized() throws IOException, InterruptedException {
        send(message(1, "initialize", Map.of("protocolVersion", "2025-06-18", "capabilities", Map.of(),
                "clientInfo", Map.of("name", "raw", "version", "1"))));
        assertTrue(next().has("result"), "initialize answered");
        send(Json.MAPPER.writeValueAsString(Map.of("jsonrpc", "2.0", "method", "notifications/initialized")));
        return this;
    }

    static String message(Object id, String method, Object params) {
        return Json.MAPPER.writeValueAsString(Map.of("jsonrpc", "2.0", "id", id, "method", method, "params", params));
    }

    void send(String line) throws IOException {
        sendBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
    }

    void sendBytes(byte[] bytes) throws IOException {
        stdin.write(bytes);
        stdin.flush();
    }

    void closeStdin() throws IOException {
        stdin.close();
    }

    /** The next line the server writes; fails after {@link #ANSWER_SECONDS}. */
    JsonNode next() throws InterruptedException {
        JsonNode n = lines.poll(ANSWER_SECONDS, TimeUnit.SECONDS);
        assertNotNull(n, () -> "no message from the server within " + ANSWER_SECONDS + " s; stderr:\n" + tail());
        return n;
    }

    /** Asserts that the next line is the answer to {@code id}. */
    JsonNode answer(int id) throws InterruptedException {
        JsonNode n = next();
        assertEquals(id, n.path("id").asInt(-1), () -> "expected the answer to " + id + ", got " + n);
        return n;
    }

    /** Every line the server writes until it closes stdout. */
    List<JsonNode> untilEnd() throws InterruptedException {
        assertTrue(process.waitFor(ANSWER_SECONDS, TimeUnit.SECONDS),
                () -> "the server did not exit within " + ANSWER_SECONDS + " s; stderr:\n" + tail());
        stdout.join(TimeUnit.SECONDS.toMillis(ANSWER_SECONDS));
        List<JsonNode> all = new ArrayList<>();
        lines.drainTo(all);
        return all;
    }

    /** Whether the server exits on its own within {@code seconds}. */
    boolean exitsWithin(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    /** Waits for the server to exit on its own and returns its exit code. */
    int exitCode() throws InterruptedException {
        assertTrue(process.waitFor(ANSWER_SECONDS, TimeUnit.SECONDS),
                () -> "the server did not exit within " + ANSWER_SECONDS + " s after stdin closed; stderr:\n" + tail());
        return process.exitValue();
    }

    private String tail() {
        String all = stderr();
        return all.length() > 4000 ? all.substring(all.length() - 4000) : all;
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
