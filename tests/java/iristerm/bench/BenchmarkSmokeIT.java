package iristerm.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmark (tests/bench) with smoke settings: a few iterations of every part against the
 * packaged jar, so it keeps compiling and running. It asserts completion and no errors, never timings.
 */
class BenchmarkSmokeIT {
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyPartRunsWithoutErrors() {
        Path jar = Path.of(System.getProperty("iristerm.jar", "target/iris-terminal-mcp.jar")).toAbsolutePath();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Benchmark.Outcome o = Benchmark.run(Benchmark.Settings.smoke(jar), out);
        String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertEquals(List.of("1", "2", "3", "4", "5", "6", "targets"), o.sections(), text);
        assertEquals(0, o.errors(), () -> "the benchmark reported errors:\n" + text);
        for (String part : List.of("== 1. ", "== 2. ", "== 3. ", "== 4. ", "== 5. ", "== 6. ", "== Targets", "== errors: 0")) {
            assertTrue(text.contains(part), () -> "no '" + part + "' in:\n" + text);
        }
    }
}
