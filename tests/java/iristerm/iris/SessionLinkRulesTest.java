package iristerm.iris;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of the session link's security model (docs/iris-contract.md, docs/iris-designs.md) that can
 * be read off the ObjectScript sources, so that a change that breaks one fails here before any IRIS runs
 * it. Each of them failed on the store design this replaced (266cbea).
 */
class SessionLinkRulesTest {
    private static final Path CLS = Path.of(System.getProperty("basedir", ".")).resolve("cls/Terminal");

    private static String read(String file) throws IOException {
        return Files.readString(CLS.resolve(file), StandardCharsets.UTF_8);
    }

    /** Code lines only: a comment may name what the code must never do. */
    private static String code(String file) throws IOException {
        StringBuilder out = new StringBuilder();
        for (String line : read(file).split("\n")) {
            String t = line.strip();
            if (!t.startsWith("//") && !t.startsWith("///")) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    @Test
    void noClassAddsRolesOrSetsThemToAnythingButNothing() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(CLS)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".cls")).toList()) {
                String src = code(f.getFileName().toString());
                Matcher m = Pattern.compile("(?i)AddRoles|\\$Roles\\s*+=\\s*+(?!\"\")").matcher(src);
                while (m.find()) {
                    found.add(f.getFileName() + ": " + m.group());
                }
            }
        }
        assertEquals(List.of(), found, "the link design escalates nowhere: a session's code must find nothing to reach");
    }

    @Test
    void sqlRunsOnlyInTheSessionJobNeverInTheProcessThatHoldsTheGateway() throws IOException {
        assertTrue(!code("Session.cls").contains("ClassMethod SQL("), "Terminal.Session (called in the gateway's process) runs no SQL");
        for (String f : List.of("Session.cls", "Gateway.cls", "REST.cls")) {
            assertTrue(!code(f).contains("Terminal.SQL"), f + " must not run a statement: SQL can run ObjectScript");
        }
        assertTrue(code("Engine.cls").contains("##class(Terminal.SQL).Run("), "the session job runs the statement");
    }

    @Test
    void theJobDropsAddedRolesAndRefusesToRunWithTheBridgeRole() throws IOException {
        String run = code("Engine.cls");
        int start = run.indexOf("ClassMethod Run(");
        String body = run.substring(start, run.indexOf("\n}", start));
        int drop = body.indexOf("Set $Roles = \"\"");
        int refuse = body.indexOf("..#BRIDGEROLE");
        int firstCommand = body.indexOf("..Execute(");
        assertTrue(drop > 0 && refuse > drop && firstCommand > refuse,
                "Run drops added roles first, then refuses while the bridge role is held, before any command");
        assertTrue(code("Session.cls").matches("(?s).*New \\$Roles\\s+Set \\$Roles = \"\"\\s+Job ##class\\(Terminal.Engine\\).*"),
                "Open JOBs with added roles cleared (a JOB inherits $ROLES)");
    }

    /**
     * Engine review round 2 (N1): a command's output is what the log holds between its start and done marks, so the
     * engine's fresh line (a terminal's CR LF when the output did not end a line) comes after the done mark, as the
     * fake job writes it; before, every command's output ended with a CR LF it never wrote.
     */
    /**
     * Engine review round 2 (N4): Java interrupts a command once it has seen its start mark, so interrupts are on
     * before that mark is written; before, they came on after it, and an interrupt IRIS drops while they are off
     * was lost.
     */
    @Test
    void interruptsAreOnBeforeACommandIsMarkedStarted() throws IOException {
        String engine = code("Engine.cls");
        String execute = engine.substring(engine.indexOf("ClassMethod Execute("), engine.indexOf("ClassMethod Answered("));
        int start = execute.indexOf("Do ..Mark({\"e\":\"start\"");
        int on = execute.lastIndexOf("Do $System.Util.SetInterruptEnable(1)", start);
        int off = execute.lastIndexOf("Do $System.Util.SetInterruptEnable(0)", start);
        assertTrue(start > 0 && on > off, "the last switch before the start mark turns interrupts on");
        assertTrue(execute.lastIndexOf("Try {", start) > off, "and inside the command's Try, whose Catch ends it");
    }

    /**
     * Engine review round 3: a command's error is described with interrupts off (E4: a second INT cannot replace
     * it); a drained stale interrupt leaves no $ECODE/$ZERROR to the next command (E6); a half-read line of an
     * interrupted READ is dropped (E5); the ticket is not kept after the hello (E11).
     */
    @Test
    void theInterruptPathsAndTheTicket() throws IOException {
        String engine = code("Engine.cls");
        String execute = engine.substring(engine.indexOf("ClassMethod Execute("), engine.indexOf("ClassMethod Answered("));
        String caught = execute.substring(execute.indexOf("} Catch ex {"));
        assertTrue(caught.indexOf("Do $System.Util.SetInterruptEnable(0)") < caught.indexOf("Set error = ..Decompose(ex, $Namespace)"), caught);
        assertTrue(execute.contains("Set $ECode = \"\", $ZError = \"\""), "the drain clears $ECODE and $ZERROR");
        String receive = engine.substring(engine.indexOf("ClassMethod Receive("), engine.indexOf("ClassMethod Mark("));
        String onFault = receive.substring(receive.indexOf("} Catch e {"));
        assertTrue(onFault.indexOf("Kill ^||Terminal.Engine(\"part\")") < onFault.indexOf("Do ..LinkFailed(e)"), onFault);
        String run = engine.substring(engine.indexOf("ClassMethod Run("), engine.indexOf("ClassMethod Execute("));
        int hello = run.lastIndexOf("Write hello.%ToJSON(), $Char(10), *-3");
        assertTrue(run.indexOf("Set ticket = \"\"", hello) > hello && run.indexOf("Kill hello", hello) > hello, "dropped after the hello");
    }

    /**
     * Engine review round 3 (LC-JSONCTL): a mark never carries a raw BEL (its end) or ESC inside its JSON, whether
     * or not %ToJSON escapes control characters, so a SQL value or an error text holding one cannot end a mark early.
     */
    @Test
    void marksCarryNoRawBelOrEsc() throws IOException {
        String engine = code("Engine.cls");
        String mark = engine.substring(engine.indexOf("ClassMethod Mark("), engine.indexOf("ClassMethod ToLink("));
        assertTrue(mark.contains("Set json = $Replace($Replace(ev.%ToJSON(), $Char(7), \"\\u0007\"), $Char(27), \"\\u001b\")")
                && mark.contains("_json_$Char(7))"), mark);
    }

    /** Engine review round 2 (E13): a redirected READ leaves $KEY as a terminal does (CR after an answer, "" after a timeout). */
    @Test
    void aRedirectedReadSetsKey() throws IOException {
        String engine = code("Engine.cls");
        String rstr = engine.substring(engine.indexOf("\nrstr("), engine.indexOf("\nrchr("));
        assertTrue(rstr.contains("Set $Key = $Select('$Get(^||Terminal.Engine(\"got\")): \"\", (+$Get(len)>0)&&($Length(v)>=+$Get(len)): \"\", 1: $Char(13))"), rstr);
        // engine review round 5 (R5-2): READ *x too, the character read, "" after a timeout
        String rchr = engine.substring(engine.indexOf("\nrchr("), engine.indexOf("\n", engine.indexOf("\nrchr(") + 1));
        assertTrue(rchr.contains("Set $Key = $Select('$Get(^||Terminal.Engine(\"got\"))||(v<0): \"\", 1: $Char(v))"), rchr);
    }

    @Test
    void theFreshLineAfterACommandComesAfterItsDoneMark() throws IOException {
        String engine = code("Engine.cls");
        String done = engine.substring(engine.indexOf("ClassMethod Done("), engine.indexOf("ClassMethod Recover("));
        int mark = done.indexOf("Do ..Mark(ev)");
        int fresh = done.indexOf("Do:$X>0 ..Out($Char(13,10), \"nl\")");
        assertTrue(mark > 0 && fresh > mark, "Done marks first, then the fresh line");
        for (String caller : List.of("ClassMethod Execute(", "ClassMethod Recover(")) {
            String body = engine.substring(engine.indexOf(caller));
            body = body.substring(0, body.indexOf("\n}\n"));
            assertFalse(body.contains("Do:$X>0 ..Out($Char(13,10), \"nl\")\n\t\tDo ..Done(")
                    || body.contains("Do:$X>0 ..Out($Char(13,10), \"nl\")\n\tDo ..Done("), caller + " writes a fresh line before Done's mark");
        }
    }

    @Test
    void onlyAnAnswerToAReadMayBeRecordedAsSecret() throws IOException {
        assertTrue(code("Audit.cls").contains("secret = secret && (kind = \"answer\")"),
                "a command or statement is audited whole whatever the caller says");
    }

    /** The X3.64 mnemonics of IRIS's default mnemonic space ^%X364 (Terminal I/O guide). */
    private static final List<String> X364 = List.of("APC", "BEL", "CBT", "CCH", "CHA", "CHT", "CNL", "CPL", "CPR",
            "CTC", "CUB", "CUD", "CUF", "CUP", "CUU", "CVT", "DA", "DAQ", "DCH", "DCS", "DL", "ECH", "ED", "EL", "HPA",
            "HPR", "HVP", "ICH", "IL", "RM", "SD", "SGR", "SM", "SU", "TBC", "VPA", "VPR");

    @Test
    void everyMnemonicOfTheDefaultSpaceHasALabelAndTabsMoveTheCursor() throws IOException {
        String src = read("Engine.cls");
        List<String> missing = X364.stream()
                .filter(m -> !Pattern.compile("(?m)^" + m + "(\\(|\\t)").matcher(src).find()).toList();
        assertEquals(List.of(), missing, "WRITE /<mnemonic> without a label raises <NOLINE> in a session");
        for (String tab : List.of("CHT", "CBT")) {
            Matcher m = Pattern.compile("(?m)^" + tab + "\\(n\\)\\t(.*)$").matcher(src);
            assertTrue(m.find() && m.group(1).contains("TabStop("), tab + " moves $X to a tab stop");
        }
    }
}
