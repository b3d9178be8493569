package iristerm.hosted;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import iristerm.iris.Interrupts;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Java half of {@code ./install --live-test} (run from target/test-classes, which {@code mvn package
 * -DskipTests} compiles): {@code web} runs the live checks that go through the web port as a minimal agent
 * and prints one result line each; {@code report} turns every step's result lines into
 * target/live-report.md and target/live-report.json and answers the exit status. A result line is
 * {@code ID<TAB>blocking (1|0)<TAB>ok|FAIL|not-run<TAB>detail}; a line starting with {@code #} is a value
 * for the script ({@code #marker}, {@code #linkloss-pid}). Untested on a live instance; the report and the
 * ordering are tested ({@link LiveReportTest}).
 */
public final class LiveVerdict {

    /** One check's outcome. */
    record Result(String id, boolean blocking, String status, String detail) {
        static final List<String> STATUSES = List.of("ok", "FAIL", "not-run");

        Result {
            if (!STATUSES.contains(status)) {
                throw new IllegalArgumentException("status must be one of " + STATUSES + ", not " + status + " (" + id + ")");
            }
            detail = detail.replace('\t', ' ').replace('\n', ' ').strip();
        }

        String line() {
            return id + "\t" + (blocking ? 1 : 0) + "\t" + status + "\t" + detail;
        }

        /** A release-blocking check that did not pass (failed, or could not be run) fails the verdict. */
        boolean blocks() {
            return blocking && !status.equals("ok");
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private LiveVerdict() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("report")) {
            System.exit(report(Path.of(args[1]), Path.of(args[2]), System.out));
        } else if (args.length == 2 && args[0].equals("web")) {
            Map<String, String> env = System.getenv();
            String user = env.getOrDefault("IRIS_TERMINAL_AGENT_USER", "");
            String password = env.getOrDefault("IRIS_TERMINAL_AGENT_PASSWORD", "");
            if (user.isEmpty() || password.isEmpty()) {
                System.err.println("live web checks: set IRIS_TERMINAL_AGENT_USER and IRIS_TERMINAL_AGENT_PASSWORD (./install --live-test does)");
                System.exit(2);
            }
            for (String line : new WebChecks(URI.create(args[1].replaceAll("/+$", "") + "/terminal-mcp/mcp"), user, password,
                    env.getOrDefault("IRIS_TERMINAL_JAR", "")).run()) {
                System.out.println(line);
            }
        } else {
            System.err.println("usage: LiveVerdict report <results.tsv> <out dir> | LiveVerdict web <http(s)://host:port>");
            System.exit(2);
        }
    }

    // ---- the report ------------------------------------------------------------------------------

    /** The result lines of {@code tsv} (value lines starting with # and blank lines skipped). */
    static List<Result> read(Path tsv) throws IOException {
        List<Result> out = new ArrayList<>();
        for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", 4);
            if (f.length < 3) {
                throw new IllegalArgumentException("not a result line (ID, blocking, status, detail): " + line);
            }
            out.add(new Result(f[0], f[1].equals("1"), f[2], f.length > 3 ? f[3] : ""));
        }
        return out;
    }

    /** Release-blocking first, each group in the order the steps ran; a check reported twice keeps its last result. */
    static List<Result> ordered(List<Result> results) {
        Map<String, Result> last = new java.util.LinkedHashMap<>();
        for (Result r : results) {
            last.remove(r.id());
            last.put(r.id(), r);
        }
        List<Result> out = new ArrayList<>(last.values());
        out.sort(Comparator.comparing((Result r) -> !r.blocking()));
        return out;
    }

    static int exitCode(List<Result> results) {
        return results.stream().anyMatch(Result::blocks) ? 1 : 0;
    }

    static String verdict(List<Result> results) {
        long blocking = results.stream().filter(Result::blocks).count();
        return blocking == 0 ? "PASS: no release-blocking check failed"
                : "FAIL: " + blocking + " release-blocking check" + (blocking == 1 ? "" : "s") + " failed or did not run";
    }

    static String markdown(List<Result> results, Instant when) {
        StringBuilder md = new StringBuilder("# Live verdict\n\n").append(verdict(results)).append(" (")
                .append(when).append(")\n\n| check | release-blocking | result | detail |\n|---|---|---|---|\n");
        for (Result r : results) {
            md.append("| ").append(r.id()).append(" | ").append(r.blocking() ? "yes" : "no").append(" | ")
                    .append(r.status()).append(" | ").append(r.detail().replace("|", "\\|")).append(" |\n");
        }
        return md.toString();
    }

    static String json(List<Result> results, Instant when) {
        ObjectNode root = JSON.createObjectNode();
        root.put("verdict", verdict(results));
        root.put("ok", exitCode(results) == 0);
        root.put("time", when.toString());
        ArrayNode checks = root.putArray("checks");
        for (Result r : results) {
            checks.addObject().put("id", r.id()).put("blocking", r.blocking()).put("result", r.status()).put("detail", r.detail());
        }
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    }

    /** Writes live-report.md and live-report.json into {@code outDir}, prints the table, answers the exit status. */
    static int report(Path tsv, Path outDir, PrintStream out) throws IOException {
        List<Result> results = ordered(read(tsv));
        if (results.isEmpty()) {
            results = List.of(new Result("REPORT", true, "not-run", "no step reported anything"));
        }
        Instant now = Instant.now();
        Files.createDirectories(outDir);
        String md = markdown(results, now);
        Files.writeString(outDir.resolve("live-report.md"), md, StandardCharsets.UTF_8);
        Files.writeString(outDir.resolve("live-report.json"), json(results, now), StandardCharsets.UTF_8);
        out.print(md);
        return exitCode(results);
    }

    // ---- the checks through the web port ----------------------------------------------------------

    /** The MCP calls a client makes, as the minimal agent, each bounded (the Web Gateway's 60 s). */
    static final class WebChecks {
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        private final URI url;
        private final String auth;
        private String session;
        private int id;
        private final String jar;

        /** @param jar the path of the jar the bridge's server runs ("": not known, its check is not run) */
        WebChecks(URI url, String user, String password, String jar) {
            this.url = url;
            this.jar = jar;
            this.auth = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        }

        List<String> run() {
            List<String> out = new ArrayList<>();
            byte[] random = new byte[6];
            new SecureRandom().nextBytes(random);
            String nonce = HexFormat.of().formatHex(random);
            String a;
            try {
                JsonNode init = rpc("initialize", JSON.readTree("{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"live-test\",\"version\":\"1\"}}"));
                if (init.path("result").isMissingNode()) {
                    throw new IllegalStateException("initialize answered " + init);
                }
                notifyInitialized();
                a = tool("session_open", Map.of("kind", "iris", "name", "live-test")).path("session").asString();
            } catch (Exception e) {
                for (String check : List.of("LC-JOBROLES", "LC-DBFILE", "LC-PYOS", "LC-GWRES", "LC-JAR", "LC-LINK", "LC-INT", "LC-STOP")) {
                    out.add(new Result(check, true, "FAIL", "no iris session through " + url + ": " + e.getMessage()).line());
                }
                out.add(new Result("LC-KILL", false, "not-run", "no iris session through " + url).line());
                out.add(new Result("LC-THREADS", false, "not-run", "no iris session through " + url).line());
                return out;
            }
            out.add(check("LC-JOBROLES", true, () -> {
                String o = execute(a, "write $roles", 30_000).path("output").asString();
                boolean ok = o.contains("IRISTerminal_Agent") && !o.toUpperCase().contains("IRISTERMINAL_BRIDGE");
                return new Result("LC-JOBROLES", true, ok ? "ok" : "FAIL", "the session job's $ROLES: " + o);
            }));
            // IRIS checks no privilege for file I/O, and the documented modes let the IRIS group read database files:
            // an agent that can open one reads every database, whatever its resources say (hosted review round 4, R4-6)
            out.add(check("LC-DBFILE", true, () -> {
                String o = execute(a, "set f=##class(%File).NormalizeFilename(\"IRIS.DAT\",##class(%File).NormalizeDirectory("
                        + "\"iristerminalcode\",##class(%File).ManagerDirectory())) open f:(\"RU\"):1 set t=$test close:t f "
                        + "write t,\"|\",f", 30_000).path("output").asString().strip();
                return new Result("LC-DBFILE", true, o.startsWith("0|") ? "ok" : "FAIL", o.startsWith("0|")
                        ? "the agent's session could not open " + o.substring(2) + " for reading"
                        : "the agent's session opened a database file for reading (or answered otherwise): " + o);
            }));
            // Embedded Python gives its caller the OS's system calls as the IRIS OS user, past every check of IRIS's
            // (hosted review round 7, H7-1): an agent must not be able to import os
            out.add(check("LC-PYOS", true, () -> {
                String o = execute(a, "set ok=0 try { set os=##class(%SYS.Python).Import(\"os\") set ok=1 } catch { } write ok",
                        30_000).path("output").asString().strip();
                return new Result("LC-PYOS", true, o.equals("0") ? "ok" : "FAIL", o.equals("0")
                        ? "the agent's session could not import Python's os"
                        : "the agent's session imported Python's os (answered " + o + "): its code makes system calls as the IRIS OS user");
            }));
            // only the bridge role may connect to the bridge's server (LC-GWRES; engine review round 10, E10-1): an
            // agent that could would run any Java there, OS commands included
            out.add(check("LC-GWRES", true, () -> {
                String o = execute(a, "set ok=0 try { set gw=$system.external.getGateway(\"IRISTerminal\") set ok=1 "
                        + "do gw.disconnect() } catch { } write ok", 30_000).path("output").asString().strip();
                return new Result("LC-GWRES", true, o.equals("0") ? "ok" : "FAIL", o.equals("0")
                        ? "the agent's session could not connect to the server IRISTerminal"
                        : "the agent's session connected to the server IRISTerminal (answered " + o + "): it can run any Java there");
            }));
            // the jar the bridge runs must be out of an agent's reach (hosted review round 5, R5-12): opening it for
            // appending, which writes nothing, must fail
            out.add(jar.isEmpty() ? new Result("LC-JAR", true, "not-run", "the jar's path was not given").line() : check("LC-JAR", true, () -> {
                String o = execute(a, "set f=\"" + jar.replace("\"", "\"\"") + "\" if '##class(%File).Exists(f) { write \"missing\" } "
                        + "else { open f:(\"WA\"):1 set t=$test close:t f write t }", 30_000).path("output").asString().strip();
                return new Result("LC-JAR", true, o.equals("0") ? "ok" : "FAIL", o.equals("0")
                        ? "the agent's session could not open " + jar + " for writing"
                        : o.equals("missing") ? jar + " is not there" : "the agent's session opened " + jar + " for writing: any agent can replace the bridge");
            }));
            out.add("#marker\t" + nonce);
            out.add(check("LC-LINK", true, () -> {
                String o = execute(a, "write \"é€ " + nonce + "\"", 30_000).path("output").asString();
                return new Result("LC-LINK", true, o.contains("é€ " + nonce) ? "ok" : "FAIL", "wrote \"é€ " + nonce + "\", came back: " + o);
            }));
            out.add(check("LC-INT", true, () -> {
                JsonNode running = execute(a, "for { hang 1 }", 2_000);
                if (!running.path("status").asString().equals("running")) {
                    return new Result("LC-INT", true, "FAIL", "for { hang 1 } answered " + running + ", not running");
                }
                tool("session_signal", Map.of("session", a, "signal", "INT"));
                JsonNode read = tool("session_read", Map.of("session", a, "wait_ms", 10_000));
                boolean ok = Interrupts.shownIn(read.toString());
                return new Result("LC-INT", true, ok ? "ok" : "FAIL", "after session_signal INT: " + read);
            }));
            out.add(check("LC-KILL", false, () -> {
                String b = tool("session_open", Map.of("kind", "iris", "name", "live-test-kill")).path("session").asString();
                String pid = execute(b, "write $job", 30_000).path("output").asString().strip();
                execute(b, "for { try { hang 1 } catch { } }", 1_000);
                tool("session_close", Map.of("session", b, "force", true, "grace_ms", 2_000));
                // bounded wait inside IRIS: at most 10 s for the job to go
                String o = execute(a, "for i=1:1:100 { quit:'$data(^$JOB(" + pid + "))  hang 0.1 } write $data(^$JOB(" + pid + "))", 30_000)
                        .path("output").asString().strip();
                return new Result("LC-KILL", false, o.endsWith("0") ? "ok" : "FAIL", "job " + pid + " after a forced close: $data(^$JOB) " + o);
            }));
            out.add(check("LC-THREADS", false, () -> {
                // output arrives between gateway calls: each read while the command runs finds new lines
                JsonNode first = execute(a, "for i=1:1:6 { write \"tick \",i,! hang 1 }", 1_500);
                if (!first.path("status").asString().equals("running")) {
                    return new Result("LC-THREADS", false, "FAIL", "the 6 s command answered " + first + ", not running");
                }
                int reads = 0, withData = 0;
                String seen = "";
                while (reads < 6 && !seen.contains("tick 6")) {
                    JsonNode r = tool("session_read", Map.of("session", a, "wait_ms", 2_000, "until", "data"));
                    reads++;
                    String data = r.path("data").asString();
                    if (!data.isEmpty()) {
                        withData++;
                    }
                    seen += data;
                }
                boolean ok = withData >= 2 && seen.contains("tick 6");
                return new Result("LC-THREADS", false, ok ? "ok" : "FAIL", withData + " of " + reads + " reads while it ran found output; "
                        + (seen.contains("tick 6") ? "all six lines came" : "the last line never came"));
            }));
            // nor stop it (LC-STOP; engine review round 10, E10-2: one that could, and start it again, would be the
            // ancestor of a JVM whose memory it may open): its own session, whose link that server holds, still answers
            out.add(check("LC-STOP", true, () -> {
                execute(a, "set ok=0 try { do $system.external.stopServer(\"IRISTerminal\") set ok=1 } catch { } write ok", 30_000);
                String o;
                try {
                    o = execute(a, "write \"alive\"", 30_000).path("output").asString();
                } catch (Exception e) {
                    o = e.getMessage();
                }
                return new Result("LC-STOP", true, o.contains("alive") ? "ok" : "FAIL", o.contains("alive")
                        ? "the agent's attempt to stop the server IRISTerminal left its session answering"
                        : "after the agent's attempt to stop the server IRISTerminal its session no longer answers: " + o);
            }));
            try {
                out.add("#linkloss-pid\t" + execute(a, "write $job", 30_000).path("output").asString().strip());
            } catch (Exception e) {
                out.add(new Result("LC-LINKLOSS", false, "not-run", "no session job to watch: " + e.getMessage()).line());
            }
            return out;
        }

        private interface Check {
            Result run() throws Exception;
        }

        private static String check(String id, boolean blocking, Check c) {
            try {
                return c.run().line();
            } catch (Exception e) {
                return new Result(id, blocking, "FAIL", e.toString()).line();
            }
        }

        private JsonNode execute(String session, String code, long timeoutMs) throws Exception {
            return tool("iris_execute", Map.of("session", session, "code", code, "timeout_ms", timeoutMs));
        }

        /** A tools/call's structured result; a tool error is thrown with its text. */
        private JsonNode tool(String name, Map<String, Object> arguments) throws Exception {
            ObjectNode params = JSON.createObjectNode().put("name", name);
            params.set("arguments", JSON.valueToTree(arguments));
            JsonNode answer = rpc("tools/call", params);
            JsonNode result = answer.path("result");
            if (result.isMissingNode() || result.path("isError").asBoolean(false)) {
                throw new IllegalStateException(name + " answered " + answer);
            }
            return result.path("structuredContent");
        }

        private void notifyInitialized() throws Exception {
            send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        }

        private JsonNode rpc(String method, JsonNode params) throws Exception {
            ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", ++id).put("method", method);
            message.set("params", params);
            String body = send(JSON.writeValueAsString(message));
            return JSON.readTree(body);
        }

        /** POSTs one message; answers the JSON-RPC message of the answer (the last SSE event's data, or the body). */
        private String send(String message) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(60))
                    .header("Authorization", auth).header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString(message, StandardCharsets.UTF_8));
            if (session != null) {
                request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18");
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException("HTTP " + response.statusCode() + " " + response.body());
            }
            response.headers().firstValue("Mcp-Session-Id").ifPresent(s -> session = s);
            return response.headers().firstValue("Content-Type").orElse("").contains("text/event-stream")
                    ? lastEventData(response.body()) : response.body();
        }
    }

    /** The data of the last SSE event that has data (its data lines joined with LF). */
    static String lastEventData(String body) {
        String last = "";
        StringBuilder event = null;
        for (String raw : (body + "\n\n").split("\n", -1)) {
            String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
            if (line.isEmpty()) {
                if (event != null) {
                    last = event.toString();
                }
                event = null;
            } else if (line.startsWith("data:")) {
                String value = line.substring(5);
                value = value.startsWith(" ") ? value.substring(1) : value;
                event = event == null ? new StringBuilder(value) : event.append('\n').append(value);
            }
        }
        return last;
    }
}
