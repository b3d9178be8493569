package iristerm.iris;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Inside an ObjectScript JSON literal ({@code {…}} or {@code […]}) the values are JSON, not ObjectScript
 * (ObjectScript Reference, SET, "JSON Values": "An invalid JSON literal generates a &lt;SYNTAX&gt; error"):
 * a doubled quote {@code ""} ends the JSON string, and the class no longer compiles (review D10, and issue 9
 * before it). There is no IRIS here to compile, so every cls/ and tests/cls file is scanned: after each
 * value of a literal comes {@code ,}, {@code :}, or its closing bracket, and nothing else. An ObjectScript
 * expression belongs in parentheses, {@code "text":("write ""x""")}.
 */
class JsonLiteralTest {

    @Test
    void noJsonLiteralInTheObjectScriptSourcesHoldsObjectScriptSyntax() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("cls", "tests/cls")) {
            try (Stream<Path> walk = Files.walk(root().resolve(dir))) {
                walk.filter(p -> p.toString().endsWith(".cls")).sorted().forEach(files::add);
            }
        }
        assertTrue(files.size() >= 15, "found only " + files.size() + " .cls files under cls/ and tests/cls");
        List<String> found = new ArrayList<>();
        int literals = 0;
        for (Path file : files) {
            Scan scan = scan(read(file));
            literals += scan.literals();
            scan.defects().forEach(d -> found.add(root().relativize(file) + ":" + d));
        }
        assertTrue(literals >= 50, "found only " + literals + " JSON literals: the scanner misses them");
        assertEquals(List.of(), found, "JSON literals with ObjectScript inside a JSON value (a doubled quote, or"
                + " an ObjectScript operator after a string): put the ObjectScript expression in parentheses,"
                + " \"text\":(\"write \"\"x\"\"\")");
    }

    /** The scanner catches the defect of review D10 (the line as it was) and its kin, and passes their fixes. */
    @Test
    void theScannerTellsObjectScriptInAJsonValueFromAParenthesisedExpression() {
        String d10 = "\tSet sent = ..Call(\"Send\", {\"session\":(key), \"text\":\"set ^||Terminal.Engine(\"\"held\"\",1)"
                + "=\"\"BY\"\"_5 halt\", \"execute\":true})\n";
        assertEquals(List.of("1: {\"session\":(key), \"text\":\"set ^||Terminal.Engine(\"\"held\"\",1)=\"\"BY\"\"_5 halt\", \"execute\":true}"),
                scan(d10).defects());
        assertEquals(1, scan("Set a = [\"x\"_y]\n").defects().size(), "concatenation inside an array literal");
        assertEquals(1, scan("Set a = {\"k\":{\"n\":\"a\"\"b\"}}\n").defects().size(), "nested object");
        assertEquals(1, scan("Set a = {\n  \"k\":\"a\"\"b\"\n}\n").defects().size(), "a literal over several lines");
        for (String fine : List.of(
                "\tSet sent = ..Call(\"Send\", {\"session\":(key), \"text\":(\"set x=\"\"BY\"\"_5 halt\"), \"execute\":true})\n",
                "Set a = {\"k\":\"a\\\"b\", \"n\":[1,2.5,-3,true,null,{}], \"x\":(\"{\"\"\"\"}\"_\"]\")}\n",
                "Set s = \"{\"\"a\"\":\"\"b\"\"}\"  // a JSON text in an ObjectScript string is not a literal\n",
                "Quit:(info [ \"Terminal.Engine\") 1\n",
                "If x { Set y = 1 } Else { Set y = 2 }\n",
                "Property State As %String [ Calculated, SqlComputeCode = {Set {*} = ##class(X).V({K}, \"s\")}, SqlComputed ];\n",
                "/// {\"doc\":\"a\"\"b\"} in a comment\n")) {
            assertEquals(List.of(), scan(fine).defects(), fine);
        }
        assertEquals(4, scan("Set a = {\"k\":[{}, []]}\n").literals(), "nested literals are literals too");
    }

    // ------------------------------------------------------------------------------ scanner

    record Scan(int literals, List<String> defects) {
    }

    /** Finds the JSON literals of ObjectScript source <var>text</var> and the values followed by a stray character. */
    static Scan scan(String text) {
        Scanner s = new Scanner(text);
        s.code();
        return new Scan(s.literals, s.defects);
    }

    private static final class Scanner {
        private final String t;
        private int k;
        private int literals;
        private final List<String> defects = new ArrayList<>();

        Scanner(String text) {
            this.t = text;
        }

        /** ObjectScript outside literals: strings ("" doubles a quote) and comments are skipped. */
        void code() {
            while (k < t.length()) {
                char ch = t.charAt(k);
                if (ch == '"') {
                    skipObjectScriptString();
                } else if (t.startsWith("//", k) || ch == ';' || t.startsWith("#;", k)) {
                    skipToEndOfLine();
                } else if (t.startsWith("/*", k)) {
                    int end = t.indexOf("*/", k + 2);
                    k = end < 0 ? t.length() : end + 2;
                } else if (startsLiteral()) {
                    literal();
                } else {
                    k++;
                }
            }
        }

        /**
         * An object literal opens with { and then a key or its end ("{"" or "{}"; a code block opens with a
         * command, SqlComputeCode's {*} and {Field} with neither); an array literal with [ where an
         * expression starts (after = ( , :), unlike the contains operator, which follows an operand.
         */
        private boolean startsLiteral() {
            char ch = t.charAt(k);
            if (ch == '{') {
                char next = nextNonBlank(k + 1);
                return next == '"' || next == '}';
            }
            if (ch == '[') {
                char before = previousNonBlank(k - 1);
                return before == '=' || before == '(' || before == ',' || before == ':';
            }
            return false;
        }

        /**
         * One literal from its opening bracket; nested literals and (expressions) inside it included. False
         * after a defect, which is reported once, by the innermost literal.
         */
        private boolean literal() {
            int start = k;
            literals++;
            char close = t.charAt(k) == '{' ? '}' : ']';
            k++;
            while (k < t.length()) {
                skipBlanks();
                if (k >= t.length()) {
                    return true;
                }
                char ch = t.charAt(k);
                if (ch == close) {
                    k++;
                    return true;
                }
                if (ch == ',' || ch == ':') {
                    k++;
                    continue;
                }
                if (ch == '"') {
                    skipJsonString();
                } else if (ch == '(') {
                    if (!expression()) {
                        return false;
                    }
                } else if (ch == '{' || ch == '[') {
                    if (!literal()) {
                        return false;
                    }
                } else if (Character.isLetterOrDigit(ch) || ch == '-' || ch == '+' || ch == '.') {
                    while (k < t.length() && (Character.isLetterOrDigit(t.charAt(k)) || "-+.".indexOf(t.charAt(k)) >= 0)) {
                        k++;
                    }
                } else {
                    defect(start);
                    return false;
                }
                // After a value: a separator or the end of the literal, never more of an ObjectScript expression.
                char after = nextNonBlank(k);
                if (after != ',' && after != ':' && after != close) {
                    defect(start);
                    return false;
                }
            }
            return true;
        }

        /** A parenthesised ObjectScript expression inside a literal; false after a defect in a literal in it. */
        private boolean expression() {
            int depth = 0;
            while (k < t.length()) {
                char ch = t.charAt(k);
                if (ch == '"') {
                    skipObjectScriptString();
                    continue;
                }
                if ((ch == '{' || ch == '[') && startsLiteral()) {
                    if (!literal()) {
                        return false;
                    }
                    continue;
                }
                k++;
                if (ch == '(') {
                    depth++;
                } else if (ch == ')' && --depth == 0) {
                    return true;
                }
            }
            return true;
        }

        private void defect(int start) {
            int line = 1;
            for (int i = 0; i < start; i++) {
                if (t.charAt(i) == '\n') {
                    line++;
                }
            }
            int eol = t.indexOf('\n', start);
            String shown = t.substring(start, eol < 0 ? t.length() : eol);
            // The literal as far as it goes on its line, without the call around it.
            int end = shown.lastIndexOf('}');
            defects.add(line + ": " + (end > 0 ? shown.substring(0, end + 1) : shown).strip());
            skipToEndOfLine();
        }

        private void skipObjectScriptString() {
            k++;
            while (k < t.length() && t.charAt(k) != '"' && t.charAt(k) != '\n') {
                k++;
            }
            k++; // a doubled quote is read as two strings, which skips the same characters
        }

        private void skipJsonString() {
            k++;
            while (k < t.length() && t.charAt(k) != '"' && t.charAt(k) != '\n') {
                k += t.charAt(k) == '\\' ? 2 : 1;
            }
            k++;
        }

        private void skipToEndOfLine() {
            while (k < t.length() && t.charAt(k) != '\n') {
                k++;
            }
        }

        private void skipBlanks() {
            while (k < t.length() && Character.isWhitespace(t.charAt(k))) {
                k++;
            }
        }

        private char nextNonBlank(int from) {
            int i = from;
            while (i < t.length() && Character.isWhitespace(t.charAt(i))) {
                i++;
            }
            return i < t.length() ? t.charAt(i) : 0;
        }

        private char previousNonBlank(int from) {
            int i = from;
            while (i >= 0 && Character.isWhitespace(t.charAt(i))) {
                i--;
            }
            return i >= 0 ? t.charAt(i) : 0;
        }
    }

    // -------------------------------------------------------------------------------- files

    private static Path root() {
        Path cwd = Path.of("").toAbsolutePath();
        if (Files.isDirectory(cwd.resolve("cls"))) {
            return cwd;
        }
        String basedir = System.getProperty("basedir");
        return basedir != null ? Path.of(basedir) : cwd;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
