package iristerm.process;

import iristerm.session.EngineSink;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the shell's marks tell, and that nothing of them reaches the output, however the reads fall. */
class ShellMarksTest {
    private static final String C = "\u001b]133;C\u0007";
    private static final String A = "\u001b]133;A\u0007";

    private static String d(int status) {
        return "\u001b]133;D;" + status + "\u0007";
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ShellMarks marks = new ShellMarks(new EngineSink() {
        @Override
        public void output(byte[] bytes, int offset, int length) {
            out.write(bytes, offset, length);
        }

        @Override
        public void exited(Integer exitCode, String signal) {
        }

        @Override
        public long end() {
            return out.size();
        }

        @Override
        public void changed() {
        }

        @Override
        public String marker() {
            return "test";
        }
    });

    /** Feeds {@code text} one read per piece. */
    private void feed(String... pieces) throws Exception {
        for (String p : pieces) {
            byte[] b = p.getBytes(StandardCharsets.UTF_8);
            marks.feed(b, b.length);
        }
    }

    @Test
    void aCommandsStatusComesWithThePromptAfterIt() throws Exception {
        feed(d(0) + A, "\u001b[?2004h$ ");
        assertTrue(marks.active());
        assertNull(marks.status(), "no command ran before the first prompt");
        long mark = out.size();
        feed("false\r\n\u001b[?2004l\r" + C, d(1) + A + "\u001b[?2004h$ ");
        assertEquals(1, marks.status());
        assertEquals(Boolean.TRUE, marks.promptSince(mark));
        assertEquals("\u001b[?2004h$ false\r\n\u001b[?2004l\r\u001b[?2004h$ ", out.toString(StandardCharsets.UTF_8));
        // Enter alone: a new prompt, no command, no status
        feed("\r\n" + d(1) + A + "$ ");
        assertNull(marks.status());
    }

    @Test
    void aPromptCountsOnceItsTextHasComeNotItsMarkOrEscapesAlone() throws Exception {
        feed(d(0) + A, "$ ", "sleep 1\r\n" + C);
        long mark = out.size();
        assertEquals(Boolean.FALSE, marks.promptSince(mark), "a command runs");
        assertFalse(marks.drawing());
        feed(d(0));
        assertTrue(marks.drawing(), "between the command's end and its prompt the shell is busy drawing");
        feed(A + "\u001b");
        // the ESC of bracketed-paste mode comes alone: the rest of it in the next read is no text either
        feed("[?2004h");
        assertNull(marks.promptSince(mark));
        assertTrue(marks.drawing());
        feed("pc says hi\r\n");
        assertNull(marks.promptSince(mark), "a line a PROMPT_COMMAND printed is not the prompt");
        feed("user@host:~$ ");
        assertEquals(Boolean.TRUE, marks.promptSince(mark));
        assertFalse(marks.drawing());
        assertEquals(0, marks.status());
    }

    @Test
    void aPromptStandsWhereTheLogHasIt() throws Exception {
        feed(d(0) + A + "$ ", "ls\r\n" + C, "a b\r\n");
        // the session writes a note of its own into the log (a person's take-over): the prompt that
        // follows stands after it, as a read's mark counted from the log does
        out.writeBytes("[a person took over]\r\n".getBytes(StandardCharsets.UTF_8));
        long mark = out.size();
        feed(d(0) + A + "$ ");
        assertEquals(Boolean.TRUE, marks.promptSince(mark));
        assertEquals(Boolean.FALSE, marks.promptSince(mark + 1));
    }

    @Test
    void aProgramsOwnLookAlikeMarksAreNotTaken() throws Exception {
        feed(d(0) + A + "$ ", "cat\r\n" + C);
        // an OSC 133 ended by ST, and one with a control byte inside: output, not marks
        feed("\u001b]133;A\u001b\\", "\u001b]133;D;\n");
        assertEquals(Boolean.FALSE, marks.promptSince(-1));
        assertTrue(out.toString(StandardCharsets.UTF_8).endsWith("\u001b]133;A\u001b\\\u001b]133;D;\n"));
    }
}
