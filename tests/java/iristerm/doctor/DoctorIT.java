package iristerm.doctor;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The packaged jar's {@code doctor} without IRIS configured: it says how to configure one and fails. */
class DoctorIT {
    @Test
    void withoutIrisConfiguredItSaysHowToConfigureOneAndExitsNonZero() throws Exception {
        // the packaged jar exists in the integration-test phase only (a -Dtest filter that matches this class
        // runs it in the unit phase too)
        Assumptions.assumeTrue(System.getProperty("iristerm.jar") != null,
                "no packaged jar (system property iristerm.jar): runs in mvn verify's integration tests");
        ProcessBuilder pb = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", System.getProperty("iristerm.jar"), "doctor"));
        pb.environment().remove("IRIS_HOSTNAME");
        Process doctor = pb.start();
        assertTrue(doctor.waitFor(60, TimeUnit.SECONDS), "doctor did not end within 60 s");
        String out = new String(doctor.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(doctor.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, doctor.exitValue(), out + err);
        assertTrue(err.contains("doctor needs IRIS") && err.contains("IRIS_HOSTNAME") && err.contains("--iris-host"), err);
        assertEquals("", out, "nothing on stdout: no check ran");
    }
}
