package iristerm.process;

import com.pty4j.PtyProcess;
import com.pty4j.PtyProcessBuilder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The kernel's answer to "does the terminal's foreground program wait for input?", on real PTYs. */
class TerminalInputTest {
    @Test
    void aReadOfTheTerminalIsAnInputWaitAndASleepIsNot() throws Exception {
        Assumptions.assumeTrue(TerminalInput.HERE != null, "the kernel cannot be asked on this machine");
        PtyProcess reading = start("read line; echo got $line");
        PtyProcess sleeping = start("sleep 30");
        try {
            assertEquals(Boolean.TRUE, settle(reading, true), "bash in read");
            assertEquals(Boolean.FALSE, settle(sleeping, false), "sleep in a timer");
            // typed but not yet read: the program has input to take, so it is not waiting for any
            reading.getOutputStream().write("y\r".getBytes(StandardCharsets.US_ASCII));
            reading.getOutputStream().flush();
            assertTrue(reading.waitFor(10, TimeUnit.SECONDS), "the answer reached the program");
        } finally {
            reading.destroyForcibly();
            sleeping.destroyForcibly();
        }
    }

    @Test
    void aProgramWaitingOnANetworkSocketIsNotWaitingForInput() throws Exception {
        Assumptions.assumeTrue(TerminalInput.HERE != null, "the kernel cannot be asked on this machine");
        // python polls its own socket pair: a wait that holds a socket is a network wait
        PtyProcess polling = start("exec python3 -c 'import socket, select; a, b = socket.socketpair(); select.select([a], [], [])'");
        try {
            assertEquals(Boolean.FALSE, settle(polling, false), "select on a socket");
        } finally {
            polling.destroyForcibly();
        }
    }

    /**
     * The answer once the program is asleep in a system call (its steady state), or {@code expected} as soon
     * as it is seen: a program needs a moment to get there, and on its way (running) it never waits for input.
     */
    private static Boolean settle(PtyProcess p, boolean expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Boolean answer = null;
        while (System.nanoTime() < deadline) {
            answer = TerminalInput.HERE.waiting(p.pid());
            if (Boolean.valueOf(expected).equals(answer) && (expected || asleep(p.pid()))) {
                return answer;
            }
            Thread.sleep(50);
        }
        return answer;
    }

    private static boolean asleep(long pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
            String call = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "syscall"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("S") && Character.isDigit(call.charAt(0));
        } catch (IOException e) {
            return false;
        }
    }

    private static PtyProcess start(String script) throws IOException {
        return new PtyProcessBuilder(new String[] {"bash", "--norc", "--noprofile", "-c", script})
                .setEnvironment(Map.of("PATH", System.getenv("PATH"), "TERM", "xterm"))
                .start();
    }
}
