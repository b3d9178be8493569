package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.jsonrpc.PlainWords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static iristerm.e2e.Mcp.error;
import static iristerm.e2e.Mcp.num;
import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an agent does with process sessions, end to end through the SDK's client and the packaged
 * jar, with real processes. Each transport's suite runs all of these against its own server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class SessionScenarios {
    /** Until the prompt is back: the reading an agent does after a shell command. */
    static final Map<String, Object> PROMPT = Map.of("prompt", true);

    protected abstract ServerUnderTest.Launcher launcher();

    Path dataDir;
    ServerUnderTest server;
    McpSyncClient client;
    final LinkedBlockingQueue<McpSchema.LoggingMessageNotification> logs = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<McpSchema.ProgressNotification> progress = new LinkedBlockingQueue<>();

    @BeforeAll
    void startServer() throws Exception {
        dataDir = Files.createTempDirectory("itm-scenarios");
        server = launcher().start(dataDir, List.of("--max-input-bytes", "100000"));
        client = server.connect(logs::add, progress::add);
    }

    @AfterAll
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    String openBash() {
        return (String) openBash("pty").get("session");
    }

    /** bash as agents open it; the answer holds its first prompt, which tells the shell is ready. */
    Map<String, Object> openBash(String mode) {
        Map<String, Object> s = ok(client, "session_open", "command", "bash", "args", List.of("--norc", "--noprofile"),
                "env", Map.of("PS1", "$ "), "mode", mode);
        assertEquals("prompt", s.get("reason"), () -> "bash (" + mode + ") did not show its prompt at open: " + s);
        assertTrue(((String) s.get("data")).endsWith("$ "), s::toString);
        return s;
    }

    /** session_send as an agent writes it: a wait and no until. */
    Map<String, Object> send(String session, String line) {
        return ok(client, "session_send", "session", session, "text", line, "wait_ms", 20000);
    }

    Map<String, Object> run(String session, String line) {
        return ok(client, "session_send", "session", session, "text", line, "wait_ms", 20000, "until", PROMPT);
    }

    String open(Object... kv) {
        return (String) ok(client, "session_open", kv).get("session");
    }

    @Test
    void bashKeepsStateBetweenCalls() {
        String s = openBash();
        run(s, "X=41");
        Map<String, Object> r = run(s, "echo $((X+1))");
        assertEquals("prompt", r.get("reason"));
        assertTrue(((String) r.get("data")).contains("\n42"), r::toString);
    }

    @Test
    void pythonReplRoundTrip() {
        // python starts slowest of these on a loaded machine: a longer wait than the default (which bash tests)
        Map<String, Object> opened = ok(client, "session_open", "command", "python3", "wait_ms", 10000);
        assertEquals("prompt", opened.get("reason"), opened::toString);
        assertTrue(((String) opened.get("data")).contains("Python 3") && ((String) opened.get("data")).endsWith(">>> "),
                opened::toString);
        String s = (String) opened.get("session");
        Map<String, Object> r = send(s, "import time; print(6*7); time.sleep(0.4); print('after'+'-sleep')");
        assertEquals("prompt", r.get("reason"), r::toString);
        String data = (String) r.get("data");
        assertTrue(data.lines().toList().containsAll(List.of("42", "after-sleep")), r::toString);
        assertTrue(data.endsWith(">>> "), r::toString);
        assertFalse(data.contains("Python 3"), () -> "the banner came again: " + r);
        assertEquals("waiting_input", r.get("state"));
        ok(client, "session_close", "session", s);
    }

    /**
     * The first steps: open bash, send a command that prints twice with pauses; one call
     * returns both lines, ended by the prompt that follows them, not by the echo or the start-up prompt.
     */
    @Test
    void bashOpenShowsItsPromptAndOneSendReturnsTheWholeCommand() {
        for (String mode : List.of("pty", "pipe")) {
            Map<String, Object> opened = openBash(mode);
            Map<String, Object> r = send((String) opened.get("session"), "sleep 0.3; echo a; sleep 0.3; echo b");
            assertEquals("prompt", r.get("reason"), () -> mode + ": " + r);
            String data = (String) r.get("data");
            assertTrue(data.lines().toList().containsAll(List.of("a", "b")), () -> mode + ": " + r);
            assertTrue(data.endsWith("$ ") && data.indexOf("$ ") == data.length() - 2,
                    () -> mode + ": only the prompt after the command ends the answer: " + r);
            assertFalse(data.contains("job control"), () -> mode + ": the start-up output came again: " + r);
            ok(client, "session_close", "session", opened.get("session"));
        }
    }

    @Test
    void programsWithoutAPromptEndOnQuiet() {
        // prints two lines 100 ms apart for each line it reads, and no prompt
        Map<String, Object> opened = ok(client, "session_open", "command", "bash", "mode", "pipe", "args",
                List.of("-c", "while read l; do echo one-$l; sleep 0.1; echo two-$l; done"));
        assertEquals("quiet", opened.get("reason"), () -> "nothing printed at start: " + opened);
        assertEquals("", opened.get("data"));
        String s = (String) opened.get("session");
        Map<String, Object> r = send(s, "x");
        assertEquals("quiet", r.get("reason"), r::toString);
        assertEquals(List.of("one-x", "two-x"), ((String) r.get("data")).lines().toList(), r::toString);

        String cat = open("command", "cat");
        Map<String, Object> echoed = send(cat, "hello-cat");
        // on a pty the kernel tells that cat reads again (elsewhere the output's quiet ends the wait)
        assertTrue(List.of("input", "quiet").contains(echoed.get("reason")), echoed::toString);
        assertEquals(List.of("hello-cat", "hello-cat"), ((String) echoed.get("data")).lines().toList(),
                () -> "the terminal's echo, then cat's copy: " + echoed);
        ok(client, "session_close", "session", s);
        ok(client, "session_close", "session", cat);
    }

    @Test
    void aSlowStartIsWaitedForWithALongerOpenWait() {
        // silent for 1.5 s (a heavy rc file), then a prompt: half of wait_ms is the silence open tolerates
        Map<String, Object> opened = ok(client, "session_open", "command", "bash", "mode", "pipe", "wait_ms", 8000,
                "args", List.of("-c", "sleep 1.5; printf 'ready> '; read l; echo got-$l"));
        assertEquals("prompt", opened.get("reason"), opened::toString);
        assertEquals("ready> ", opened.get("data"), opened::toString);
        Map<String, Object> r = send((String) opened.get("session"), "x");
        assertEquals("exit", r.get("reason"), r::toString);
        assertEquals("got-x", ((String) r.get("data")).strip(), r::toString);
    }

    @Test
    void untilDataStillReturnsOnTheFirstByte() {
        String s = openBash();
        for (Object data : List.of(Map.of("data", true), "data")) {
            Map<String, Object> r = ok(client, "session_send", "session", s, "text", "sleep 0.5; echo lat''er",
                    "wait_ms", 10000, "until", data);
            assertEquals("data", r.get("reason"), r::toString);
            assertFalse(((String) r.get("data")).contains("later"), () -> "waited past the first byte: " + r);
            run(s, "");
        }
        ok(client, "session_close", "session", s);
    }

    @Test
    void aWaitingReadReturnsTheCommandsOutputCoalesced() {
        String s = openBash();
        ok(client, "session_send", "session", s, "text", "for i in 1 2 3; do echo row$i; sleep 0.2; done", "wait_ms", 0);
        Map<String, Object> r = ok(client, "session_read", "session", s, "wait_ms", 20000);
        assertEquals("prompt", r.get("reason"), r::toString);
        assertTrue(((String) r.get("data")).lines().toList().containsAll(List.of("row1", "row2", "row3")), r::toString);
        ok(client, "session_close", "session", s);
    }

    @Test
    void theEchoOfTheInputIsNotTakenForAPrompt() {
        String s = openBash();
        // no Enter: the terminal echoes text ending like a prompt, and bash has not answered anything
        Map<String, Object> typed = ok(client, "session_send", "session", s, "text", "echo ok #> ", "enter", false,
                "wait_ms", 1000, "until", PROMPT);
        assertEquals("timeout", typed.get("reason"), typed::toString);
        Map<String, Object> r = ok(client, "session_send", "session", s, "text", "", "wait_ms", 20000, "until", PROMPT);
        assertEquals("prompt", r.get("reason"), r::toString);
        assertTrue(((String) r.get("data")).lines().toList().contains("ok"), r::toString);
        ok(client, "session_close", "session", s);
    }

    @Test
    void readersAreIndependent() {
        String s = openBash();
        ok(client, "session_send", "session", s, "text", "echo hello-$((20+3))", "wait_ms", 10000,
                "until", Map.of("pattern", "hello-23"), "reader", "a");
        Map<String, Object> b = ok(client, "session_read", "session", s, "reader", "b", "wait_ms", 5000,
                "until", Map.of("pattern", "hello-23"));
        assertEquals("pattern", b.get("reason"));
        assertTrue(((String) b.get("data")).contains("hello-23"));
        Map<String, Object> a = ok(client, "session_read", "session", s, "reader", "a", "wait_ms", 0,
                "until", Map.of("pattern", "hello-23"));
        assertFalse(((String) a.get("data")).contains("hello-23"), "reader a already consumed it: " + a);
    }

    @Test
    void everyReasonHasItsCase() {
        String s = openBash();
        Map<String, Object> data = ok(client, "session_send", "session", s, "text", "echo plain", "wait_ms", 5000,
                "until", "data");
        assertEquals("data", data.get("reason"));
        run(s, "");

        Map<String, Object> pattern = ok(client, "session_send", "session", s,
                "text", "sleep 0.2; echo MARK-$((6*7)); sleep 0.3; echo aft''er", "wait_ms", 10000,
                "until", Map.of("pattern", "MARK-42"));
        assertEquals("pattern", pattern.get("reason"), pattern::toString);
        assertFalse(((String) pattern.get("data")).contains("after"), "the read should stop at the pattern");
        run(s, "");

        Map<String, Object> quiet = ok(client, "session_send", "session", s,
                "text", "for i in 1 2 3; do echo tick$i; sleep 0.1; done; sleep 5", "wait_ms", 15000,
                "until", Map.of("quiet_ms", 800));
        assertEquals("quiet", quiet.get("reason"), quiet::toString);
        assertTrue(((String) quiet.get("data")).contains("tick3"));
        ok(client, "session_signal", "session", s, "signal", "INT");
        ok(client, "session_read", "session", s, "wait_ms", 5000, "until", PROMPT);

        Map<String, Object> prompt = run(s, "sleep 0.3; echo finished");
        assertEquals("prompt", prompt.get("reason"));
        assertTrue(((String) prompt.get("data")).contains("finished"));

        String e = open("command", "bash", "args", List.of("-c", "sleep 0.2; exit 3"), "mode", "pipe");
        Map<String, Object> exit = ok(client, "session_read", "session", e, "wait_ms", 10000, "until", Map.of("exit", true));
        assertEquals("exit", exit.get("reason"));
        assertEquals(3L, num(exit, "exit_code"));
        assertEquals("exited", exit.get("state"));

        String c = open("command", "cat", "mode", "pipe");
        Map<String, Object> timeout = ok(client, "session_read", "session", c, "wait_ms", 300);
        assertEquals("timeout", timeout.get("reason"));
    }

    /**
     * The size guard informs: 10 MB of output is judged once the command is done, and the answer holds its first
     * and last part, how much was left out between and the state; the left-out part is then read by offset, to a
     * file or in pages, and the next command is answered on its own.
     */
    @Test
    void tenMegabytesGiveHeadTailWhatWasLeftOutAndTheRestByOffset() throws Exception {
        String s = openBash();
        Map<String, Object> big = ok(client, "session_send", "session", s, "text", "seq 1 1500000", "wait_ms", 50000);
        assertEquals("oversized", big.get("reason"), big::toString);
        assertFalse("running".equals(big.get("state")), big::toString);
        String data = (String) big.get("data");
        List<String> lines = data.lines().toList();
        assertTrue(lines.size() > 3 && lines.get(0).endsWith("seq 1 1500000") && lines.subList(1, 4)
                .equals(List.of("1", "2", "3")), () -> "the head: " + data.substring(0, 200));
        assertTrue(lines.contains("1500000") && data.endsWith("$ "), () -> "the tail: "
                + data.substring(data.length() - 200));
        assertTrue(data.length() < 32768 + 200, "within the budget: " + data.length());
        @SuppressWarnings("unchecked")
        Map<String, Object> leftOut = (Map<String, Object>) big.get("left_out");
        assertNotNull(leftOut, big.keySet()::toString);
        assertTrue(num(leftOut, "bytes") > 10_000_000, leftOut::toString);
        assertEquals(num(leftOut, "to") - num(leftOut, "from"), num(leftOut, "bytes"));
        assertTrue(data.contains(num(leftOut, "bytes") + " bytes left out"), "the place is marked in data");
        assertTrue(((String) big.get("hint")).contains("\"cursor\": " + num(leftOut, "from")), big::toString);
        assertTrue(num(big, "cursor") > num(leftOut, "to"), "the reader moved past all of it: " + big.get("cursor"));

        Map<String, Object> file = ok(client, "session_read", "session", s, "cursor", num(leftOut, "from"),
                "to_file", "out/middle.txt");
        List<String> written = Files.readAllLines(Path.of((String) file.get("file")));
        assertTrue(written.contains("750000") && written.contains("1500000"), "the left-out part and the tail");
        assertTrue(num(file, "bytes") >= num(leftOut, "bytes"), file::toString);

        Map<String, Object> page = ok(client, "session_read", "session", s, "cursor", num(leftOut, "from"),
                "force", true, "max_bytes", 65536);
        assertEquals(65536L, num(page, "bytes"), page::toString);
        Map<String, Object> next = ok(client, "session_read", "session", s, "force", true, "max_bytes", 65536);
        assertEquals(num(leftOut, "from") + 2 * 65536, num(next, "cursor"), "pages go on from the cursor given");
        String joined = page.get("data") + (String) next.get("data");
        assertTrue(joined.lines().anyMatch("20000"::equals), "pages of the left-out part in order");

        String past = error(client, "session_read", "session", s, "cursor", 1L << 40);
        assertTrue(past.contains("past the end") && past.contains("from 0 to"), past);
        String both = error(client, "session_read", "session", s, "cursor", 0, "all", true);
        assertTrue(both.contains("'all'") && both.contains("'cursor'"), both);

        ok(client, "session_read", "session", s, "to_file", "out/rest.txt");
        Map<String, Object> after = send(s, "echo next-command");
        assertEquals("prompt", after.get("reason"), after::toString);
        assertFalse(((String) after.get("data")).contains("1500000"), after::toString);
        ok(client, "session_close", "session", s);
    }

    /** A command that printed too much and still runs when the wait is over: the answer says so, and how to go on. */
    @Test
    void oversizedOutputOfARunningCommandSaysItRuns() {
        String s = openBash();
        Map<String, Object> r = ok(client, "session_send", "session", s, "text", "seq 1 200000; sleep 30",
                "wait_ms", 3000);
        assertEquals("oversized", r.get("reason"), r::toString);
        assertEquals("running", r.get("state"), r::toString);
        assertTrue(((String) r.get("data")).lines().anyMatch("200000"::equals), "the tail holds the last line");
        assertTrue(((String) r.get("hint")).contains("still running"), r::toString);
        Map<String, Object> stopped = interruptUntilPrompt(s,
                () -> ok(client, "session_signal", "session", s, "signal", "INT"));
        assertEquals("prompt", stopped.get("reason"), stopped::toString);
        ok(client, "session_close", "session", s);
    }

    @Test
    void forceAndToFileStillDeliverEverything() throws Exception {
        String s = openBash();
        run(s, "seq 1 20000");
        Map<String, Object> file = ok(client, "session_read", "session", s, "reader", "file", "to_file", "out/seq.txt");
        String content = Files.readString(Path.of((String) file.get("file")));
        assertTrue(content.contains("\n19999\n20000\n"), "the file holds all of the output");
        assertTrue(num(file, "bytes") > 100_000);

        run(s, "seq 1 20000");
        String all = "";
        Map<String, Object> page;
        int pages = 0;
        do {
            page = ok(client, "session_read", "session", s, "reader", "pager", "max_bytes", 16384, "force", true);
            all += page.get("data");
            pages++;
        } while (num(page, "available") > 0);
        assertTrue(pages > 10, "pages of max_bytes");
        assertEquals(2, all.lines().filter("20000"::equals).count(), "both runs, every line, in pages");
        ok(client, "session_close", "session", s);
    }

    @Test
    void stripAnsiRemovesColoursAndCollapsesProgressBars() {
        String s = openBash();
        Map<String, Object> colour = run(s, "printf '\\033[31mRED\\033[0m-text\\n'");
        assertTrue(((String) colour.get("data")).contains("\nRED-text"), colour::toString);
        assertFalse(((String) colour.get("data")).contains("\u001b"));

        Map<String, Object> raw = ok(client, "session_send", "session", s, "text", "printf '\\033[32mGREEN\\033[0m\\n'",
                "wait_ms", 10000, "until", PROMPT, "strip_ansi", false);
        assertTrue(((String) raw.get("data")).contains("\u001b[32mGREEN"), raw::toString);

        Map<String, Object> bar = run(s, "printf 'progress 10%%\\rprogress 50%%\\rprogress 100%%\\n'");
        List<String> lines = ((String) bar.get("data")).lines().toList();
        assertTrue(lines.contains("progress 100%"), bar::toString);
        assertFalse(lines.contains("progress 50%"));
    }

    /**
     * A secret typed at a prompt that echoes it (read without -s) and printed back by the program never comes back
     * in clear: not in the send's answer, a read of everything, the screen, a file, the transcript resource or
     * the transcript on disk.
     */
    @Test
    void secretInputIsMaskedWhereverOutputGoes() throws Exception {
        String s = openBash();
        send(s, "read pw; echo \"got:$pw.\"");
        String secret = "hunter2-XYZZY";
        Map<String, Object> r = ok(client, "session_send", "session", s, "text", secret, "secret", true,
                "wait_ms", 20000, "until", PROMPT);
        String masked = "*".repeat(secret.length());
        assertEquals("prompt", r.get("reason"), r::toString);
        assertTrue(((String) r.get("data")).contains("got:" + masked + "."), r::toString);
        assertFalse(r.toString().contains("XYZZY"), r::toString);

        Map<String, Object> all = ok(client, "session_read", "session", s, "reader", "everything", "all", true);
        assertTrue(((String) all.get("data")).contains(masked + "\n"), "the echo, masked: " + all);
        assertFalse(all.toString().contains("XYZZY"), all::toString);
        Map<String, Object> screen = ok(client, "session_read", "session", s, "screen", true);
        assertTrue(screen.toString().contains("got:" + masked), screen::toString);
        assertFalse(screen.toString().contains("XYZZY"), screen::toString);
        Map<String, Object> file = ok(client, "session_read", "session", s, "reader", "f", "all", true,
                "to_file", "out/secret.txt");
        assertFalse(Files.readString(Path.of((String) file.get("file"))).contains("XYZZY"));
        McpSchema.ReadResourceResult resource = client.readResource(
                new McpSchema.ReadResourceRequest("iris-terminal://sessions/" + s + "/transcript"));
        assertFalse(((McpSchema.TextResourceContents) resource.contents().get(0)).text().contains("XYZZY"));

        ok(client, "session_close", "session", s);
        String transcript = Files.readString(dataDir.resolve("sessions").resolve(s).resolve("transcript.log"));
        assertFalse(transcript.contains("XYZZY"), transcript);
        assertTrue(transcript.contains("got:" + masked), transcript);
    }

    @Test
    void interruptStopsALongSleepPromptly() {
        String s = openBash();
        // the output line (not the echoed command) shows the shell is past it and into the sleep
        Map<String, Object> started = ok(client, "session_send", "session", s, "text", "echo sleep''ing; sleep 100",
                "wait_ms", 10000, "until", Map.of("pattern", "(?m)^sleeping"));
        assertEquals("pattern", started.get("reason"));
        Map<String, Object> r = interruptUntilPrompt(s,
                () -> ok(client, "session_signal", "session", s, "signal", "INT"));
        assertEquals("prompt", r.get("reason"), r::toString);

        // a control character written as input does the same (the terminal turns ^C into SIGINT)
        ok(client, "session_send", "session", s, "text", "echo sleep''ing; sleep 100", "wait_ms", 10000,
                "until", Map.of("pattern", "(?m)^sleeping"));
        Map<String, Object> r2 = interruptUntilPrompt(s,
                () -> ok(client, "session_send", "session", s, "text", "\u0003", "enter", false, "wait_ms", 0));
        assertEquals("prompt", r2.get("reason"), r2::toString);
    }

    /**
     * An interrupt (the INT signal, or ^C written as input), then the prompt. On a loaded machine the shell may
     * print "sleeping" and still be between the echo and making sleep its foreground job: an INT then reaches
     * the shell, which ignores it as on a real terminal, so it is sent again (a bounded number of times) until
     * the prompt is back.
     */
    private Map<String, Object> interruptUntilPrompt(String s, Runnable interrupt) {
        Map<String, Object> r = Map.of();
        for (int attempt = 0; attempt < 4 && !"prompt".equals(r.get("reason")); attempt++) {
            interrupt.run();
            r = ok(client, "session_read", "session", s, "wait_ms", 5000, "until", PROMPT);
        }
        return r;
    }

    @Test
    void termKillAndExitCodes() {
        String t = open("command", "sleep", "args", List.of("100"), "mode", "pipe");
        ok(client, "session_signal", "session", t, "signal", "TERM");
        Map<String, Object> term = ok(client, "session_read", "session", t, "wait_ms", 10000, "until", "exit");
        assertEquals("TERM", term.get("signal"));
        assertEquals(143L, num(term, "exit_code"));

        String k = open("command", "sleep", "args", List.of("100"));
        ok(client, "session_signal", "session", k, "signal", "KILL");
        Map<String, Object> kill = ok(client, "session_read", "session", k, "wait_ms", 10000, "until", "exit");
        assertEquals("KILL", kill.get("signal"));

        String x = open("command", "bash", "args", List.of("-c", "exit 7"));
        Map<String, Object> seven = ok(client, "session_read", "session", x, "wait_ms", 10000, "until", "exit");
        assertEquals(7L, num(seven, "exit_code"));
        assertFalse(seven.containsKey("signal"));
    }

    @Test
    void processKilledFromOutsideBecomesExited() {
        Map<String, Object> opened = ok(client, "session_open", "command", "sleep", "args", List.of("100"));
        String s = (String) opened.get("session");
        ProcessHandle.of(num(opened, "pid")).orElseThrow().destroyForcibly();
        Map<String, Object> r = ok(client, "session_read", "session", s, "wait_ms", 10000, "until", "exit");
        assertEquals("exit", r.get("reason"));
        Map<String, Object> listed = ok(client, "session_list", "session", s);
        @SuppressWarnings("unchecked")
        Map<String, Object> row = ((List<Map<String, Object>>) listed.get("sessions")).get(0);
        assertEquals("exited", row.get("state"));
    }

    @Test
    void fiftySessionsAtOnce() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            // cat prints nothing at start: no start-up output to wait for
            ids.add(open("command", "cat", "mode", "pipe", "name", "cat-" + i, "wait_ms", 0));
        }
        for (int i = 0; i < ids.size(); i++) {
            Map<String, Object> r = ok(client, "session_send", "session", ids.get(i), "text", "ping-" + i,
                    "wait_ms", 5000, "until", Map.of("pattern", "ping-" + i + "\\n"));
            assertEquals("pattern", r.get("reason"));
        }
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) ok(client, "session_list").get("sessions");
        assertTrue(rows.stream().filter(m -> "running".equals(m.get("state"))
                && String.valueOf(m.get("name")).startsWith("cat-")).count() >= 50);
        for (String id : ids) {
            ok(client, "session_close", "session", id, "grace_ms", 1000);
        }
    }

    @Test
    void resizeReachesTheTerminal() {
        String s = openBash();
        ok(client, "session_resize", "session", s, "cols", 100, "rows", 30);
        // the shell may redraw its prompt on SIGWINCH; let that settle so it is not taken for the answer
        ok(client, "session_read", "session", s, "wait_ms", 3000, "until", Map.of("quiet_ms", 300));
        Map<String, Object> r = run(s, "stty size");
        assertTrue(((String) r.get("data")).contains("30 100"), r::toString);
        String p = open("command", "cat", "mode", "pipe");
        assertTrue(error(client, "session_resize", "session", p, "cols", 80, "rows", 24).contains("pty"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theScreenShowsAFullScreenProgramAsAPersonSeesIt() {
        String s = openBash();
        ok(client, "session_resize", "session", s, "cols", 40, "rows", 10);
        // a full-screen program in miniature: alternate screen, cleared, text placed, cursor parked, waiting for a key
        ok(client, "session_send", "session", s, "text",
                "printf '\\033[?1049h\\033[2J\\033[5;10Hhello \\033[1mthere\\033[0m\\033[2;3H'; read -n 1 k",
                "wait_ms", 10000, "until", Map.of("quiet_ms", 500));
        Map<String, Object> r = ok(client, "session_read", "session", s, "screen", true);
        assertEquals("screen", r.get("reason"), r::toString);
        assertEquals(0L, num(r, "bytes"), "a look at the screen consumes nothing");
        Map<String, Object> screen = (Map<String, Object>) r.get("screen");
        List<String> rows = (List<String>) screen.get("rows");
        assertEquals(10, rows.size(), rows::toString);
        assertEquals("         hello there", rows.get(4), rows::toString);
        assertEquals(Map.of("row", 1, "col", 2), Map.of("row", (int) num((Map<String, Object>) screen.get("cursor"), "row"),
                "col", (int) num((Map<String, Object>) screen.get("cursor"), "col")));
        assertEquals(true, screen.get("alternate"));
        ok(client, "session_send", "session", s, "text", "q", "enter", false);
        ok(client, "session_send", "session", s, "text", "printf '\\033[?1049l'", "wait_ms", 10000, "until", PROMPT);
        Map<String, Object> back = (Map<String, Object>) ok(client, "session_read", "session", s, "screen", true).get("screen");
        assertEquals(false, back.get("alternate"), back::toString);
        ok(client, "session_close", "session", s);
    }

    @Test
    void aProgramWaitingForInputEndsTheWaitAtOnceAndOneThatIsBusyDoesNot() {
        String s = openBash();
        // the wait is long: ending with input (not timeout) is the kernel telling, not a pattern guessing
        Map<String, Object> asked = send(s, "read -p 'Continue? [y/N] ' a; echo \"got $a\"");
        assertEquals("input", asked.get("reason"), asked::toString);
        assertEquals("waiting_input", asked.get("state"), asked::toString);
        assertTrue(((String) asked.get("data")).contains("Continue? [y/N] "), asked::toString);
        Map<String, Object> answered = send(s, "y");
        assertTrue(((String) answered.get("data")).contains("got y"), answered::toString);
        assertEquals("prompt", answered.get("reason"), answered::toString);
        // a line that looks like a prompt while the program sleeps is not one
        Map<String, Object> busy = send(s, "printf 'step 1 of 2 > '; sleep 2; echo done");
        assertTrue(((String) busy.get("data")).contains("done"), busy::toString);
        // a program that reads without printing anything
        Map<String, Object> cat = send(s, "cat");
        assertEquals("input", cat.get("reason"), cat::toString);
        Map<String, Object> back = ok(client, "session_send", "session", s, "keys", List.of("ctrl-d"), "wait_ms", 20000);
        assertEquals("prompt", back.get("reason"), back::toString);
        ok(client, "session_close", "session", s);
    }

    /** session_send as an agent first writes it: no wait_ms, no until. */
    Map<String, Object> sendPlain(String session, String line) {
        return ok(client, "session_send", "session", session, "text", line);
    }

    @Test
    void aShellCommandEndsAtTheShellsOwnPromptWithItsExitCode() {
        String s = openBash();
        Map<String, Object> failed = sendPlain(s, "false");
        assertEquals("prompt", failed.get("reason"), failed::toString);
        assertEquals(1L, num(failed, "exit_code"), failed::toString);
        assertEquals("waiting_input", failed.get("state"), () -> "the session is alive: " + failed);
        Map<String, Object> subshell = sendPlain(s, "(exit 3)");
        assertEquals(3L, num(subshell, "exit_code"), subshell::toString);
        Map<String, Object> pipeline = sendPlain(s, "echo piped | grep -q nothing-like-it");
        assertEquals(1L, num(pipeline, "exit_code"), pipeline::toString);
        Map<String, Object> fine = sendPlain(s, "echo fine-$((2+2)) | cat");
        assertEquals(0L, num(fine, "exit_code"), fine::toString);
        assertTrue(((String) fine.get("data")).contains("fine-4"), fine::toString);
        interruptedSleepEndsWith130(s);
        // Enter alone runs no command: no status to report
        Map<String, Object> empty = sendPlain(s, "");
        assertEquals("prompt", empty.get("reason"), empty::toString);
        assertFalse(empty.containsKey("exit_code"), empty::toString);
        ok(client, "session_close", "session", s);
    }

    /** {@code shell} in a pty with {@code home} as HOME, open at its first prompt, before which no command ran. */
    private String openInHome(String shell, Path home) {
        Map<String, Object> opened = ok(client, "session_open", "command", shell, "env", Map.of("HOME", home.toString()),
                "wait_ms", 10000);
        assertEquals("prompt", opened.get("reason"), opened::toString);
        assertFalse(opened.containsKey("exit_code"), () -> "no command ran before the first prompt: " + opened);
        return (String) opened.get("session");
    }

    /** Sends {@code line}, which ends in {@code (exit 5)}: the answer ends at the prompt with exit_code 5. */
    private Map<String, Object> exitsWith5(String session, String line) {
        Map<String, Object> r = sendPlain(session, line);
        assertEquals("prompt", r.get("reason"), r::toString);
        assertEquals(5L, num(r, "exit_code"), r::toString);
        return r;
    }

    /** A running sleep, interrupted: the prompt comes back with exit_code 130. */
    private void interruptedSleepEndsWith130(String session) {
        Map<String, Object> started = ok(client, "session_send", "session", session, "text", "echo sleep''ing; sleep 100",
                "until", Map.of("pattern", "(?m)^sleeping"));
        assertEquals("running", started.get("state"), started::toString);
        Map<String, Object> r = interruptUntilPrompt(session, () -> ok(client, "session_signal", "session", session,
                "signal", "INT"));
        assertEquals(130L, num(r, "exit_code"), r::toString);
    }

    @Test
    void theUsersOwnStartupFileAndPromptCommandKeepWorking(@TempDir Path home) throws Exception {
        // an rc file that replaces PROMPT_COMMAND (as many do) and sets its own prompt
        Files.writeString(home.resolve(".bashrc"), "PS1='rc$ '\nPROMPT_COMMAND='echo \"pc saw $?\"'\nRC_LOADED=yes\n");
        String s = openInHome("bash", home);
        Map<String, Object> r = exitsWith5(s, "echo \"loaded=$RC_LOADED\"; (exit 5)");
        String data = (String) r.get("data");
        assertTrue(data.contains("loaded=yes") && data.contains("pc saw 5") && data.endsWith("rc$ "), r::toString);
        ok(client, "session_close", "session", s);
    }

    /**
     * zsh gets the marks bash gets (through a ZDOTDIR of the server's that hands every startup file back to the
     * user's): exit codes, its own prompt, the user's .zshenv and .zshrc read and their hooks kept. .ci/run
     * installs zsh; without it this fails on session_open.
     */
    @Test
    void zshReportsExitCodesAtItsOwnPromptAndKeepsTheUsersSetup(@TempDir Path home) throws Exception {
        Files.writeString(home.resolve(".zshenv"), "ZENV_LOADED=yes\n");
        // a hook of the user's own that runs after the server's and sees the same status
        Files.writeString(home.resolve(".zshrc"), "PS1='zz%# '\nmine() { echo \"mine saw $?\" }\nprecmd_functions+=(mine)\n");
        String s = openInHome("zsh", home);
        Map<String, Object> r = exitsWith5(s, "echo \"loaded=$ZENV_LOADED\"; (exit 5)");
        String data = (String) r.get("data");
        assertTrue(data.contains("loaded=yes") && data.contains("mine saw 5") && data.strip().matches("(?s).*zz[%#]"), r::toString);
        Map<String, Object> failed = sendPlain(s, "false");
        assertEquals(1L, num(failed, "exit_code"), failed::toString);
        Map<String, Object> empty = sendPlain(s, "");
        assertEquals("prompt", empty.get("reason"), empty::toString);
        assertFalse(empty.containsKey("exit_code"), () -> "Enter alone runs no command: " + empty);
        interruptedSleepEndsWith130(s);
        ok(client, "session_close", "session", s);
    }

    @Test
    void aLoginShellWhoseProfileDropsTheMarksIsJudgedByItsPrompt(@TempDir Path home) throws Exception {
        Files.writeString(home.resolve(".bash_profile"), "PROMPT_COMMAND=''\nPS1='lp$ '\n");
        Map<String, Object> opened = ok(client, "session_open", "command", "bash", "args", List.of("-l"),
                "env", Map.of("HOME", home.toString()));
        assertEquals("prompt", opened.get("reason"), opened::toString);
        assertTrue(((String) opened.get("data")).endsWith("lp$ "), opened::toString);
        String s = (String) opened.get("session");
        Map<String, Object> r = sendPlain(s, "echo no-marks-$((1+1))");
        assertEquals("prompt", r.get("reason"), r::toString);
        assertTrue(((String) r.get("data")).contains("no-marks-2"), r::toString);
        assertFalse(r.containsKey("exit_code"), () -> "without marks no status is known: " + r);
        ok(client, "session_close", "session", s);
    }

    @Test
    void theShellsMarksAreNeverSeen() throws Exception {
        String s = openBash();
        Map<String, Object> raw = ok(client, "session_send", "session", s, "text", "echo one; false", "strip_ansi", false);
        assertEquals("prompt", raw.get("reason"), raw::toString);
        Map<String, Object> all = ok(client, "session_read", "session", s, "all", true, "strip_ansi", false);
        @SuppressWarnings("unchecked")
        List<String> rows = (List<String>) ((Map<String, Object>) ok(client, "session_read", "session", s, "screen", true)
                .get("screen")).get("rows");
        ok(client, "session_close", "session", s);
        String transcript = Files.readString(dataDir.resolve("sessions").resolve(s).resolve("transcript.log"));
        for (String seen : List.of((String) raw.get("data"), (String) all.get("data"), String.join("\n", rows), transcript)) {
            assertFalse(seen.contains("133;"), () -> "a mark shows: " + seen);
        }
        assertTrue(transcript.contains("one"), transcript);
    }

    @Test
    void onlyTheShellsOwnPromptEndsAWaitAsPrompt() {
        String s = openBash();
        // looks like a prompt while the shell is busy
        Map<String, Object> busy = sendPlain(s, "printf 'x$ '; sleep 2; echo done");
        assertEquals("prompt", busy.get("reason"), busy::toString);
        assertTrue(((String) busy.get("data")).contains("x$ done"), () -> "the wait ended at the look-alike: " + busy);
        assertEquals(0L, num(busy, "exit_code"), busy::toString);
        // looks like a prompt and reads the terminal: the program waits for input, the shell is not back
        Map<String, Object> asked = sendPlain(s, "read -p 'y$ ' v; echo \"got $v\"; exit_status_is_next");
        assertEquals("input", asked.get("reason"), asked::toString);
        assertFalse(asked.containsKey("exit_code"), asked::toString);
        Map<String, Object> answered = sendPlain(s, "yes");
        assertEquals("prompt", answered.get("reason"), answered::toString);
        assertTrue(((String) answered.get("data")).contains("got yes"), answered::toString);
        assertEquals(127L, num(answered, "exit_code"), () -> "the command not found ends it: " + answered);
        ok(client, "session_close", "session", s);
    }

    @Test
    void aOneShotCommandOpensWithAllItsOutputAndExitCode() {
        Map<String, Object> opened = ok(client, "session_open", "command", "bash",
                "args", List.of("-c", "echo a; sleep 0.5; echo b; exit 4"));
        assertEquals("exit", opened.get("reason"), opened::toString);
        assertEquals(4L, num(opened, "exit_code"), opened::toString);
        assertEquals(List.of("a", "b"), ((String) opened.get("data")).lines().toList(), opened::toString);
        assertEquals("exited", opened.get("state"), opened::toString);
    }

    @Test
    void sendWaitsForTheCommandByDefaultAndWaitZeroReturnsAtOnce() {
        String s = openBash();
        Map<String, Object> whole = sendPlain(s, "sleep 0.3; echo a; sleep 0.3; echo b");
        assertEquals("prompt", whole.get("reason"), whole::toString);
        assertTrue(((String) whole.get("data")).lines().toList().containsAll(List.of("a", "b")), whole::toString);
        assertTrue(((String) whole.get("data")).endsWith("$ "), whole::toString);

        long start = System.nanoTime();
        Map<String, Object> fired = ok(client, "session_send", "session", s, "text", "sleep 2; echo la''ter", "wait_ms", 0);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(fired.containsKey("reason"), () -> "wait_ms 0 reads nothing: " + fired);
        assertEquals(22L, num(fired, "written"), fired::toString);
        assertTrue(millis < 1500, () -> "wait_ms 0 answered after " + millis + " ms");
        Map<String, Object> rest = ok(client, "session_read", "session", s, "wait_ms", 20000);
        assertTrue(((String) rest.get("data")).contains("later"), rest::toString);
        ok(client, "session_close", "session", s);
    }

    @Test
    void pagersPrintAtOnceUnlessTheSessionAsksForOne() {
        String s = openBash();
        Map<String, Object> r = run(s, "echo \"$PAGER|$GIT_PAGER|$MANPAGER\"");
        assertTrue(((String) r.get("data")).contains("cat|cat|cat"), r::toString);
        String own = (String) ok(client, "session_open", "command", "bash", "args", List.of("--norc", "--noprofile"),
                "env", Map.of("PS1", "$ ", "PAGER", "less")).get("session");
        assertTrue(((String) run(own, "echo \"[$PAGER]\"").get("data")).contains("[less]"));
        ok(client, "session_close", "session", s);
        ok(client, "session_close", "session", own);
    }

    @Test
    void keysByNameReachTheProgramAsATerminalSendsThem() {
        String s = open("command", "cat", "args", List.of("-v"));
        Map<String, Object> r = ok(client, "session_send", "session", s, "keys", List.of("up", "ctrl-a", "f1", "enter"),
                "wait_ms", 10000, "until", Map.of("pattern", "\\^\\[OP"));
        assertTrue(((String) r.get("data")).contains("^[[A^A^[OP"), r::toString);
        assertTrue(error(client, "session_send", "session", s, "keys", List.of("hyper-x")).contains("unknown key 'hyper-x'"));
        String quiet = error(client, "session_send", "session", s);
        assertTrue(quiet.contains("'text'") && quiet.contains("'keys'"), quiet);
        ok(client, "session_close", "session", s);
    }

    @Test
    void closeReturnsLastOutputAndExitInformation() {
        String s = openBash();
        ok(client, "session_send", "session", s, "text", "echo last-words-$((1+1))", "wait_ms", 0);
        // a reader of its own sees the echo run, so the close cannot overtake it and the default reader's output stays unread
        Map<String, Object> seen = ok(client, "session_read", "session", s, "reader", "watch", "wait_ms", 20000,
                "until", Map.of("pattern", "last-words-2"));
        assertEquals("pattern", seen.get("reason"), seen::toString);
        Map<String, Object> closed = ok(client, "session_close", "session", s);
        assertTrue(((String) closed.get("data")).contains("last-words-2"), closed::toString);
        assertEquals("exited", closed.get("state"));
        assertTrue(closed.containsKey("exit_code") || closed.containsKey("signal"));
        assertTrue(error(client, "session_send", "session", s, "text", "echo x").contains("exited"));
    }

    @Test
    void notifyPushesOutputAndExit() throws Exception {
        logs.clear();
        String s = open("command", "bash", "args", List.of("--norc"), "notify", true);
        ok(client, "session_send", "session", s, "text", "echo notified-$((40+2))", "wait_ms", 0);
        assertNotNull(awaitLog(s, "notified-42"), "output should be pushed");
        ok(client, "session_send", "session", s, "text", "exit 0", "wait_ms", 0);
        assertNotNull(awaitLog(s, "exited"), "exit should be pushed");
    }

    private McpSchema.LoggingMessageNotification awaitLog(String session, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            McpSchema.LoggingMessageNotification n = logs.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (n != null && ("session/" + session).equals(n.logger()) && n.data().contains(text)) {
                return n;
            }
        }
        return null;
    }

    @Test
    void badInputGetsPreciseErrorsAndHarmsNoOtherSession() throws Exception {
        String healthy = openBash();
        assertTrue(error(client, "session_read", "session", "nope").contains("no session 'nope'"));
        assertTrue(error(client, "session_read", "session", healthy, "until", Map.of("pattern", "(unclosed"))
                .contains("not a valid regular expression"));
        assertTrue(error(client, "session_read", "session", healthy, "max_bytes", -5).contains("max_bytes"));
        assertTrue(error(client, "session_read", "session", healthy, "wait_ms", 100_000_000).contains("wait_ms"));
        assertTrue(error(client, "session_send", "session", healthy, "text", "x".repeat(200_000))
                .contains("input limit"));
        assertTrue(error(client, "session_read", "session", healthy, "to_file", "../escape.txt")
                .contains("outside the files root"));
        assertTrue(error(client, "session_read", "session", healthy, "to_file", "/etc/passwd")
                .contains("outside the files root"));
        Path victim = Files.createTempFile("itm-victim", ".txt");
        Files.writeString(victim, "victim");
        Files.createDirectories(dataDir.resolve("files"));
        Files.createLink(dataDir.resolve("files").resolve("hardlink.txt"), victim);
        String linked = error(client, "session_read", "session", healthy, "to_file", "hardlink.txt");
        assertTrue(linked.contains("other names (hard links)"), linked);
        assertEquals("victim", Files.readString(victim), "to_file wrote through a hard link");
        assertTrue(error(client, "session_open", "command", "no-such-program-xyz").contains("not found"));
        String eq = error(client, "session_open", "command", "cat", "env", Map.of("A=B", "c"));
        assertTrue(eq.contains("'A=B'") && eq.contains("neither '='"), eq);
        String nul = error(client, "session_open", "command", "cat", "env", Map.of("A", "b\u0000c"));
        assertTrue(nul.contains("'env.A' holds a NUL"), nul);
        String cols = error(client, "session_open", "command", "cat", "cols", 1e300);
        assertTrue(cols.contains("'cols' is a number beyond"), cols);
        PlainWords.assertPlain(cols);
        String wait = error(client, "session_read", "session", healthy, "wait_ms", 1e20);
        assertTrue(wait.contains("'wait_ms' is a number beyond"), wait);
        PlainWords.assertPlain(wait);
        String boom = error(client, "session_signal", "session", healthy, "signal", "BOOM");
        assertTrue(boom.contains("signal") && boom.contains("INT"), boom);

        Map<String, Object> utf = run(healthy, "printf '\\xff\\xfe-ok\\n'");
        assertTrue(((String) utf.get("data")).contains("\uFFFD\uFFFD-ok"), utf::toString);

        Map<String, Object> still = run(healthy, "echo still-$((2*3))");
        assertTrue(((String) still.get("data")).contains("still-6"));
    }

    @Test
    void idleSessionsAreClosed() throws Exception {
        try (ServerUnderTest idle = launcher().start(Files.createTempDirectory("itm-idle"),
                List.of("--idle-timeout", "1"))) {
            McpSyncClient c = idle.connect(n -> { });
            String s = (String) ok(c, "session_open", "command", "cat").get("session");
            Map<String, Object> r = ok(c, "session_read", "session", s, "wait_ms", 15000, "until", "exit");
            assertEquals("exit", r.get("reason"), r::toString);
        }
    }

    @Test
    void transcriptsSurviveARestart() throws Exception {
        Path dir = Files.createTempDirectory("itm-restart");
        String s;
        try (ServerUnderTest first = launcher().start(dir, List.of())) {
            McpSyncClient c = first.connect(n -> { });
            s = (String) ok(c, "session_open", "command", "bash", "args", List.of("--norc")).get("session");
            ok(c, "session_send", "session", s, "text", "echo persist-$((3*3))", "wait_ms", 5000,
                    "until", Map.of("pattern", "persist-9"));
        }
        try (ServerUnderTest second = launcher().start(dir, List.of())) {
            McpSyncClient c = second.connect(n -> { });
            @SuppressWarnings("unchecked")
            Map<String, Object> row = ((List<Map<String, Object>>) ok(c, "session_list", "session", s)
                    .get("sessions")).get(0);
            assertEquals("exited", row.get("state"));
            Map<String, Object> all = ok(c, "session_read", "session", s, "all", true);
            assertTrue(((String) all.get("data")).contains("persist-9"), all::toString);
            McpSchema.ReadResourceResult res = c.readResource(
                    new McpSchema.ReadResourceRequest("iris-terminal://sessions/" + s + "/transcript"));
            assertTrue(((McpSchema.TextResourceContents) res.contents().get(0)).text().contains("persist-9"));
        }
    }

    @Test
    void toolsCarryTitlesAndBehaviourHints() {
        Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
        for (McpSchema.Tool t : client.listTools().tools()) {
            tools.put(t.name(), t);
            assertNotNull(t.title(), t.name() + " has no title");
            assertNotNull(t.annotations(), t.name() + " has no annotations");
            assertEquals(t.title(), t.annotations().title(), t.name());
        }
        for (String reader : List.of("session_read", "session_list")) {
            McpSchema.ToolAnnotations a = tools.get(reader).annotations();
            assertEquals(Boolean.TRUE, a.readOnlyHint(), reader);
            assertEquals(Boolean.FALSE, a.destructiveHint(), reader);
        }
        for (String ender : List.of("session_signal", "session_close")) {
            assertEquals(Boolean.TRUE, tools.get(ender).annotations().destructiveHint(), ender);
            assertEquals(Boolean.FALSE, tools.get(ender).annotations().openWorldHint(), ender);
        }
        for (String runner : List.of("session_open", "session_send")) {
            assertEquals(Boolean.TRUE, tools.get(runner).annotations().openWorldHint(), runner);
            assertEquals(Boolean.FALSE, tools.get(runner).annotations().readOnlyHint(), runner);
        }
        assertEquals(Boolean.TRUE, tools.get("session_resize").annotations().idempotentHint());
        assertEquals(Boolean.FALSE, tools.get("session_resize").annotations().destructiveHint());
        assertEquals(Boolean.TRUE, tools.get("session_close").annotations().idempotentHint());
        assertEquals(Boolean.FALSE, tools.get("session_signal").annotations().idempotentHint());
    }

    static List<String> completeSession(McpSyncClient c, String typed) {
        return c.completeCompletion(new McpSchema.CompleteRequest(
                new McpSchema.ResourceReference("iris-terminal://sessions/{session}/transcript"),
                new McpSchema.CompleteRequest.CompleteArgument("session", typed))).completion().values();
    }

    @Test
    void transcriptSessionArgumentCompletesToOwnSessionIds() {
        assertNotNull(client.getServerCapabilities().completions(), "completions capability not declared");
        String s = open("command", "cat", "mode", "pipe", "name", "completion-target");
        assertTrue(completeSession(client, "").contains(s));
        assertTrue(completeSession(client, s.substring(0, 2)).contains(s));
        assertEquals(List.of(s), completeSession(client, s));
        assertTrue(completeSession(client, "completion-tar").contains(s), "a name completes to its session's id");
        assertEquals(List.of(), completeSession(client, s + "-no-such"));
        ok(client, "session_close", "session", s);
    }

    @Test
    void longWaitsReportProgressOnlyWhenAsked() throws Exception {
        String s = openBash();
        progress.clear();
        McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("session_send",
                Mcp.args("session", s, "text", "for i in 1 2 3 4 5 6; do echo st''ep$i; sleep 0.5; done",
                        "wait_ms", 30000, "until", Map.of("pattern", "(?m)^step6")),
                Map.of("progressToken", "wait-1")));
        assertFalse(Boolean.TRUE.equals(r.isError()), () -> Mcp.text(r));
        List<McpSchema.ProgressNotification> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (got.size() < 2 && System.nanoTime() < deadline) {
            McpSchema.ProgressNotification n = progress.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (n != null) {
                got.add(n);
            }
        }
        assertTrue(got.size() >= 2, () -> "a 3-second wait sent " + got);
        for (int i = 0; i < got.size(); i++) {
            assertEquals("wait-1", got.get(i).progressToken());
            assertTrue(got.get(i).message().matches("step\\d"), got.get(i)::toString);
            assertTrue(i == 0 || got.get(i).progress() > got.get(i - 1).progress(), got::toString);
        }

        progress.clear();
        ok(client, "session_send", "session", s, "text", "for i in 1 2 3; do echo un''asked$i; sleep 0.5; done",
                "wait_ms", 30000, "until", Map.of("pattern", "(?m)^unasked3"));
        // the call has answered; any notification for it would have been sent before the answer
        ok(client, "session_list");
        assertEquals(List.of(), new ArrayList<>(progress), "progress without a token");
    }

    @Test
    void toolsDeclareSchemasAndTheServerTeachesTheWorkflow() {
        McpSchema.ListToolsResult tools = client.listTools();
        List<String> names = tools.tools().stream().map(McpSchema.Tool::name).toList();
        assertTrue(names.containsAll(List.of("session_open", "session_send", "session_read", "session_signal",
                "session_resize", "session_close", "session_list")), names::toString);
        for (McpSchema.Tool t : tools.tools()) {
            assertNotNull(t.outputSchema(), t.name() + " has no output schema");
        }
        String instructions = client.getServerInstructions();
        assertNotNull(instructions, "the server gives no instructions");
        for (String step : List.of("session_open", "session_send", "until", "reason prompt", "quiet", "oversized",
                "session_signal", "progressToken", "transcript")) {
            assertTrue(instructions.contains(step), "the instructions do not teach " + step);
        }
    }

    /** This server has no IRIS: tools that could only answer "not configured" are not offered, nor taught. */
    @Test
    void withoutIrisNoIrisToolIsListedOrTaught() {
        List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
        assertTrue(names.stream().noneMatch(n -> n.startsWith("iris_")), names::toString);
        String instructions = client.getServerInstructions();
        assertFalse(instructions.contains("iris_execute") || instructions.contains("iris_sql"), instructions);
    }
}
