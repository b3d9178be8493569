package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ./install --live-test}: the steps it prints with {@code --dry-run} (every scripted check, one a line,
 * exit 0, no instance and no build), and the report {@link LiveVerdict} writes from the steps' result lines
 * (markdown and JSON, release-blocking first, exit status 0 only when no release-blocking check failed or
 * stayed unrun).
 */
class LiveReportTest {

    @TempDir
    Path tmp;

    private int report(String... lines) throws Exception {
        Path tsv = tmp.resolve("results.tsv");
        Files.write(tsv, List.of(lines), StandardCharsets.UTF_8);
        return LiveVerdict.report(tsv, tmp.resolve("out"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void theReportPutsReleaseBlockingChecksFirstAndPassesOnlyWhenNoneFailed() throws Exception {
        int code = report("UNIT-ADMIN\t0\tFAIL\t2 test methods failed", "#marker\tabc", "INSTALL\t1\tok\tall 21 checks passed",
                "LC-KILL\t0\tnot-run\tno session", "LC-LINK\t1\tok\té€ came back", "");
        assertEquals(0, code, "non-blocking failures do not fail the verdict");
        String md = Files.readString(tmp.resolve("out/live-report.md"));
        assertTrue(md.startsWith("# Live verdict\n\nPASS: no release-blocking check failed"), md);
        assertTrue(md.indexOf("| INSTALL | yes | ok |") < md.indexOf("| LC-LINK | yes | ok |")
                && md.indexOf("| LC-LINK | yes | ok |") < md.indexOf("| UNIT-ADMIN | no | FAIL |")
                && md.indexOf("| UNIT-ADMIN | no | FAIL |") < md.indexOf("| LC-KILL | no | not-run |"),
                "blocking first, then in the order the steps ran: " + md);
        assertFalse(md.contains("abc"), "value lines are not checks");
        JsonNode json = JsonMapper.builder().build().readTree(Files.readString(tmp.resolve("out/live-report.json")));
        assertTrue(json.path("ok").asBoolean());
        assertEquals(4, json.path("checks").size());
        assertEquals("INSTALL", json.path("checks").get(0).path("id").asString());
        assertEquals("not-run", json.path("checks").get(3).path("result").asString());
        assertEquals("é€ came back", json.path("checks").get(1).path("detail").asString());
    }

    @Test
    void aFailedOrUnrunBlockingCheckFailsTheVerdict() throws Exception {
        assertEquals(1, report("INSTALL\t1\tok\t", "LC-INT\t1\tFAIL\tno <INTERRUPT> | seen"));
        String md = Files.readString(tmp.resolve("out/live-report.md"));
        assertTrue(md.contains("FAIL: 1 release-blocking check failed or did not run"), md);
        assertTrue(md.contains("no <INTERRUPT> \\| seen"), "a | in a detail does not break the table: " + md);
        assertEquals(1, report("LC-AUDIT\t1\tnot-run\tno agent user"), "a blocking check that did not run fails");
        assertFalse(JsonMapper.builder().build().readTree(Files.readString(tmp.resolve("out/live-report.json"))).path("ok").asBoolean());
        assertEquals(1, report(), "no result at all is no verdict");
        // a check reported twice (a step that retried) keeps its last result
        assertEquals(0, report("LC-LINK\t1\tFAIL\tfirst", "LC-LINK\t1\tok\tsecond"));
        assertThrows(IllegalArgumentException.class, () -> report("LC-LINK\t1\tpassed\t"), "only ok, FAIL, not-run");
    }

    /**
     * A fake of the endpoint: answers initialize as SSE with a session id, and each tools/call with what
     * {@code tools} says for its name and arguments; records the Authorization headers it saw.
     */
    private static List<String> webChecks(Function<JsonNode, String> tools, List<String> authorizations) throws Exception {
        JsonMapper json = JsonMapper.builder().build();
        HttpServer server = HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/terminal-mcp/mcp", exchange -> {
            authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
            JsonNode message = json.readTree(exchange.getRequestBody().readAllBytes());
            String method = message.path("method").asString();
            String body;
            String type = "application/json";
            if (method.equals("initialize")) {
                exchange.getResponseHeaders().add("Mcp-Session-Id", "m1");
                type = "text/event-stream";
                body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\n"
                        + "data: \"result\":{\"protocolVersion\":\"2025-06-18\"}}\n\n";
            } else if (method.startsWith("notifications/")) {
                exchange.sendResponseHeaders(202, -1);
                exchange.close();
                return;
            } else {
                String answer = tools.apply(message.path("params"));
                body = answer.startsWith("HTTP ") ? answer
                        : "{\"jsonrpc\":\"2.0\",\"id\":" + message.path("id") + ",\"result\":{\"structuredContent\":" + answer + "}}";
            }
            if (body.startsWith("HTTP ")) {
                byte[] b = body.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(Integer.parseInt(body.substring(5, 8)), b.length);
                exchange.getResponseBody().write(b);
                exchange.close();
                return;
            }
            exchange.getResponseHeaders().add("Content-Type", type);
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, b.length);
            exchange.getResponseBody().write(b);
            exchange.close();
        });
        server.start();
        try {
            return new LiveVerdict.WebChecks(java.net.URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                    + "/terminal-mcp/mcp"), "agent", "pw", "/opt/iris-terminal-mcp/iris-terminal-mcp-hosted.jar").run();
        } finally {
            server.stop(0);
        }
    }

    /** An IRIS that behaves: the job's roles are the agent's, text comes back, INT ends the loop, KILL the job. */
    private static Function<JsonNode, String> behaving(String roles) {
        return behaving(roles, 0);
    }

    /** @param dbFile what the session's OPEN of a database file answers in $TEST */
    private static Function<JsonNode, String> behaving(String roles, int dbFile) {
        int[] opened = {0};
        int[] ticks = {0};
        boolean[] stopped = {false};
        return params -> {
            JsonNode a = params.path("arguments");
            String code = a.path("code").asString();
            // an IRIS that lets the agent stop the server (as it lets it open files, dbFile 1): its sessions are gone
            if (stopped[0]) {
                return "HTTP 404 no such session";
            }
            if (code.contains("stopServer")) {
                stopped[0] = dbFile == 1;
                return "{\"status\":\"ok\",\"output\":\"" + dbFile + "\"}";
            }
            return switch (params.path("name").asString()) {
                case "session_open" -> "{\"session\":\"s" + (++opened[0]) + "\"}";
                case "session_read" -> a.has("until") ? "{\"data\":\"tick " + (++ticks[0]) + "\\n\"}" : "{\"data\":\"<INTERRUPT>\"}";
                case "session_signal", "session_close" -> "{}";
                default -> code.equals("write $roles") ? "{\"status\":\"ok\",\"output\":\"" + roles + "\"}"
                        : code.startsWith("write \"") ? "{\"status\":\"ok\",\"output\":\"" + code.substring(7, code.length() - 1) + "\"}"
                        : code.equals("write $job") ? "{\"status\":\"ok\",\"output\":\"42" + a.path("session").asString().substring(1) + "\"}"
                        : code.startsWith("for i=1:1:100") ? "{\"status\":\"ok\",\"output\":\"0\"}"
                        : code.startsWith("set f=##class(%File)") ? "{\"status\":\"ok\",\"output\":\"" + dbFile + "|/iris/mgr/iristerminalcode/IRIS.DAT\"}"
                        : code.startsWith("set f=\"/opt/") ? "{\"status\":\"ok\",\"output\":\"" + dbFile + "\"}"
                        : code.startsWith("set ok=0 try {") ? "{\"status\":\"ok\",\"output\":\"" + dbFile + "\"}"
                        : "{\"status\":\"running\",\"output\":\"\"}";
            };
        };
    }

    @Test
    void theWebChecksPassAgainstAnEndpointThatBehavesAndSayWhatFailed() throws Exception {
        List<String> auth = new ArrayList<>();
        List<String> lines = webChecks(behaving("IRISTerminal_Agent,%DB_USER"), auth);
        for (String id : List.of("LC-JOBROLES", "LC-DBFILE", "LC-PYOS", "LC-GWRES", "LC-JAR", "LC-LINK", "LC-INT", "LC-KILL",
                "LC-THREADS", "LC-STOP")) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(id + "\t") && l.contains("\tok\t")), id + ": " + lines);
        }
        List<String> open = webChecks(behaving("IRISTerminal_Agent,%DB_USER", 1), new ArrayList<>());
        assertTrue(open.stream().anyMatch(l -> l.startsWith("LC-DBFILE\t1\tFAIL\t") && l.contains("opened a database file")), open.toString());
        assertTrue(open.stream().anyMatch(l -> l.startsWith("LC-JAR\t1\tFAIL\t") && l.contains("any agent can replace the bridge")), open.toString());
        assertTrue(open.stream().anyMatch(l -> l.startsWith("LC-PYOS\t1\tFAIL\t") && l.contains("system calls")), open.toString());
        assertTrue(open.stream().anyMatch(l -> l.startsWith("LC-GWRES\t1\tFAIL\t") && l.contains("run any Java")), open.toString());
        assertTrue(open.stream().anyMatch(l -> l.startsWith("LC-STOP\t1\tFAIL\t") && l.contains("no longer answers")), open.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("#marker\t[0-9a-f]{12}")), lines.toString());
        assertTrue(lines.contains("#linkloss-pid\t421"), lines.toString());
        assertEquals("Basic " + Base64.getEncoder().encodeToString("agent:pw".getBytes(StandardCharsets.UTF_8)), auth.get(0));

        List<String> kept = webChecks(behaving("IRISTerminal_Agent,IRISTerminal_Bridge"), new ArrayList<>());
        assertTrue(kept.stream().anyMatch(l -> l.startsWith("LC-JOBROLES\t1\tFAIL\t") && l.contains("IRISTerminal_Bridge")), kept.toString());

        List<String> refused = webChecks(params -> "HTTP 503 the bridge is not running", new ArrayList<>());
        for (String id : List.of("LC-JOBROLES", "LC-DBFILE", "LC-PYOS", "LC-GWRES", "LC-JAR", "LC-LINK", "LC-INT", "LC-STOP")) {
            assertTrue(refused.stream().anyMatch(l -> l.startsWith(id + "\t1\tFAIL\t") && l.contains("503")), id + ": " + refused);
        }
        assertTrue(refused.stream().anyMatch(l -> l.startsWith("LC-KILL\t0\tnot-run\t")), refused.toString());
        assertTrue(refused.stream().anyMatch(l -> l.startsWith("LC-THREADS\t0\tnot-run\t")), refused.toString());
    }

    @Test
    void theSseReaderTakesTheLastEventsDataWhole() {
        assertEquals("{\"b\":\n2}", LiveVerdict.lastEventData("data: {\"a\":1}\n\nid: 2\r\ndata: {\"b\":\r\ndata: 2}\r\n"));
        assertEquals("", LiveVerdict.lastEventData(": keep-alive\n\n"));
    }

    /** Every scripted check is among the steps, one a line, and the dry run needs neither an instance nor a build. */
    @Test
    void theDryRunPrintsEveryStepAndExitsZeroWithoutAnInstance() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "install", "--live-test", "--dry-run", "--web-url", "http://localhost:52773")
                .redirectErrorStream(true);
        pb.environment().put("PATH", "/usr/bin:/bin"); // no iris command, whatever this machine has
        Process p = pb.start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "./install --live-test --dry-run did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        List<String> steps = out.lines().filter(l -> l.startsWith("step ")).toList();
        List<String> ids = List.of("BUILD", "INSTALL", "LC-ROLES", "LC-CODE", "AGENT-USER", "LC-JOBROLES", "LC-DBFILE", "LC-PYOS", "LC-GWRES", "LC-JAR", "LC-LINK",
                "LC-INT", "LC-KILL", "LC-THREADS", "LC-STOP", "LC-AUDIT", "LC-LINKLOSS", "UNIT-ADMIN", "LC-REDIRECT", "LC-LONGLINE", "UNIT-AGENT", "LIVE-IT", "CLEANUP", "REPORT");
        assertEquals(ids.size(), steps.size(), out);
        for (int i = 0; i < ids.size(); i++) {
            assertTrue(steps.get(i).startsWith("step " + (i + 1) + " " + ids.get(i) + ": "), "step " + (i + 1) + ": " + steps.get(i));
        }
        assertTrue(out.contains("by hand:"), "what only a person can check is named: " + out);
        assertFalse(out.contains("Building"), "a dry run builds nothing");
        assertFalse(Files.exists(Path.of("target", "live-report.md")) && Files.getLastModifiedTime(Path.of("target", "live-report.md"))
                .toMillis() > System.currentTimeMillis() - 30_000, "a dry run writes no report");
    }

    @Test
    void theLiveTestNeedsTheWebAddress() throws Exception {
        Process p = new ProcessBuilder("bash", "install", "--live-test", "--dry-run").redirectErrorStream(true).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("--live-test needs --web-url"), out);
    }
}
