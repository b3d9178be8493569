package iristerm.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

/**
 * The MCP Inspector (pinned in tests/inspector) in its CLI mode, as a user runs it against the
 * server: over stdio and over Streamable HTTP with a bearer token, in the 2025 era (legacy) and
 * in 2026-07-28 (modern), it lists the tools (with its schema portability check, {@code --strict}),
 * calls them, and lists and reads resources. Each inspector run is one client connection.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class InspectorIT {
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(2);
    private static final List<String> ERAS = List.of("legacy", "modern");
    private static final String TOKEN = "inspector-it-token-0123456789abcdef";
    private static NodePackage inspector;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void install() throws Exception {
        inspector = NodePackage.install("inspector");
    }

    @Test
    void theInspectorListsAndCallsTheToolsOverStdio() throws Exception {
        List<String> target = List.of(ServeProcess.java(), "-jar", StdioServer.jar().toString(), "stdio",
                "--data-dir", dataDir.toString());
        for (String era : ERAS) {
            listsPortableTools(era, target);
            // a stdio server lives as long as one inspector run: open, and the answer says what runs
            JsonNode opened = call(era, target, "tools/call", "--tool-name", "session_open", "--tool-args-json",
                    "{\"command\": \"bash\", \"mode\": \"pipe\"}").path("structuredContent");
            assertEquals("process", opened.path("kind").asString(), opened::toString);
            assertTrue(opened.path("pid").asLong() > 0 && !opened.path("session").asString().isEmpty(), opened::toString);
            listsTheTerminalView(era, target);
        }
    }

    @Test
    void theInspectorListsAndCallsTheToolsOverHttp() throws Exception {
        try (ServeProcess serve = ServeProcess.start(StdioServer.jar(), dataDir, List.of("--token", TOKEN), 60)) {
            // --header takes every value up to the next option, so it comes last
            List<String> target = List.of("--transport", "http", "--server-url", serve.endpoint().toString(),
                    "--header", "Authorization: Bearer " + TOKEN);
            for (String era : ERAS) {
                listsPortableTools(era, target);
                // the identity's sessions outlive each connection: one run opens, the next ones use it
                String session = call(era, target, "tools/call", "--tool-name", "session_open", "--tool-args-json",
                        "{\"command\": \"bash\", \"mode\": \"pipe\"}").path("structuredContent").path("session")
                        .asString();
                JsonNode sent = call(era, target, "tools/call", "--tool-name", "session_send", "--tool-args-json",
                        Json.MAPPER.writeValueAsString(Map.of("session", session, "text", "echo in-$((6*7))",
                                "wait_ms", 20000, "until", Map.of("pattern", "in-42")))).path("structuredContent");
                assertEquals("pattern", sent.path("reason").asString(), sent::toString);
                String uri = "iris-terminal://sessions/" + session + "/transcript";
                JsonNode read = call(era, target, "resources/read", "--uri", uri);
                assertTrue(read.path("contents").get(0).path("text").asString().contains("in-42"), read::toString);
                listsTheTerminalView(era, target);
                JsonNode closed = call(era, target, "tools/call", "--tool-name", "session_close", "--tool-args-json",
                        Json.MAPPER.writeValueAsString(Map.of("session", session)));
                assertTrue(!closed.path("isError").asBoolean(), closed::toString);
            }
        }
    }

    /** tools/list, with the inspector's strict check of the schemas' portability across model providers. */
    private void listsPortableTools(String era, List<String> target) throws Exception {
        List<String> args = new ArrayList<>(List.of("--strict"));
        args.addAll(target);
        Ran ran = inspect(era, "tools/list", args);
        assertEquals(0, ran.run().exit(), ran.run()::output);
        JsonNode tools = Json.MAPPER.readTree(ran.result());
        assertTrue(tools.path("tools").size() > 5, ran::result);
        // the portability summary counts warnings too, which --strict lets pass with exit 0
        assertTrue(!ran.run().output().contains("Warning:"), () -> era + ": schema portability: " + ran.run().output());
    }

    private void listsTheTerminalView(String era, List<String> target) throws Exception {
        JsonNode resources = call(era, target, "resources/list");
        assertTrue(resources.path("resources").toString().contains("ui://iris-terminal/"), resources::toString);
    }

    /** One inspector run of {@code method} that must succeed: its result. */
    private JsonNode call(String era, List<String> target, String method, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(target);
        Ran ran = inspect(era, method, all);
        assertEquals(0, ran.run().exit(), () -> era + " " + method + ": " + ran.run().output());
        return Json.MAPPER.readTree(ran.result());
    }

    /** What one inspector run printed (its log and the server's stderr) and the result it wrote. */
    private record Ran(Run run, String result) {
    }

    private Ran inspect(String era, String method, List<String> args) throws Exception {
        Path dir = inspector.dir();
        Path result = Files.createTempFile(dir, "result-", ".json");
        // an ad-hoc target (a command or URL, no --catalog): the inspector writes nothing to the user's home
        List<String> command = new ArrayList<>(List.of(inspector.node(),
                dir.resolve("node_modules/.bin/mcp-inspector").toString(), "--cli", "--format", "json",
                "--protocol-era", era, "--method", method, "--output", result.toString()));
        command.addAll(args);
        Run run = Run.of(dir, dir.resolve("inspector-" + era + ".log"), RUN_TIMEOUT, command);
        return new Ran(run, Files.readString(result, StandardCharsets.UTF_8));
    }
}
