package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import iristerm.json.Json;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/iris-terminal-mcp as a client configuration runs it: it finds the jar next to it, answers over
 * stdio at once, writes its class-data archive once (in the background of the first start) and
 * starts from it afterwards, and starts plainly when the archive is damaged or cannot be written.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LauncherIT {
    private static final Path LAUNCHER = Path.of("bin", "iris-terminal-mcp").toAbsolutePath();
    /** the training run is bounded at 60 s; on a machine this busy give it twice that */
    private static final long TRAINING_MILLIS = 120_000;

    private static Path archive;

    /** The first start of a fresh installation: plain, with the archive written behind it. */
    @BeforeAll
    static void firstStartWritesTheArchive() throws Exception {
        Path cds = Files.createTempDirectory("itm-cds");
        startAndCall(cds, Map.of());
        archive = awaitArchive(cds);
    }

    @Test
    void theSecondStartMapsItsClassesFromTheArchiveAndWritesNoOther() throws Exception {
        Path cds = archive.getParent();
        Object before = Files.readAttributes(archive, BasicFileAttributes.class).fileKey();
        long modified = Files.getLastModifiedTime(archive).toMillis();
        Path classLog = Files.createTempFile("itm-classes", ".log");

        startAndCall(cds, Map.of("IRIS_TERMINAL_JAVA_OPTS", "-Xlog:class+load=info:file=" + classLog));

        String loaded = Files.readString(classLog);
        assertTrue(loaded.contains("iristerm.stdio.StdioTransport source: shared objects file (top)"),
                "the server's classes were not mapped from the archive " + archive);
        assertEquals(List.of(archive), archives(cds), "one archive, the first one");
        assertEquals(before, Files.readAttributes(archive, BasicFileAttributes.class).fileKey());
        assertEquals(modified, Files.getLastModifiedTime(archive).toMillis());
        assertFalse(Files.exists(cds.resolve(".training")), "a second training started although the archive is fine");
    }

    /** The training runs serve as well as stdio, so a serve start maps the HTTP stack from the archive too. */
    @Test
    void aServeStartMapsItsHttpClassesFromTheArchive() throws Exception {
        Path classLog = Files.createTempFile("itm-classes", ".log");
        ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "serve", "--listen", "127.0.0.1:0",
                "--token", "a-token-for-this-test-only-0123456789",
                "--data-dir", Files.createTempDirectory("itm-launched").toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("IRIS_TERMINAL_CDS_DIR", archive.getParent().toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("IRIS_TERMINAL_JAVA_OPTS", "-Xlog:class+load=info:file=" + classLog);
        Process serve = pb.start();
        // bounds the read below: a server that never says it is listening is ended, its stderr closes
        CompletableFuture.runAsync(serve::destroyForcibly, CompletableFuture.delayedExecutor(120, TimeUnit.SECONDS));
        try (BufferedReader err = new BufferedReader(new InputStreamReader(serve.getErrorStream(),
                StandardCharsets.UTF_8))) {
            boolean listening = false;
            for (String line = err.readLine(); line != null && !listening; line = err.readLine()) {
                listening = line.contains("listening on");
            }
            assertTrue(listening, "serve ended without listening");
        } finally {
            serve.destroy();
            serve.waitFor(60, TimeUnit.SECONDS);
        }

        String loaded = Files.readString(classLog);
        for (String cls : List.of("io.undertow.Undertow", "org.xnio.nio.NioXnioWorker", "iristerm.http.McpHttpServer")) {
            assertTrue(loaded.contains(cls + " source: shared objects file (top)"),
                    cls + " was not mapped from the archive " + archive);
        }
    }

    @Test
    void aTruncatedArchiveIsDroppedTheStartIsPlainAndANewOneIsWritten() throws Exception {
        Path cds = Files.createTempDirectory("itm-cds-cut");
        Path cut = Files.copy(archive, cds.resolve(archive.getFileName()));
        long shortSize = Files.size(cut) / 2;
        try (FileChannel ch = FileChannel.open(cut, StandardOpenOption.WRITE)) {
            // mapped as it is, a short archive crashes the JVM (SIGBUS)
            ch.truncate(shortSize);
        }

        startAndCall(cds, Map.of());

        // a training run's archive differs in size from run to run: the new one is whole if its size is the named one
        Path again = awaitArchive(cds);
        String name = again.getFileName().toString();
        long named = Long.parseLong(name.substring(name.indexOf('.') + 1, name.length() - ".jsa".length()));
        assertEquals(named, Files.size(again), "the archive was not written again: " + name);
        assertTrue(named > shortSize, name);
    }

    @Test
    void anArchiveOfGarbageIsRefusedByTheJvmAndTheStartIsPlain() throws Exception {
        Path cds = Files.createTempDirectory("itm-cds-garbage");
        Path garbage = cds.resolve(archive.getFileName());
        Files.write(garbage, new byte[(int) Files.size(archive)]);

        startAndCall(cds, Map.of());

        assertTrue(Files.exists(garbage), "a full-size archive is left to the JVM to judge");
    }

    @Test
    void anArchivePlaceThatCannotBeCreatedMeansAPlainStart() throws Exception {
        Path file = Files.createTempFile("itm-not-a-dir", "");
        Path cds = file.resolve("cds");

        startAndCall(cds, Map.of());

        assertFalse(Files.exists(cds));
    }

    /** Starts the launcher in stdio mode, has the SDK client initialize and make one call, then ends it. */
    private static void startAndCall(Path cds, Map<String, String> extraEnv) throws IOException {
        Map<String, String> env = new HashMap<>(extraEnv);
        env.put("IRIS_TERMINAL_CDS_DIR", cds.toString());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(LAUNCHER.toString())
                .args("stdio", "--data-dir", Files.createTempDirectory("itm-launched").toString())
                .env(env).build(), Json.MCP);
        transport.setStdErrorHandler(line -> { });
        Clients clients = new Clients();
        try {
            McpSyncClient client = clients.connect(transport, n -> { }, p -> { });
            assertTrue(ok(client, "session_list").containsKey("sessions"));
        } finally {
            clients.closeAll();
        }
    }

    /** Waits (bounded) for the training to finish, and returns the one archive it left. */
    private static Path awaitArchive(Path cds) throws Exception {
        long deadline = System.currentTimeMillis() + TRAINING_MILLIS;
        while (Files.exists(cds.resolve(".training")) || archives(cds).isEmpty()) {
            assertTrue(System.currentTimeMillis() < deadline, "no archive in " + cds + " after " + TRAINING_MILLIS
                    + " ms; training log: " + readIfThere(cds.resolve("training.log")));
            Thread.sleep(100);
        }
        List<Path> written = archives(cds);
        assertEquals(1, written.size(), written::toString);
        return written.get(0);
    }

    private static List<Path> archives(Path cds) throws IOException {
        try (Stream<Path> files = Files.list(cds)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jsa")).toList();
        }
    }

    private static String readIfThere(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "(none)";
    }
}
