package iristerm.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

/**
 * The TypeScript MCP clients (pinned in tests/clients) run the agent scenario of
 * tests/clients/agent.mjs (connect, tools, open, send, read, transcript resource, close) over HTTP
 * and stdio: {@code @modelcontextprotocol/client} 2.4.0 pinned to 2026-07-28, in {@code auto}
 * mode (which must land on 2026-07-28) and in legacy mode; and the 1.x SDK client (1.32.2), which
 * speaks only the 2025 protocol, unchanged.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class TypeScriptClientsIT {
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(2);
    private static NodePackage clients;

    /** a client, its version negotiation, and the era it must land on */
    private record Case(String client, String mode, String era) {
    }

    private static final List<Case> CASES = List.of(new Case("v2", "pin", "modern"), new Case("v2", "auto", "modern"),
            new Case("v2", "legacy", "legacy"), new Case("v1", "legacy", "legacy"));

    @BeforeAll
    static void install() throws Exception {
        clients = NodePackage.install("clients");
    }

    @Test
    void everyClientRunsTheAgentScenarioOverHttp(@TempDir Path dataDir) throws Exception {
        try (ServeProcess serve = ServeProcess.start(StdioServer.jar(), dataDir, List.of("--no-auth"), 60)) {
            List<String> problems = new ArrayList<>();
            for (Case c : CASES) {
                problems.addAll(run(c, "http", List.of(serve.endpoint().toString())));
            }
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        }
    }

    @Test
    void everyClientRunsTheAgentScenarioOverStdio(@TempDir Path dataDir) throws Exception {
        List<String> problems = new ArrayList<>();
        for (Case c : CASES) {
            problems.addAll(run(c, "stdio", List.of("stdio", ServeProcess.java(), "-jar", StdioServer.jar().toString(),
                    "stdio", "--data-dir", dataDir.toString())));
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** What is wrong with one client's run of the scenario (nothing: an empty list). */
    private static List<String> run(Case c, String transport, List<String> target) throws Exception {
        List<String> command = new ArrayList<>(List.of(clients.node(), "agent.mjs", c.client(), c.mode()));
        command.addAll(target);
        String name = c.client() + "-" + c.mode() + "-" + transport;
        Run run = Run.of(clients.dir(), clients.dir().resolve(name + ".log"), RUN_TIMEOUT,
                command);
        String last = run.output().strip().lines().reduce((a, b) -> b).orElse("");
        if (run.exit() != 0 || !last.startsWith("{")) {
            return List.of(name + ": exit " + run.exit() + ":\n" + run.output());
        }
        JsonNode seen = Json.MAPPER.readTree(last);
        List<String> problems = new ArrayList<>();
        check(problems, name, c.era(), seen.path("era").asString());
        check(problems, name, "pattern", seen.path("reason").asString());
        check(problems, name, true, seen.path("sent").asString().contains("agent-42"));
        check(problems, name, true, seen.path("transcript").asBoolean());
        check(problems, name, true, seen.path("closed").asBoolean());
        check(problems, name, true, seen.path("tools").asInt() > 0);
        return problems;
    }

    private static void check(List<String> problems, String name, Object expected, Object actual) {
        if (!expected.equals(actual)) {
            problems.add(name + ": expected " + expected + ", saw " + actual);
        }
    }
}
