package iristerm.session;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

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

    @Test
    void plainTextIsReturnedAsItIsWithoutACopy() {
        String plain = "1\n2\tcolumn\nna\u00efve \u20ac\n";
        assertSame(plain, AnsiCleaner.clean(plain));
        assertEquals("x\n", AnsiCleaner.clean("x\u0085\n"), "a C1 control is still dropped");
        assertEquals("b\n", AnsiCleaner.clean("a\rb\n"), "a carriage return still overwrites");
    }
}
