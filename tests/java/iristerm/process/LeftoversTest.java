package iristerm.process;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeftoversTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theMarkerCountsOnlyAsAWholeEntry() {
        byte[] entry = b("IRIS_TERMINAL_SESSION=abc");
        assertTrue(Leftovers.contains(b("PATH=/bin\0IRIS_TERMINAL_SESSION=abc\0HOME=/\0"), entry));
        assertTrue(Leftovers.contains(b("IRIS_TERMINAL_SESSION=abc\0"), entry));
        assertTrue(Leftovers.contains(b("A=1\0IRIS_TERMINAL_SESSION=abc"), entry));
        assertFalse(Leftovers.contains(b("IRIS_TERMINAL_SESSION=abcd\0"), entry), "another session's value");
        assertFalse(Leftovers.contains(b("X_IRIS_TERMINAL_SESSION=abc\0"), entry), "another variable");
        assertFalse(Leftovers.contains(b("OTHER=IRIS_TERMINAL_SESSION=abc\0"), entry), "inside a value");
        assertFalse(Leftovers.contains(b(""), entry));
    }
}
