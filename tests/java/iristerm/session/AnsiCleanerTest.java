package iristerm.session;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class AnsiCleanerTest {
    @Test
    void removesColourAndCursorSequences() {
        assertEquals("RED plain\n", AnsiCleaner.clean("\u001b[1;31mRED\u001b[0m plain\r\n"));
        assertEquals("title gone", AnsiCleaner.clean("\u001b]0;window title\u0007title gone"));
        assertEquals("x", AnsiCleaner.clean("\u001b(Bx"));
    }

    @Test
    void collapsesCarriageReturnOverwrites() {
        assertEquals("100%\n", AnsiCleaner.clean("10%\r50%\r100%\n"));
        assertEquals("XYcdef", AnsiCleaner.clean("abcdef\rXY"));
        assertEquals("done", AnsiCleaner.clean("working...\r\u001b[Kdone"));
        assertEquals("ab", AnsiCleaner.clean("abc\b\u001b[K"));
    }

    @Test
    void unterminatedSequenceAtTheEndIsDropped() {
        assertEquals("text", AnsiCleaner.clean("text\u001b[3"));
    }
}
