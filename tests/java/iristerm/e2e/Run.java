package iristerm.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/** A finished child process: its exit code and its output (stdout and stderr, kept in {@code log}). */
record Run(int exit, String output) {

    /** Runs {@code command} in {@code dir}; one that outlives {@code timeout} is killed and fails the test. */
    static Run of(Path dir, Path log, Duration timeout, String... command) throws IOException,
            InterruptedException {
        return of(dir, log, timeout, List.of(command));
    }

    static Run of(Path dir, Path log, Duration timeout, List<String> command) throws IOException,
            InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            fail(String.join(" ", command) + " did not finish within " + timeout + ":\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }
}
