package iristerm.iris;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No IRIS compiles the classes here, so the one slip that review keeps finding — a quote inside a string
 * literal that is not doubled ({@code "set ^X("a")"}), which ends the string early and stops the class's
 * compile — is looked for in every line of cls/ and tests/cls: each string literal must end, and what
 * follows its closing quote must not be a name or a number.
 */
class ObjectScriptStringsTest {
    private static final Path BASE = Path.of(System.getProperty("basedir", "."));

    /** Why {@code line} has a broken string literal, or null. Comments (// and ;) end the scan. */
    static String brokenString(String line) {
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == ';' || line.startsWith("//", i)) {
                return null;
            }
            if (c != '"') {
                i++;
                continue;
            }
            int j = i + 1;
            while (true) {
                if (j >= line.length()) {
                    return "a string that does not end on its line (col " + (i + 1) + ")";
                }
                if (line.charAt(j) == '"') {
                    if (j + 1 < line.length() && line.charAt(j + 1) == '"') {
                        j += 2;
                        continue;
                    }
                    break;
                }
                j++;
            }
            int next = j + 1;
            if (next < line.length() && (Character.isLetterOrDigit(line.charAt(next)) || line.charAt(next) == '%')) {
                return "text right after a string's closing quote (col " + (next + 1) + "): a quote inside it not doubled?";
            }
            i = next;
        }
        return null;
    }

    @Test
    void theCheckFindsAnUndoubledQuoteAndPassesDoubledOnes() {
        assertNull(brokenString("\tQuit \"set ^X(\"\"a\"\")=1\""));
        assertNull(brokenString("\tSet ev = {\"e\":\"start\",\"n\":(n)} // a \"comment"));
        assertTrue(brokenString("\tQuit \"set ^X(\"a\", \"\"b\"\")\"").contains("not doubled"));
        assertTrue(brokenString("\tWrite \"open").contains("does not end"));
    }

    @Test
    void everyStringLiteralInTheClassesEnds() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path root : List.of(BASE.resolve("cls"), BASE.resolve("tests/cls"))) {
            List<Path> files;
            try (Stream<Path> s = Files.walk(root)) {
                files = s.filter(p -> p.toString().endsWith(".cls")).sorted().toList();
            }
            assertTrue(!files.isEmpty(), "no classes under " + root);
            for (Path f : files) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                for (int n = 0; n < lines.size(); n++) {
                    String t = lines.get(n).strip();
                    if (t.startsWith("//") || t.startsWith("#;")) {
                        continue;
                    }
                    String why = brokenString(lines.get(n));
                    if (why != null) {
                        broken.add(BASE.relativize(f) + ":" + (n + 1) + ": " + why);
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
    }
}
