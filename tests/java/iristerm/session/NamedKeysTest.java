package iristerm.session;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NamedKeysTest {
    @Test
    void keysAreWhatAnXtermSends() {
        assertEquals("\u001b[A\u0003\t\u001b[Z\u001b\u001bOP\u001b[24~\r",
                NamedKeys.sequence(List.of("up", "ctrl-c", "tab", "shift-tab", "esc", "F1", " f12 ", "enter"), true));
    }

    @Test
    void enterOnPipesIsALineFeed() {
        assertEquals("\n", NamedKeys.sequence(List.of("enter"), false));
    }

    @Test
    void anUnknownKeyIsNamedWithTheKnownOnes() {
        SessionException e = assertThrows(SessionException.class, () -> NamedKeys.sequence(List.of("up", "meta-x"), true));
        assertTrue(e.getMessage().contains("unknown key 'meta-x'") && e.getMessage().contains("shift-tab"), e.getMessage());
    }
}
