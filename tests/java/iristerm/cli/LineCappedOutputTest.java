package iristerm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class LineCappedOutputTest {

    private static String through(int cap, String... writes) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(new LineCappedOutput(sink, cap), true, StandardCharsets.UTF_8)) {
            for (String write : writes) {
                out.print(write);
            }
        }
        return sink.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shortLinesPassUnchanged() throws IOException {
        assertEquals("one\ntwo\n\nthree", through(5, "one\ntwo\n", "\nthree"));
    }

    @Test
    void aLongLineIsCutOnceAndTheNextLineIsWhole() throws IOException {
        assertEquals("abcde [... line cut]\nfghij [... line cut]\nk\n",
                through(5, "abcdefgh", "ijkl\nfghijklmnop\n", "k\n"));
    }

    @Test
    void theCapCountsAcrossWritesOfOneLine() throws IOException {
        assertEquals("abcde [... line cut]\n", through(5, "ab", "cd", "ef", "gh\n"));
    }

    @Test
    void aCharacterAtTheCapIsNotSplit() throws IOException {
        // 'é' is two bytes in UTF-8 and starts at the cap's last byte
        assertEquals("abcdé [... line cut]\n", through(5, "abcdéf\n"));
    }
}
