package iristerm.iris;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Both names IRIS gives an interrupt's error count, in a done mark and in a session's output (E5). */
class InterruptsTest {
    @Test
    void bothNamesAreAnInterruptAndNothingElseIs() {
        assertTrue(Interrupts.is("<INTERRUPT>"));
        assertTrue(Interrupts.is("<EXTERNAL INTERRUPT>"));
        assertFalse(Interrupts.is("<UNDEFINED>"));
        assertFalse(Interrupts.is(null));
        assertTrue(Interrupts.shownIn("USER>hang 30\r\n<EXTERNAL INTERRUPT>x+1^%Fake\r\nUSER>"));
        assertTrue(Interrupts.shownIn("<INTERRUPT>x+1^%Fake"));
        assertFalse(Interrupts.shownIn("USER>"));
        assertFalse(Interrupts.shownIn(null));
    }
}
