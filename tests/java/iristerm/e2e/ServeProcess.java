package iristerm.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The jar's {@code serve} as a child process on a free loopback port, ready once it has said where
 * it listens (its stderr is drained for its whole life). Shared by the HTTP suites and the benchmark.
 * Closing it stops the process, whatever state it is in; a test of a graceful exit asserts that itself first.
 */
public record ServeProcess(Process process, URI endpoint) implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+/mcp)");

    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static ServeProcess start(Path jar, Path dataDir, List<String> options, long timeoutSeconds)
            throws Exception {
        return start(jar, dataDir, options, timeoutSeconds, line -> { });
    }

    /** As above, handing every line the server writes to stderr (its log) to {@code stderr}. */
    public static ServeProcess start(Path jar, Path dataDir, List<String> options, long timeoutSeconds,
            Consumer<String> stderr) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java(), "-jar", jar.toString(), "serve",
                "--listen", "127.0.0.1:0", "--data-dir", dataDir.toString()));
        cmd.addAll(options);
        Process process = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        CompletableFuture<URI> ready = new CompletableFuture<>();
        Thread drain = new Thread(() -> {
            try (BufferedReader err = new BufferedReader(
                    new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = err.readLine()) != null) {
                    stderr.accept(line);
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        ready.complete(URI.create(m.group(1)));
                    }
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IllegalStateException("server exited before listening"));
        }, "serve-stderr");
        drain.setDaemon(true);
        drain.start();
        try {
            return new ServeProcess(process, ready.get(timeoutSeconds, TimeUnit.SECONDS));
        } catch (Exception e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** SIGTERM (the server ends its sessions and exits), bounded; then KILL, waited for too, so nothing is left. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
