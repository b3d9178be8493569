package iristerm.session;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

/**
 * The screen against what tmux showed for the same bytes: tests/fixtures/screen holds what real programs
 * (vi, less, man, git log, top, htop, a progress line) wrote to an 80x24 terminal, and tmux's screen, cursor
 * and alternate-screen flag after it (record.sh made them).
 */
class TerminalScreenTest {
    private static final Path FIXTURES = Path.of(System.getProperty("basedir", ".")).resolve("tests/fixtures/screen");

    @TestFactory
    Stream<DynamicTest> eachRecordedProgramLooksAsItDidInTmux() throws IOException {
        List<Path> raws;
        try (Stream<Path> files = Files.list(FIXTURES)) {
            raws = files.filter(p -> p.toString().endsWith(".raw")).sorted().toList();
        }
        assertTrue(raws.size() >= 8, "fixtures missing in " + FIXTURES);
        return raws.stream().map(raw -> dynamicTest(raw.getFileName().toString(), () -> check(raw)));
    }

    private static void check(Path raw) throws IOException {
        String name = raw.getFileName().toString().replace(".raw", "");
        byte[] bytes = Files.readAllBytes(raw);
        List<String> expected = new ArrayList<>(Files.readAllLines(FIXTURES.resolve(name + ".screen"), StandardCharsets.UTF_8)
                .stream().map(String::stripTrailing).toList());
        while (expected.size() < 24) {
            expected.add("");
        }
        String[] meta = Files.readString(FIXTURES.resolve(name + ".meta")).strip().split(" ");
        // fed in odd-sized pieces, as a PTY delivers them: escapes and characters split across reads
        OutputLog log = new OutputLog(1 << 20, null);
        for (int i = 0; i < bytes.length; i += 37) {
            log.append(bytes, i, Math.min(37, bytes.length - i));
        }
        TerminalScreen.Snapshot shot = new TerminalScreen().snapshot(log, 80, 24);
        assertEquals(String.join("\n", expected), String.join("\n", shot.rows()), name + ": the screen");
        assertEquals(meta[0].equals("1"), shot.alternate(), name + ": alternate screen");
        assertEquals(Integer.parseInt(meta[1]), shot.cursorRow(), name + ": cursor row");
        assertEquals(Math.min(79, Integer.parseInt(meta[2])), shot.cursorCol(), name + ": cursor column");
    }

    @Test
    void followsNewOutputAndASizeChangeWithoutReplayingTheLog() {
        OutputLog log = new OutputLog(1 << 20, null);
        TerminalScreen screen = new TerminalScreen();
        append(log, "hello\r\n");
        assertEquals("hello", screen.snapshot(log, 20, 5).rows().get(0));
        append(log, "\u001b[2J\u001b[Hbye é");
        TerminalScreen.Snapshot after = screen.snapshot(log, 20, 5);
        assertEquals("bye é", after.rows().get(0));
        assertEquals(0, after.cursorRow());
        assertEquals(5, after.cursorCol());
        assertEquals(8, screen.snapshot(log, 30, 8).rows().size());
    }

    @Test
    void aCharacterSplitAcrossTwoReadsIsOneCharacter() {
        OutputLog log = new OutputLog(1 << 20, null);
        TerminalScreen screen = new TerminalScreen();
        byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
        log.append(euro, 0, 1);
        screen.snapshot(log, 10, 2);
        log.append(euro, 1, 2);
        assertEquals("€", screen.snapshot(log, 10, 2).rows().get(0));
    }

    @Test
    void theAlternateScreenIsTrackedAcrossChunks() {
        AlternateScreen alt = new AlternateScreen();
        alt.scan("x\u001b[?10");
        assertFalse(alt.on());
        alt.scan("49h");
        assertTrue(alt.on());
        alt.scan("\u001b[?25;1049l");
        assertFalse(alt.on());
    }

    private static void append(OutputLog log, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        log.append(b, 0, b.length);
    }
}
