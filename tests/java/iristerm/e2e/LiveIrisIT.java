package iristerm.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The iris scenarios against a live IRIS, when IRIS_HOSTNAME (and IRIS_PORT, IRIS_NAMESPACE,
 * IRIS_USERNAME, IRIS_PASSWORD) are set and the Terminal classes are installed there
 * (java -jar target/iris-terminal-mcp.jar install), and the packaged jar's doctor against it.
 * Reports itself skipped otherwise.
 */
@EnabledIfEnvironmentVariable(named = "IRIS_HOSTNAME", matches = ".+",
        disabledReason = "IRIS_HOSTNAME is not set: no live IRIS to test against")
class LiveIrisIT extends IrisScenarios {
    @Override
    protected ServerUnderTest start() throws Exception {
        return new StdioServer(Files.createTempDirectory("itm-live-iris"), List.of());
    }

    /** Every check of {@code doctor} passes on the instance the scenarios run against (same environment). */
    @Test
    void doctorPassesEveryCheck() throws Exception {
        Process doctor = new ProcessBuilder(List.of(ServeProcess.java(), "-jar", System.getProperty("iristerm.jar"),
                "doctor")).redirectErrorStream(true).start();
        // a healthy instance answers in a few seconds; the class's 120 s timeout bounds the rest
        assertTrue(doctor.waitFor(110, TimeUnit.SECONDS), "doctor did not end within 110 s");
        String table = new String(doctor.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, doctor.exitValue(), table);
        assertTrue(table.contains("all 16 checks passed"), table);
    }
}
