package iristerm.stdio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class LineReaderTest {

    private static LineReader reader(String text, int maxBytes) {
        return new LineReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), maxBytes);
    }

    private static String text(LineReader.Line line) {
        return new String(line.bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void splitsOnNewlinesAndKeepsALastLineWithoutOne() throws IOException {
        LineReader r = reader("a\n\nbc\r\nlast", 100);
        assertEquals("a", text(r.next()));
        assertEquals("", text(r.next()));
        assertEquals("bc\r", text(r.next()));
        assertEquals("last", text(r.next()));
        assertNull(r.next());
        assertNull(r.next());
    }

    @Test
    void aLineLongerThanTheReadBufferArrivesWhole() throws IOException {
        String big = "x".repeat(200_000);
        LineReader r = reader(big + "\nnext\n", 300_000);
        assertEquals(big, text(r.next()));
        assertEquals("next", text(r.next()));
    }

    @Test
    void aLineOverTheLimitIsSkippedToItsNewlineAndReportedByLength() throws IOException {
        LineReader r = reader("12345\n" + "y".repeat(150_000) + "\nafter\n" + "z".repeat(11), 10);
        assertEquals("12345", text(r.next()));
        LineReader.Line over = r.next();
        assertTrue(over.overlong());
        assertEquals(150_000, over.length());
        assertEquals("after", text(r.next()));
        assertTrue(r.next().overlong(), "a last line over the limit without newline");
        assertNull(r.next());
    }

    @Test
    void aLineOfExactlyTheLimitIsKept() throws IOException {
        LineReader.Line line = reader("0123456789\n", 10).next();
        assertFalse(line.overlong());
        assertArrayEquals("0123456789".getBytes(StandardCharsets.UTF_8), line.bytes());
    }

    @Test
    void blankMeansOnlySpacesTabsAndCarriageReturns() throws IOException {
        LineReader r = reader(" \t\r\n\0\n", 10);
        assertTrue(r.next().blank());
        assertFalse(r.next().blank(), "a NUL is no whitespace: it is answered, not skipped");
    }
}
