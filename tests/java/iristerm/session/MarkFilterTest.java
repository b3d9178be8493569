package iristerm.session;

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
        return run(false, "\u001b]7715;" + ID + ";", 1024, stream, cuts);
    }

    private static Out run(boolean lenient, String intro, int max, byte[] stream, int... cuts) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<String> marks = new ArrayList<>();
        MarkFilter.Handler handler = new MarkFilter.Handler() {
            @Override
            public void output(byte[] bytes, int offset, int length) {
                out.write(bytes, offset, length);
            }

            @Override
            public void mark(String json) {
                marks.add(json + "@" + out.size());
            }
        };
        MarkFilter f = lenient ? MarkFilter.lenient(intro, max, handler) : MarkFilter.strict(intro, max, handler);
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

    // ---- a terminal's stream: shell-integration marks among whatever programs print ----------------

    private static final String SHELL = "\u001b]133;";

    private static int[] everyByte(byte[] stream) {
        int[] cuts = new int[stream.length - 1];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = i + 1;
        }
        return cuts;
    }

    @Test
    void shellMarksSplitAnywhereAreTakenOutWhole() throws Exception {
        String text = "out\r\n" + SHELL + "D;3\u0007" + SHELL + "A\u0007$ ";
        byte[] stream = text.getBytes(StandardCharsets.UTF_8);
        for (int cut = 1; cut < stream.length; cut++) {
            for (int second = cut + 1; second < stream.length; second++) {
                Out o = run(true, SHELL, 64, stream, cut, second);
                assertEquals("out\r\n$ ", o.output(), "cuts at " + cut + ", " + second);
                assertEquals(List.of("D;3@5", "A@5"), o.marks(), "cuts at " + cut + ", " + second);
            }
        }
    }

    @Test
    void foreignOscSequencesAroundAMarkStayOutput() throws Exception {
        // a window title, another terminal's mark, an OSC 133 ended by ST (ESC \) rather than BEL, a hyperlink
        String title = "\u001b]0;user@host: ~\u0007";
        String other = "\u001b]1337;CurrentDir=/tmp\u0007";
        String st = SHELL + "A\u001b\\";
        String link = "\u001b]8;;http://x\u0007x\u001b]8;;\u0007";
        String text = title + other + SHELL + "C\u0007" + st + "ls" + link + SHELL + "D;0\u0007" + title + SHELL + "A\u0007";
        byte[] stream = text.getBytes(StandardCharsets.UTF_8);
        for (int[] cuts : List.of(new int[0], everyByte(stream))) {
            Out o = run(true, SHELL, 64, stream, cuts);
            assertEquals(title + other + st + "ls" + link + title, o.output());
            int before = (title + other).length();
            int after = (title + other + st + "ls" + link).length();
            assertEquals(List.of("C@" + before, "D;0@" + after, "A@" + (after + title.length())), o.marks());
        }
    }

    @Test
    void aLenientMarkCutShortByAControlByteOrTheLimitIsOutput() throws Exception {
        String broken = SHELL + "D;0\r\n";
        String overlong = SHELL + "x".repeat(100) + "\u0007";
        String text = broken + overlong + SHELL + "A\u0007end";
        byte[] stream = text.getBytes(StandardCharsets.UTF_8);
        for (int[] cuts : List.of(new int[0], everyByte(stream))) {
            Out o = run(true, SHELL, 64, stream, cuts);
            assertEquals(broken + overlong + "end", o.output());
            assertEquals(List.of("A@" + (broken + overlong).length()), o.marks());
        }
    }

    @Test
    void anIntroducerWithASecondEscIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> MarkFilter.lenient("\u001b]1;\u001b", 8, null));
    }
}
