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

    @Test
    void theByteScanCallsPlainExactlyWhatTheTextScanDoes() {
        byte[][] samples = {
                "1\n2\tcolumn\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "na\u00efve \u20ac \ud83d\ude00\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "x\u0085\n".getBytes(java.nio.charset.StandardCharsets.UTF_8), // C1 control: C2 85
                "x\u009f".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "x\u00a0".getBytes(java.nio.charset.StandardCharsets.UTF_8), // C2 A0: a printable space
                "a\rb".getBytes(java.nio.charset.StandardCharsets.UTF_8), "del\u007f".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "\u001b[0m".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                {'a', (byte) 0xc2}, // incomplete at the end: U+FFFD, plain
                {(byte) 0xe0, (byte) 0xc2, (byte) 0x85}, // a broken sequence, then a C1 control
                {(byte) 0xc0, (byte) 0x85}, // an overlong encoding: U+FFFD twice, plain
                {(byte) 0x85, 'x'}, // a stray continuation byte: U+FFFD, plain
        };
        for (byte[] b : samples) {
            String decoded = new String(b, java.nio.charset.StandardCharsets.UTF_8);
            boolean plain = AnsiCleaner.clean(decoded) == decoded;
            assertEquals(plain, AnsiCleaner.isPlain(b, 0, b.length), () -> java.util.Arrays.toString(b));
        }
        byte[] framed = "\u001b[0mok\n\u0007".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(true, AnsiCleaner.isPlain(framed, 4, 3), "only the given range is looked at");
    }
}
