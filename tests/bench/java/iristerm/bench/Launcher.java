package iristerm.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * bin/iris-terminal-mcp, as the README's client configurations start the server, on the jar under
 * test and with a class-data archive folder of this run's own (written by a first, unmeasured start).
 */
record Launcher(Path script, Map<String, String> env) {
    /** the archive's training run is bounded at 60 s; on a busy machine allow twice that */
    private static final Duration TRAINING = Duration.ofSeconds(120);

    private static final Map<Path, Launcher> PREPARED = new java.util.HashMap<>();

    /**
     * The launcher for {@code jar} with its archive written, once per benchmark run (the parts that
     * use it share it; the folder goes when the benchmark's JVM ends).
     */
    static synchronized Launcher prepared(Path jar) throws Exception {
        Launcher known = PREPARED.get(jar);
        if (known != null) {
            return known;
        }
        Path dir = Files.createTempDirectory("itm-bench-launcher");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> Servers.deleteTree(dir)));
        Launcher l = of(jar, dir.resolve("cds"));
        l.prepareArchive(dir.resolve("train"));
        PREPARED.put(jar, l);
        return l;
    }

    /** The launcher next to the jar's project ({@code <project>/bin} for {@code <project>/target/x.jar}). */
    private static Launcher of(Path jar, Path cdsDir) {
        Path script = jar.toAbsolutePath().getParent().getParent().resolve("bin").resolve("iris-terminal-mcp");
        return new Launcher(script, Map.of("IRIS_TERMINAL_JAR", jar.toAbsolutePath().toString(),
                "IRIS_TERMINAL_CDS_DIR", cdsDir.toString(), "JAVA_HOME", System.getProperty("java.home")));
    }

    List<String> command(String mode) {
        return List.of(script.toString(), mode);
    }

    Path cdsDir() {
        return Path.of(env.get("IRIS_TERMINAL_CDS_DIR"));
    }

    /** Starts once (plainly, the archive written behind it) and waits until the archive is there. */
    private Path prepareArchive(Path dataDir) throws Exception {
        try (RawStdio first = new RawStdio(command("stdio"), env, dataDir, List.of(), Duration.ofSeconds(60))) {
            first.call("session_list");
        }
        long deadline = System.nanoTime() + TRAINING.toNanos();
        while (true) {
            Path archive = archive();
            if (archive != null && !Files.exists(cdsDir().resolve(".training"))) {
                return archive;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("the launcher wrote no class-data archive in " + TRAINING + " ("
                        + cdsDir().resolve("training.log") + ")");
            }
            Thread.sleep(100);
        }
    }

    Path archive() throws IOException {
        try (Stream<Path> files = Files.list(cdsDir())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jsa")).findFirst().orElse(null);
        }
    }
}
