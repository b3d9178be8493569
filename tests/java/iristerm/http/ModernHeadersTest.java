package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class ModernHeadersTest {
    @Test
    void base64SentinelValuesAreDecodedAndPlainOnesKept() {
        assertEquals("Hello, 世界", ModernHeaders.decode("=?base64?SGVsbG8sIOS4lueVjA==?="));
        assertEquals("=?base64?literal?=", ModernHeaders.decode("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="));
        assertEquals("session_open", ModernHeaders.decode("session_open"));
        assertEquals("iris-terminal://sessions/a b/transcript",
                ModernHeaders.decode("iris-terminal://sessions/a b/transcript"));
    }

    @Test
    void malformedValuesAreNull() {
        assertNull(ModernHeaders.decode("=?base64?not base64!?="));
        assertNull(ModernHeaders.decode("=?base64?/w==?="), "not UTF-8");
        assertNull(ModernHeaders.decode("caf\u00e9"));
        assertNull(ModernHeaders.decode("a\tb"));
    }
}
