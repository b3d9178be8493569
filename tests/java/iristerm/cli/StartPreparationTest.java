package iristerm.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The work a start does on a second thread: the real preparation of each mode completes against the
 * real mapper and SDK, and a preparation that fails or stalls ends the start with the one-line start
 * error (exit code 2), before the server reads a request or says it is listening.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StartPreparationTest {
    private static final String FAILURE = "no mapper here";

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void captureStderr() {
        originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreStderr() {
        System.setErr(originalErr);
    }

    @Test
    void theRealPreparationOfEachModeCompletes() {
        for (StartPreparation.Mode mode : StartPreparation.Mode.values()) {
            assertDoesNotThrow(StartPreparation.begin(mode)::await, mode.name());
        }
    }

    @Test
    void aFailedPreparationIsAStartErrorNamingTheCause() {
        StartPreparation failing = StartPreparation.start(() -> {
            throw new IllegalStateException(FAILURE);
        }, StartPreparation.BOUND);

        StartupError e = assertThrows(StartupError.class, failing::await);
        assertEquals("preparing the server failed: " + FAILURE, e.getMessage());
    }

    @Test
    void aStalledPreparationEndsTheWaitAtItsBound() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        StartPreparation stalled = StartPreparation.start(() -> release.await(60, TimeUnit.SECONDS),
                Duration.ofMillis(200));
        try {
            StartupError e = assertThrows(StartupError.class, stalled::await);
            assertTrue(e.getMessage().startsWith("preparing the server took more than"), e.getMessage());
        } finally {
            release.countDown();
        }
    }

    @Test
    void stdioWithAFailedPreparationAnswersNothingAndExitsWithTheOneLineError() throws Exception {
        ByteArrayOutputStream protocol = new ByteArrayOutputStream();
        byte[] initialize = ("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": "
                + "{\"protocolVersion\": \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": "
                + "{\"name\": \"t\", \"version\": \"1\"}}}\n").getBytes(StandardCharsets.UTF_8);

        int code = StdioCommand.run(new String[]{"--data-dir", Files.createTempDirectory("itm-prep").toString()},
                failing(), new ByteArrayInputStream(initialize), protocol);

        assertEquals(2, code);
        assertEquals("", protocol.toString(StandardCharsets.UTF_8), "the request was answered");
        assertOneLineError();
    }

    @Test
    void serveWithAFailedPreparationNeverSaysListeningAndExitsWithTheOneLineError() throws Exception {
        ServeCommand command = new ServeCommand(failing());

        int code = Main.configure(new CommandLine(command)).execute("--listen", "127.0.0.1:0",
                "--token", "a-token-for-this-test-only-0123456789", "--data-dir",
                Files.createTempDirectory("itm-prep").toString());

        assertEquals(2, code);
        assertFalse(err.toString(StandardCharsets.UTF_8).contains("iris-terminal-mcp listening on"),
                err.toString(StandardCharsets.UTF_8));
        assertOneLineError();
    }

    private static StartPreparation failing() {
        return StartPreparation.start(() -> {
            throw new IllegalStateException(FAILURE);
        }, StartPreparation.BOUND);
    }

    private void assertOneLineError() {
        String said = err.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("iris-terminal-mcp: preparing the server failed: " + FAILURE + System.lineSeparator()),
                said);
        assertFalse(said.contains("\tat "), "a stack trace: " + said);
    }
}
