package iristerm.iris;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

/**
 * Holds the Java side of docs/iris-contract.md against the ObjectScript sources in cls/: every
 * method Java calls ({@link IrisMethod}) is a public class method of {@link IrisMethod#CLASS} taking
 * {@link IrisMethod#ARITY} argument(s) and returning %String, and every JSON field Java reads
 * ({@link IrisFields#FIELDS_READ}) is produced somewhere in the Terminal classes. Nothing here needs
 * IRIS; a missing class file fails (it never skips or passes vacuously).
 */
class IrisContractTest {
    /** Terminal/*.cls that are not part of the Java ↔ IRIS JSON contract. */
    private static final Set<String> NOT_CONTRACT = Set.of("REST.cls", "Gateway.cls", "Installer.cls");

    // ------------------------------------------------------------------------------- methods

    @TestFactory
    Stream<DynamicTest> everyMethodJavaCallsIsAPublicClassMethodOfOneStringReturningString() {
        assertEquals(List.of("Ping", "Open", "Signal", "Audit"),
                Arrays.stream(IrisMethod.values()).map(IrisMethod::method).toList(), "docs/iris-contract.md names four");
        return Arrays.stream(IrisMethod.values()).map(m -> dynamicTest(
                IrisMethod.CLASS + "." + m.method() + " (" + m.name() + ")", () -> checkDeclared(m)));
    }

    private static void checkDeclared(IrisMethod m) {
        Path file = classFile(IrisMethod.CLASS);
        Udl.ClassDef cls = Udl.parse(read(file));
        assertEquals(IrisMethod.CLASS, cls.name(), file + " declares another class");
        String want = "ClassMethod " + m.method() + "(request As %String) As %String";
        List<Udl.Member> named = cls.members().stream().filter(x -> x.name().equals(m.method())).toList();
        if (named.isEmpty()) {
            List<String> near = cls.members().stream().map(Udl.Member::name)
                    .filter(n -> n.equalsIgnoreCase(m.method())).toList();
            fail(rel(file) + " declares no member " + m.method() + (near.isEmpty() ? "" : " (only " + near
                    + ": ObjectScript names are case-sensitive)") + "; Java calls " + IrisMethod.CLASS + "."
                    + m.method() + " (IrisMethod." + m.name() + "): declare `" + want + "`");
        }
        assertEquals(1, named.size(), rel(file) + " declares " + m.method() + " more than once");
        Udl.Member decl = named.get(0);
        String where = rel(file) + ":" + decl.line() + " `" + decl.declaration().replaceAll("\\s+", " ").strip() + "`";
        assertEquals("ClassMethod", decl.kind(), where + ": Java calls class methods; declare `" + want + "`");
        assertEquals(IrisMethod.ARITY, decl.args().size(), where + ": Java passes exactly " + IrisMethod.ARITY
                + " argument(s) (the request JSON), the declaration has " + decl.args());
        assertTrue(decl.returnType() != null && (decl.returnType().equalsIgnoreCase("%String")
                        || decl.returnType().equalsIgnoreCase("%Library.String")),
                where + ": must return %String (the answer JSON), returns " + decl.returnType());
        assertFalse(decl.isPrivate(), where + ": Java cannot call a Private method");
    }

    // ---------------------------------------------------------------------------------- link

    /**
     * Every mark event Java follows and every line type Java sends is a string literal in the code of
     * Terminal.Engine (the job that writes the marks and reads the lines), comments not counted.
     */
    @TestFactory
    Stream<DynamicTest> everyMarkEventAndLineTypeOfTheLinkIsInTheEngine() {
        assertEquals(List.of("prompt", "start", "done", "read", "readend", "sql", "bye"), LinkProtocol.EVENTS);
        assertEquals(List.of("x", "a", "q", "bye"), LinkProtocol.INBOUND);
        String engine = Udl.producingCode(Udl.parse(read(classFile(ENGINE))));
        return Stream.concat(LinkProtocol.EVENTS.stream().map(e -> "event " + e),
                        LinkProtocol.INBOUND.stream().map(t -> "line type " + t)).distinct()
                .map(what -> dynamicTest(what, () -> {
                    String name = what.substring(what.lastIndexOf(' ') + 1);
                    assertTrue(engine.contains("\"" + name + "\""), ENGINE + " (cls/Terminal/Engine.cls) never names \""
                            + name + "\" (" + what + " of docs/iris-contract.md, which Java relies on)");
                }));
    }

    /** Every field Java reads from the hello and the marks is one Terminal.Engine writes. */
    @TestFactory
    Stream<DynamicTest> everyHelloAndMarkFieldJavaReadsIsProducedByTheEngine() {
        String engine = Udl.producingCode(Udl.parse(read(classFile(ENGINE))));
        return Stream.concat(LinkProtocol.HELLO_FIELDS.stream(), LinkProtocol.MARK_FIELDS.stream()).distinct()
                .map(f -> dynamicTest("field " + f, () -> assertTrue(produces(engine, f), "Java reads \"" + f
                        + "\" from the link (LinkProtocol), but cls/Terminal/Engine.cls never produces it")));
    }

    /** The mark introducer Java looks for is the one the engine writes. */
    @Test
    void theEngineWritesTheMarkIntroducerJavaLooksFor() {
        String engine = Udl.producingCode(Udl.parse(read(classFile(ENGINE))));
        assertTrue(engine.contains("7715"), "cls/Terminal/Engine.cls never writes ESC ] 7715 ; (LinkProtocol.MARK_INTRO)");
    }

    /**
     * Engine review round 2: whether %ToJSON writes a fraction the ObjectScript way (.5) is a live question; the
     * link reads it either way, so that a mark or an SQL answer holding one is never lost.
     */
    @Test
    void theLinkReadsAFractionWrittenWithoutALeadingZero() throws Exception {
        assertEquals(0.5, LinkProtocol.JSON.readTree("{\"result\":{\"rows\":[[.5,-.25]]}}").path("result").path("rows")
                .get(0).get(0).asDouble());
        assertEquals(-0.25, LinkProtocol.JSON.readTree("[.5,-.25]").get(1).asDouble());
    }

    /** The doctor compares Ping's version with the classes it was built against. */
    @Test
    void theDoctorExpectsTheVersionTheClassesDeclare() {
        Matcher m = Pattern.compile("Parameter\\s+VERSION\\s*=\\s*\"([^\"]*)\"")
                .matcher(read(classFile(IrisMethod.CLASS)));
        assertTrue(m.find(), "Terminal.Session declares no VERSION parameter");
        assertEquals(iristerm.doctor.Doctor.CLASSES_VERSION, m.group(1), "Terminal.Session's VERSION is not the one the"
                + " doctor expects (Doctor.CLASSES_VERSION)");
    }

    private static final String ENGINE = "Terminal.Engine";

    // -------------------------------------------------------------------------------- fields

    @Test
    void everyFieldJavaReadsIsProducedByTheObjectScript() {
        List<String> fields = IrisFields.FIELDS_READ;
        assertFalse(fields.isEmpty(), "IrisFields.FIELDS_READ is empty");
        Path session = classFile(IrisMethod.CLASS);
        Map<String, String> code = contractCode(session.getParent());
        Set<String> missing = new TreeSet<>();
        for (String f : fields) {
            if (code.values().stream().noneMatch(c -> produces(c, f))) {
                missing.add(f);
            }
        }
        assertTrue(missing.isEmpty(), "Java reads " + missing + " but no ObjectScript in " + code.keySet()
                + " produces it (as {\"name\":…}, .%Set(\"name\",…), obj.name = … or obj.\"name\" = …; comments do"
                + " not count). Produce it in Terminal.Session/Engine/SQL, or stop reading it in Java"
                + " (IrisFields.FIELDS_READ) and docs/iris-contract.md.");
    }

    /** The comment-free code of every contract class in cls/Terminal, by file name. */
    static Map<String, String> contractCode(Path dir) {
        Map<String, String> code = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".cls")).sorted().toList()) {
                if (!NOT_CONTRACT.contains(f.getFileName().toString())) {
                    code.put(f.getFileName().toString(), Udl.producingCode(Udl.parse(read(f))));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return code;
    }

    /** Whether ObjectScript (or Python) {@code code} writes a JSON field called {@code f}. */
    static boolean produces(String code, String f) {
        String q = Pattern.quote(f);
        List<String> forms = new ArrayList<>(List.of(
                "\"" + q + "\"\\s*:",                 // {"f": …} dynamic-object literal (or a Python dict)
                "\"\"" + q + "\"\"\\s*:",             // "{""f"":…}" JSON built in a string
                "'" + q + "'\\s*:",                   // {'f': …} Python
                "%Set\\(\\s*\"" + q + "\"\\s*,",      // obj.%Set("f", …)
                "\\.\"" + q + "\"\\s*=",              // obj."f" = …
                "%JSONFIELDNAME\\s*=\\s*\"" + q + "\""));
        if (f.matches("%?[A-Za-z][A-Za-z0-9]*")) {
            forms.add("\\." + q + "\\s*=");           // obj.f = …  (an underscore would be concatenation)
        }
        for (String form : forms) {
            if (Pattern.compile(form).matcher(code).find()) {
                return true;
            }
        }
        return false;
    }

    // --------------------------------------------------------------------- parser self-tests

    /** The parser copes with what UDL allows, so a failure above is about the class, not the parser. */
    @Test
    void theUdlParserReadsRealisticDeclarations() {
        String udl = String.join("\n",
                "/// Doc with ClassMethod Fake(a, b) As %String in prose",
                "Include %occStatus",
                "",
                "Class Terminal.Example Extends (%Persistent, %JSON.Adaptor)",
                "[ Final, SqlTableName = Example ]",
                "{",
                "",
                "/// returns {\"session\":1} -- doc comments are not code",
                "Parameter VERSION = \"0.1\";",
                "",
                "Parameter TEMPLATE = {\"a\":1};",
                "",
                "Property Owner As %String(MAXLEN = 128) [ Required ];",
                "",
                "Property Nick As %String(%JSONFIELDNAME = \"nick_name\");",
                "",
                "// a line comment at member level",
                "/* a block comment",
                "ClassMethod Hidden(x) As %String",
                "*/",
                "ClassMethod Plain(req As %String) As %String",
                "{",
                "  set out = {\"state\":\"idle\", \"ev_next\":(..Next())}",
                "  do out.%Set(\"out_start\", 3)",
                "  set out.tlevel = $TLEVEL, out.\"seq_done\" = 7",
                "  // set out.commented = 1",
                "  set x = \"a // not a comment\" ; set out.alsoCommented = 1",
                "  if x = \"}\" { quit \"{\" }",
                "  quit out.%ToJSON()",
                "}",
                "",
                "ClassMethod Defaults(",
                "    a As %String = \"x,y\",",
                "    ByRef b As %DynamicObject = {{\"k\":[1,2]}},",
                "    Output c As %List,",
                "    d As %String(MAXLEN=\"\", VALUELIST=\",a,b\") = \"(\",",
                "    args...) As %Library.String [ Internal, SqlProc ]",
                "{",
                "wstr(s) write s quit",
                "}",
                "",
                "ClassMethod Hush(req As %String) As %String [ Private ]",
                "{",
                "}",
                "",
                "ClassMethod Open(req As %String) As %String [ Not Private, ProcedureBlock = 0 ]",
                "{ quit \"{}\" }",
                "",
                "Method Instance() As %Status",
                "{",
                "  quit $$$OK",
                "}",
                "",
                "ClassMethod Py(req As %String) As %String [ Language = python ]",
                "{",
                "    return json.dumps({'py_field': 1})",
                "}",
                "",
                "Storage Default",
                "{",
                "<Data name=\"ExampleDefaultData\">",
                "<Value name=\"1\"><Value>%%CLASSNAME</Value></Value>",
                "</Data>",
                "}",
                "",
                "}",
                "");
        Udl.ClassDef c = Udl.parse(udl);
        assertEquals("Terminal.Example", c.name());
        assertEquals(List.of("VERSION", "TEMPLATE", "Owner", "Nick", "Plain", "Defaults", "Hush", "Open", "Instance",
                "Py", "Default"), c.members().stream().map(Udl.Member::name).toList());

        Udl.Member plain = member(c, "Plain");
        assertEquals("ClassMethod", plain.kind());
        assertEquals(List.of("req As %String"), plain.args());
        assertEquals("%String", plain.returnType());
        assertFalse(plain.isPrivate());
        assertEquals(21, plain.line());

        Udl.Member defaults = member(c, "Defaults");
        assertEquals(5, defaults.args().size(), defaults.args().toString());
        assertEquals("%Library.String", defaults.returnType());
        assertEquals(List.of("Internal", "SqlProc"), defaults.keywords());
        assertFalse(defaults.isPrivate());

        assertTrue(member(c, "Hush").isPrivate());
        assertFalse(member(c, "Open").isPrivate());
        assertEquals(List.of(), member(c, "Instance").args());
        assertEquals("Method", member(c, "Instance").kind());
        assertEquals("%Status", member(c, "Instance").returnType());

        String code = Udl.producingCode(c);
        for (String f : List.of("state", "ev_next", "out_start", "tlevel", "seq_done", "py_field", "nick_name", "Owner")) {
            assertTrue(produces(code, f), f + " is produced in:\n" + code);
        }
        for (String f : List.of("session", "commented", "alsoCommented", "Fake", "a", "ExampleDefaultData")) {
            assertFalse(produces(code, f), f + " is not produced (comments, doc, storage) in:\n" + code);
        }
    }

    private static Udl.Member member(Udl.ClassDef c, String name) {
        return c.members().stream().filter(m -> m.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no member " + name));
    }

    // ------------------------------------------------------------------------------- files

    /** cls/Terminal/Session.cls for Terminal.Session; fails clearly when it does not exist. */
    static Path classFile(String className) {
        Path root = projectRoot();
        Path file = root.resolve("cls").resolve(className.replace('.', '/') + ".cls");
        if (!Files.isRegularFile(file)) {
            fail(rel(file) + " does not exist (looked in " + root.toAbsolutePath() + "): Java calls the class methods of "
                    + className + " listed in IrisMethod, so that class must be in cls/ as UDL");
        }
        return file;
    }

    private static Path projectRoot() {
        Path cwd = Path.of("").toAbsolutePath();
        if (Files.isDirectory(cwd.resolve("cls"))) {
            return cwd;
        }
        String basedir = System.getProperty("basedir");
        return basedir != null ? Path.of(basedir) : cwd; // surefire runs in the project root anyway
    }

    private static String rel(Path file) {
        Path root = projectRoot();
        return file.startsWith(root) ? root.relativize(file).toString() : file.toString();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------------------- the parser

    /**
     * Just enough of a UDL (.cls) reader: the class name and each member's declaration, parsed
     * formal spec, return type, keywords and body. It relies on UDL's layout: members start at the
     * beginning of a line, a body opens with "{" after the declaration and closes with "}" alone at
     * the start of a line (code lines are indented or are labels, never a lone "}").
     */
    static final class Udl {
        record ClassDef(String name, String header, List<Member> members) {
        }

        record Member(String kind, String name, String declaration, List<String> args, String returnType,
                      List<String> keywords, String body, int line) {
            boolean isPrivate() {
                for (String k : keywords) {
                    String n = k.replaceAll("\\s+", " ").strip().toLowerCase(Locale.ROOT);
                    if (n.equals("private") || n.matches("private ?= ?(1|true)")) {
                        return true;
                    }
                }
                return false;
            }

            boolean isPython() {
                return keywords.stream().anyMatch(k -> k.replaceAll("\\s+", "").equalsIgnoreCase("Language=python"));
            }
        }

        private static final Pattern CLASS = Pattern.compile("^Class\\s+(%?[\\w.]+)");
        private static final Pattern MEMBER = Pattern.compile("^(ClassMethod|Method|ClientMethod|Query|Property|"
                + "Parameter|Index|XData|Storage|Trigger|ForeignKey|Relationship|Projection)\\s+(\"[^\"]+\"|%?\\w+)");
        private static final Set<String> WITH_BODY = Set.of("ClassMethod", "Method", "ClientMethod", "Query", "XData",
                "Storage", "Trigger");
        private static final Set<String> CODE = Set.of("ClassMethod", "Method", "ClientMethod", "Trigger");

        static ClassDef parse(String text) {
            String[] lines = text.split("\r\n|\r|\n", -1);
            int i = 0;
            String name = null;
            StringBuilder header = new StringBuilder();
            boolean block = false;
            for (; i < lines.length; i++) {
                String t = lines[i].strip();
                if (block || t.startsWith("/*")) {
                    block = !t.contains("*/");
                    continue;
                }
                if (name == null) {
                    Matcher m = CLASS.matcher(t);
                    if (m.find()) {
                        name = m.group(1);
                    } else {
                        continue; // comments, Include, Import
                    }
                }
                header.append(header.length() > 0 ? " " : "").append(t);
                if (t.endsWith("{")) {
                    i++;
                    break;
                }
            }
            if (name == null) {
                throw new IllegalArgumentException("no `Class <name>` declaration");
            }
            List<Member> members = new ArrayList<>();
            while (i < lines.length) {
                String t = lines[i].strip();
                if (block || t.startsWith("/*")) {
                    block = !t.contains("*/");
                    i++;
                    continue;
                }
                if (t.isEmpty() || isComment(t)) {
                    i++;
                    continue;
                }
                if (t.startsWith("}")) {
                    break; // the class ends
                }
                Matcher m = MEMBER.matcher(t);
                if (!m.find()) {
                    i++;
                    continue;
                }
                int first = i + 1;
                String kind = m.group(1);
                boolean hasBody = WITH_BODY.contains(kind);
                StringBuilder decl = new StringBuilder();
                String rest = "";
                Scan scan = new Scan();
                while (i < lines.length) {
                    String line = lines[i++];
                    int end = scan.end(line, hasBody);
                    if (end >= 0) {
                        decl.append(line, 0, end);
                        rest = line.substring(end + 1);
                        break;
                    }
                    decl.append(line).append('\n');
                }
                StringBuilder body = new StringBuilder();
                if (hasBody) {
                    String r = rest.strip();
                    if (r.endsWith("}")) {
                        body.append(r, 0, r.length() - 1); // a body on one line: { quit 1 }
                    } else {
                        body.append(rest).append('\n');
                        while (i < lines.length && !lines[i].matches("}\\s*")) {
                            body.append(lines[i++]).append('\n');
                        }
                        i++;
                    }
                }
                members.add(member(kind, unquote(m.group(2)), decl.toString(), body.toString(), first));
            }
            return new ClassDef(name, header.toString(), members);
        }

        private static boolean isComment(String t) {
            return t.startsWith("//") || t.startsWith(";") || t.startsWith("#;");
        }

        private static String unquote(String n) {
            return n.startsWith("\"") ? n.substring(1, n.length() - 1) : n;
        }

        /** Where a declaration ends: the body's "{" (methods) or the final ";" (the rest). */
        private static final class Scan {
            boolean quoted;
            int parens;
            int brackets;
            int braces;

            int end(String line, boolean hasBody) {
                for (int k = 0; k < line.length(); k++) {
                    char ch = line.charAt(k);
                    if (ch == '"') {
                        quoted = !quoted;
                    } else if (quoted) {
                        continue;
                    } else if (ch == '(') {
                        parens++;
                    } else if (ch == ')') {
                        parens--;
                    } else if (ch == '[') {
                        brackets++;
                    } else if (ch == ']') {
                        brackets--;
                    } else if (parens == 0 && brackets == 0) {
                        if (ch == '{' && hasBody) {
                            return k;
                        } else if (ch == '{') {
                            braces++;
                        } else if (ch == '}') {
                            braces--;
                        } else if (ch == ';' && braces == 0 && !hasBody) {
                            return k;
                        }
                    }
                }
                return -1;
            }
        }

        private static Member member(String kind, String name, String decl, String body, int line) {
            String d = decl.replace('\n', ' ').strip();
            Matcher head = MEMBER.matcher(d);
            if (!head.find()) {
                throw new IllegalStateException("not a member declaration: " + d);
            }
            List<String> args = List.of();
            String after = d.substring(head.end());
            String s = after.stripLeading();
            if (s.startsWith("(")) {
                int close = matching(s, 0);
                args = split(s.substring(1, close)).stream().map(String::strip).filter(x -> !x.isEmpty()).toList();
                after = s.substring(close + 1);
            }
            String type = null;
            Matcher tm = Pattern.compile("^\\s*As\\s+(%?[\\w.]+)", Pattern.CASE_INSENSITIVE).matcher(after);
            if (tm.find()) {
                type = tm.group(1);
                after = after.substring(tm.end());
                String a = after.stripLeading();
                if (a.startsWith("(")) {
                    after = a.substring(matching(a, 0) + 1); // type parameters: %String(MAXLEN = 10)
                }
            }
            List<String> keywords = List.of();
            int open = after.indexOf('[');
            if (open >= 0) {
                int close = matching(after, open);
                keywords = split(after.substring(open + 1, close)).stream().map(String::strip)
                        .filter(x -> !x.isEmpty()).toList();
            }
            return new Member(kind, name, decl, args, type, keywords, body, line);
        }

        /** Index of the bracket closing the one at {@code open}, skipping strings and nesting. */
        private static int matching(String s, int open) {
            int depth = 0;
            boolean quoted = false;
            for (int k = open; k < s.length(); k++) {
                char ch = s.charAt(k);
                if (ch == '"') {
                    quoted = !quoted;
                } else if (!quoted && "([{".indexOf(ch) >= 0) {
                    depth++;
                } else if (!quoted && ")]}".indexOf(ch) >= 0 && --depth == 0) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unbalanced brackets in: " + s);
        }

        /** Splits at commas outside strings and brackets. */
        private static List<String> split(String s) {
            List<String> parts = new ArrayList<>();
            int depth = 0;
            boolean quoted = false;
            int from = 0;
            for (int k = 0; k < s.length(); k++) {
                char ch = s.charAt(k);
                if (ch == '"') {
                    quoted = !quoted;
                } else if (!quoted && "([{".indexOf(ch) >= 0) {
                    depth++;
                } else if (!quoted && ")]}".indexOf(ch) >= 0) {
                    depth--;
                } else if (!quoted && depth == 0 && ch == ',') {
                    parts.add(s.substring(from, k));
                    from = k + 1;
                }
            }
            parts.add(s.substring(from));
            return parts;
        }

        /**
         * The text that can produce JSON: method bodies without comments, and property
         * declarations (a %JSON.Adaptor class produces its properties' names).
         */
        static String producingCode(ClassDef c) {
            boolean jsonAdaptor = c.header().contains("%JSON.Adaptor");
            StringBuilder code = new StringBuilder();
            for (Member m : c.members()) {
                if (CODE.contains(m.kind())) {
                    code.append(m.isPython() ? m.body() : stripComments(m.body())).append('\n');
                } else if (m.kind().equals("Property")) {
                    code.append(m.declaration()).append('\n');
                    if (jsonAdaptor && !m.declaration().contains("%JSONINCLUDE")) {
                        code.append(".").append(m.name()).append(" = \n");
                    }
                }
            }
            return code.toString();
        }

        /** ObjectScript without its comments: //, ;, #; to the end of the line, and block comments. */
        static String stripComments(String s) {
            StringBuilder out = new StringBuilder();
            boolean quoted = false;
            for (int k = 0; k < s.length(); k++) {
                char ch = s.charAt(k);
                if (quoted) {
                    quoted = ch != '"';
                    out.append(ch);
                } else if (ch == '"') {
                    quoted = true;
                    out.append(ch);
                } else if (s.startsWith("//", k) || ch == ';' || s.startsWith("#;", k)) {
                    while (k < s.length() && s.charAt(k) != '\n') {
                        k++;
                    }
                    out.append('\n');
                } else if (s.startsWith("/*", k)) {
                    int end = s.indexOf("*/", k + 2);
                    k = end < 0 ? s.length() : end + 1;
                } else {
                    out.append(ch);
                }
                if (ch == '\n') {
                    quoted = false; // a string literal never spans lines
                }
            }
            return out.toString();
        }
    }
}
