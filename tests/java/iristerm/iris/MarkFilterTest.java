package iristerm.iris;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The streaming mark parser: marks out, everything else in, whatever the reads' boundaries. */
class MarkFilterTest {
    private static final String ID = "0123456789abcdef";
    private static final String MARK = "\u001b]7715;" + ID + ";{\"e\":\"done\",\"n\":1}\u0007";

    /** What came out: the output and the marks' JSON. */
    private record Out(String output, List<String> marks) {
    }

    private static Out run(byte[] stream, int... cuts) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> marks = new ArrayList<>();
        MarkFilter f = new MarkFilter(ID, 1024, new MarkFilter.Handler() {
            @Override
            public void output(byte[] bytes, int offset, int length) {
                out.write(bytes, offset, length);
            }

            @Override
            public void mark(String json) {
                marks.add(json + "@" + out.size());
            }
        });
        int from = 0;
        for (int cut : cuts) {
            f.feed(stream, from, cut - from);
            from = cut;
        }
        f.feed(stream, from, stream.length - from);
        return new Out(out.toString(StandardCharsets.UTF_8), marks);
    }

    @Test
    void aMarkSplitAtAnyPointIsTakenOutWhole() throws Exception {
        byte[] stream = ("héllo" + MARK + "wörld").getBytes(StandardCharsets.UTF_8);
        int before = "héllo".getBytes(StandardCharsets.UTF_8).length;
        for (int cut = 1; cut < stream.length; cut++) {
            Out o = run(stream, cut);
            assertEquals("héllowörld", o.output(), "cut at " + cut);
            assertEquals(List.of("{\"e\":\"done\",\"n\":1}@" + before), o.marks(), "cut at " + cut);
        }
    }

    @Test
    void byteByByteTheOutputHasNoMarkAndEveryMarkInOrder() throws Exception {
        byte[] stream = ("a" + MARK + MARK + "\u001b[1mb\u001b]7715;" + MARK + "c").getBytes(StandardCharsets.UTF_8);
        int[] cuts = new int[stream.length - 1];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = i + 1;
        }
        Out o = run(stream, cuts);
        // an introducer cut short by another ESC is output; the mark that follows it is still a mark
        assertEquals("a\u001b[1mb\u001b]7715;c", o.output());
        assertEquals(3, o.marks().size(), o.marks().toString());
        assertFalse(o.output().contains(ID));
    }

    @Test
    void somethingLikeAMarkWithAnotherIdIsOutput() throws Exception {
        String lookalike = "\u001b]7715;fedcba9876543210;{\"e\":\"done\",\"n\":9}\u0007";
        Out o = run(("x" + lookalike + "y").getBytes(StandardCharsets.UTF_8), 9);
        assertEquals("x" + lookalike + "y", o.output());
        assertEquals(List.of(), o.marks());
    }

    @Test
    void aMarkLongerThanTheLimitBreaksTheStream() {
        byte[] stream = ("\u001b]7715;" + ID + ";" + "x".repeat(2000)).getBytes(StandardCharsets.UTF_8);
        assertThrows(MarkFilter.Overlong.class, () -> run(stream, 100));
    }

    /** The longest thing the job writes is one IRIS string, each character up to 3 bytes of UTF-8 (E8). */
    @Test
    void theEnginesLimitTakesTheLongestIrisStringInThreeByteCharacters() throws Exception {
        String json = "\"" + "€".repeat(3_641_144 - 2) + "\"";
        byte[] stream = ("\u001b]7715;" + ID + ";" + json + "\u0007").getBytes(StandardCharsets.UTF_8);
        List<String> marks = new ArrayList<>();
        MarkFilter f = new MarkFilter(ID, IrisEngine.MAX_MARK_BYTES, new MarkFilter.Handler() {
            @Override
            public void output(byte[] bytes, int offset, int length) {
            }

            @Override
            public void mark(String text) {
                marks.add(text);
            }
        });
        f.feed(stream, 0, stream.length);
        assertEquals(1, marks.size());
        assertEquals(json.length(), marks.get(0).length());
    }
}
