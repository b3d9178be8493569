package iristerm.session;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutputLogTest {
    @TempDir
    Path dir;

    @Test
    void oldBytesComeFromTheTranscriptAtTheSameOffsets() {
        OutputLog log = new OutputLog(4096, new Transcript(dir.resolve("t.log")));
        byte[] all = new byte[20_000];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) ('a' + i % 26);
        }
        for (int i = 0; i < all.length; i += 700) {
            log.append(all, i, Math.min(700, all.length - i));
        }
        assertEquals(20_000, log.end());
        assertEquals(20_000 - 4096, log.tailStart());
        OutputLog.Slice old = log.read(100, 50);
        assertEquals(100, old.from());
        assertArrayEquals(java.util.Arrays.copyOfRange(all, 100, 150), old.bytes());
        OutputLog.Slice recent = log.read(19_000, 5000);
        assertArrayEquals(java.util.Arrays.copyOfRange(all, 19_000, 20_000), recent.bytes());
    }

    @Test
    void theTailGrowsToItsLimitKeepingEveryByteInPlace() {
        OutputLog log = new OutputLog(64 * 1024, null);
        byte[] all = new byte[200_000];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) (i * 31 + i / 977);
        }
        for (int i = 0; i < all.length; i += 7_001) {
            log.append(all, i, Math.min(7_001, all.length - i));
            long end = log.end();
            long from = log.tailStart();
            assertArrayEquals(java.util.Arrays.copyOfRange(all, (int) from, (int) end),
                    log.read(from, (int) (end - from)).bytes(), "after " + end + " bytes");
        }
        assertEquals(200_000 - 64 * 1024, log.tailStart());
    }

    @Test
    void aReadFromTheTranscriptGoesOnIntoMemory() {
        OutputLog log = new OutputLog(4096, new Transcript(dir.resolve("b.log")));
        byte[] all = new byte[10_000];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) ('A' + i % 23);
        }
        log.append(all, 0, all.length);
        OutputLog.Slice across = log.read(5000, 3000);
        assertEquals(5000, across.from());
        assertArrayEquals(java.util.Arrays.copyOfRange(all, 5000, 8000), across.bytes());
    }

    @Test
    @org.junit.jupiter.api.Timeout(10)
    void aPatternAbsentFromOldOutputEndsInTimeNotInALoop() {
        OutputLog log = new OutputLog(4096, new Transcript(dir.resolve("p.log")));
        Session s = new Session(new SessionMeta("p", "process", "p", "o", "x", java.util.List.of(), ".", null, "pipe",
                null, 0), log, null);
        byte[] filler = "0123456789abcdef\n".repeat(4000).getBytes(StandardCharsets.UTF_8);
        log.append(filler, 0, filler.length);
        ReadResult r = s.read(new ReadRequest("r", 200, new Until(java.util.regex.Pattern.compile("NEVER"), null,
                false, false), 1 << 24, false, false, false, null, 0));
        assertEquals(ReadReason.timeout, r.reason());
    }

    @Test
    @org.junit.jupiter.api.Timeout(10)
    void aCharacterAcrossTheMemoryBoundaryNeitherStallsNorLoops() throws Exception {
        OutputLog log = new OutputLog(4096, new Transcript(dir.resolve("u.log")));
        Session s = new Session(new SessionMeta("u", "process", "u", "o", "x", java.util.List.of(), ".", null, "pipe",
                null, 0), log, null);
        byte[] text = "€".repeat(5000).getBytes(StandardCharsets.UTF_8);
        log.append(text, 0, text.length);
        StringBuilder got = new StringBuilder();
        ReadResult r;
        do {
            r = s.read(new ReadRequest("r", 0, null, 1000, true, false, false, null, 0));
            assertTrue(r.bytes() > 0 || r.available() == 0, r.toString());
            got.append(r.data());
        } while (r.available() > 0);
        assertEquals("€".repeat(5000), got.toString());
        Path out = dir.resolve("files").resolve("e.txt");
        s.read(new ReadRequest("f", 0, null, 10, false, false, true, out, 0));
        assertEquals("€".repeat(5000), Files.readString(out));
    }

    /**
     * An oversized answer cuts at whole characters: its head, the left-out part and its tail account for every byte
     * consumed, and the left-out part read by offset is exactly what was not shown.
     */
    @Test
    void oversizedAnswerCutsAtCharactersAndAccountsForEveryByte() {
        OutputLog log = new OutputLog(1 << 20, null);
        Session s = new Session(new SessionMeta("g", "process", "g", "o", "x", java.util.List.of(), ".", null, "pipe",
                null, 0), log, null);
        byte[] text = "€".repeat(50_000).getBytes(StandardCharsets.UTF_8);
        log.append(text, 0, text.length);
        ReadResult r = s.read(new ReadRequest("r", 0, null, 1001, false, false, false, null, 0));
        assertEquals(ReadReason.oversized, r.reason());
        assertEquals(text.length, r.bytes());
        assertEquals(log.end(), r.cursor());
        String[] parts = r.data().split("\n\\[\\.\\.\\. " + r.leftOut().bytes() + " bytes left out[^\n]*\n");
        assertEquals(2, parts.length, r.data());
        assertEquals("€".repeat(parts[0].length()), parts[0]);
        assertEquals("€".repeat(parts[1].length()), parts[1]);
        assertTrue(3L * (parts[0].length() + parts[1].length()) <= 1001, r.data());
        assertEquals(text.length, 3L * (parts[0].length() + parts[1].length()) + r.leftOut().bytes());
        ReadResult middle = s.read(new ReadRequest("r", 0, null, 1 << 20, true, false, false, null, 0, false,
                r.leftOut().from()));
        assertEquals("€".repeat(50_000 - parts[0].length()), middle.data(), "from there to the end");
    }

    @Test
    void withoutTranscriptLostBytesAreSkippedAndSaidSo() {
        OutputLog log = new OutputLog(4096, null);
        log.append(new byte[10_000], 0, 10_000);
        assertEquals(10_000 - 4096, log.read(0, 100).from());
    }

    @Test
    void secretSplitAcrossWritesIsMaskedInTheTranscript() throws Exception {
        Transcript t = new Transcript(dir.resolve("s.log"));
        OutputLog log = new OutputLog(4096, t);
        log.addSecret("hunter2", 0);
        byte[] a = "pass: hun".getBytes(StandardCharsets.UTF_8);
        byte[] b = "ter2\nok\n".getBytes(StandardCharsets.UTF_8);
        log.append(a, 0, a.length);
        log.append(b, 0, b.length);
        log.closeTranscript();
        String file = Files.readString(dir.resolve("s.log"));
        assertFalse(file.contains("hunter2"));
        assertEquals("pass: *******\nok\n", file);
        assertEquals(log.end(), Files.size(dir.resolve("s.log")), "masking keeps offsets");
    }

    /**
     * What a read sees: the secret masked in any slice, however the echo was split and the slice cut; a cut-short
     * echo at the log's end as far as it goes; output from before the secret was sent left alone.
     */
    @Test
    void secretIsMaskedInEveryReadAfterItWasSent() {
        OutputLog log = new OutputLog(64, new Transcript(dir.resolve("m.log")));
        append(log, "before hunter2 | ");
        long sent = log.end();
        log.addSecret("hunter2\nsecond-line", sent);
        append(log, "echo: hun");
        assertEquals("echo: ***", text(log.read(sent, 100)), "the part of the echo that came");
        append(log, "ter2\r\n");
        assertEquals("before hunter2 | echo: *******\r\n", text(log.read(0, 100)));
        for (int cut = 0; cut <= 16; cut++) {
            String first = text(log.read(sent, cut));
            String rest = text(log.read(sent + cut, 100));
            assertEquals("echo: *******\r\n", first + rest, "cut at " + cut);
        }
        append(log, "x".repeat(100) + "second-line, hunter2!");
        String late = text(log.read(log.end() - 21, 100));
        assertEquals("***********, *******!", late, "read from the transcript and from memory alike");
        assertFalse(text(log.read(sent, 1000)).contains("hunter2"));
        assertTrue(text(log.read(0, 1000)).startsWith("before hunter2"), "output from before it was sent");
    }

    private static void append(OutputLog log, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        log.append(b, 0, b.length);
    }

    private static String text(OutputLog.Slice s) {
        return new String(s.bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void incompleteUtf8AtThePageEndWaitsForTheNextRead() {
        byte[] euro = "a€".getBytes(StandardCharsets.UTF_8);
        assertEquals(1, Session.completeUtf8Length(java.util.Arrays.copyOf(euro, 3)));
        assertEquals(4, Session.completeUtf8Length(euro));
        assertTrue(Session.decode(new byte[]{(byte) 0xff, 'o', 'k'}).startsWith("\uFFFD"));
    }
}
