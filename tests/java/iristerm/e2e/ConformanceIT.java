package iristerm.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import iristerm.http.HeldBytes;
import iristerm.http.McpHttpServer;
import iristerm.http.StreamableCore;
import iristerm.json.Json;
import iristerm.security.OriginPolicy;
import tools.jackson.databind.JsonNode;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance} 0.2.0-alpha.12,
 * pinned with the Node 22 it needs in tests/conformance) in the project's own test run: installed
 * into target/conformance with {@code npm ci}, run scenario by scenario for the 2025 era and as the
 * whole requirements of 2026-07-28 for the modern one, and judged by the checks it writes
 * (checks.json), not only by its exit code: any FAILURE, WARNING or SKIPPED fails the test, unless
 * excused here with its reason.
 *
 * <p>The generic scenarios run against {@code serve --no-auth}. Excluded, because each calls a
 * fixture of the suite's reference "everything" server that a terminal server has no reason to
 * offer (they fail with "Unknown tool", "Resource not found", "Prompt not found" or "Method not
 * found: prompts/list" against any server without those fixtures):
 * completion-complete (prompt {@code test_prompt_with_arguments}), every tools-call-* and
 * elicitation-* scenario (tools {@code test_*}), resources-read-text, resources-read-binary,
 * resources-templates-read, resources-subscribe, resources-unsubscribe ({@code test://}
 * resources) and every prompts-* scenario (prompts {@code test_*}).
 *
 * <p>{@code server-sse-polling} likewise calls the fixture tool {@code test_reconnection}, which
 * closes its request's stream mid-call. Against {@code serve} only its priming and retry checks
 * can pass (they must); in full it runs against the same HTTP server and transport
 * ({@link McpHttpServer}) with that one tool added, the tool using the transport's own
 * {@link StreamableCore#CONTEXT_CLOSE_SSE_STREAM}.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ConformanceIT {

    private static final Path INSTALL = Path.of("target", "conformance").toAbsolutePath();
    /** Where each scenario leaves its checks.json and its output, for whoever reads a failure. */
    private static final Path RESULTS = INSTALL.resolve("results");
    private static final Duration SCENARIO_TIMEOUT = Duration.ofMinutes(2);

    private static final List<String> SERVE_SCENARIOS = List.of("server-initialize", "server-session-lifecycle", "ping",
            "logging-set-level", "tools-list", "resources-list", "server-sse-multiple-streams",
            "dns-rebinding-protection");

    /** The revision whose requirements run in full ({@code --requirements}), beside the 2025 scenarios above. */
    private static final String MODERN = "2026-07-28";

    /**
     * Scenarios of the 2026-07-28 requirements left out, each for its reason: they call the suite's
     * own fixtures or exercise what a terminal server does not offer. Matched by name or, ending in
     * "-", by prefix.
     */
    private static final Map<String, String> EXCUSED_2026_SCENARIOS = Map.of(
            "completion-complete", "calls the fixture prompt test_prompt_with_arguments",
            "tools-call-", "call the fixture tools test_*",
            "resources-read-", "read the fixture resources test://…",
            "resources-templates-read", "reads the fixture template test://…",
            "prompts-", "the server offers no prompts",
            "input-required-result-", "call the fixture tools of multi-round-trip requests; this server never needs "
                    + "input from the client",
            "tasks-", "the tasks extension is not offered (not scored for 2026-07-28)",
            "json-schema-2020-12", "calls the fixture tool json_schema_2020_12_tool (pending)",
            "http-custom-header-server-validation", "no tool declares x-mcp-header parameters (pending)");

    /** Single checks of the 2026-07-28 scenarios that run, left out for their reasons. */
    private static final Map<String, String> EXCUSED_2026_CHECKS = Map.of(
            "sep-2575-server-rejects-undeclared-capability", "needs the fixture tool test_missing_capability",
            "sep-2575-missing-capability-http-400", "needs the fixture tool test_missing_capability",
            "sep-2575-http-server-no-independent-requests-on-stream", "needs the fixture tool test_streaming_elicitation",
            "sep-2575-server-no-log-without-loglevel", "needs the fixture tool test_logging_tool",
            "sep-2575-server-sends-prompts-list-changed-on-subscription", "skipped: the server offers no prompts",
            "sep-2575-server-sends-tools-list-changed-on-subscription", "skipped: the tool list never changes",
            "sep-2549-prompts-list-caching-hints", "the server offers no prompts",
            "sep-2549-resources-read-caching-hints", "skipped: resources/list is empty (transcripts are a template); "
                    + "StdioErasIT checks the hints of a transcript read");

    /** Scenarios of the 2026-07-28 requirements that must have run (and passed). */
    private static final List<String> REQUIRED_2026_SCENARIOS = List.of("server-stateless", "tools-list",
            "resources-list", "sep-2164-resource-not-found", "caching", "dns-rebinding-protection",
            "http-header-validation");

    private static NodePackage conformance;

    @BeforeAll
    static void install() throws Exception {
        conformance = NodePackage.install("conformance");
    }

    @Test
    void genericScenariosPassAgainstServe(@TempDir Path dataDir) throws Exception {
        try (ServeProcess serve = ServeProcess.start(StdioServer.jar(), dataDir, List.of("--no-auth"), 60)) {
            List<String> problems = new ArrayList<>();
            for (String scenario : SERVE_SCENARIOS) {
                problems.addAll(runScenario("serve", serve.endpoint().toString(), scenario, List.of(), Map.of()));
            }
            // serve primes its streams too; only the fixture's part cannot run against it
            problems.addAll(runScenario("serve", serve.endpoint().toString(), "server-sse-polling",
                    List.of("server-sse-priming-event", "server-sse-retry-field"),
                    Map.of("server-sse-disconnect-resume", "needs the suite's test_reconnection fixture tool, which "
                            + "serve does not offer; ssePollingPassesOnTheServersHttpTransport runs it")));
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        }
    }

    /**
     * The requirements of MCP 2026-07-28 as the suite freezes them, run in one go against the same
     * {@code serve}: every check of every scenario passes, but the excused ones above.
     */
    @Test
    void requirementsOf2026PassAgainstServe(@TempDir Path dataDir) throws Exception {
        try (ServeProcess serve = ServeProcess.start(StdioServer.jar(), dataDir, List.of("--no-auth"), 60)) {
            Path out = RESULTS.resolve("serve-" + MODERN);
            deleteTree(out);
            Files.createDirectories(out);
            Run run = Run.of(INSTALL, RESULTS.resolve("serve-" + MODERN + ".log"), SCENARIO_TIMEOUT.multipliedBy(5),
                    node(), suite(), "server", "--url", serve.endpoint().toString(), "--requirements", MODERN,
                    "-o", out.toString());
            List<String> problems = new ArrayList<>();
            List<String> ran = new ArrayList<>();
            try (Stream<Path> dirs = Files.list(out)) {
                for (Path dir : dirs.sorted().toList()) {
                    // server-<scenario>-<timestamp of 24 characters>
                    String name = dir.getFileName().toString();
                    String scenario = name.substring("server-".length(), name.length() - 25);
                    ran.add(scenario);
                    if (EXCUSED_2026_SCENARIOS.keySet().stream().noneMatch(
                            e -> e.endsWith("-") ? scenario.startsWith(e) : scenario.equals(e))) {
                        problems.addAll(judge(scenario, Json.MAPPER.readTree(Files.readString(
                                dir.resolve("checks.json"))), List.of(), EXCUSED_2026_CHECKS));
                    }
                }
            }
            for (String scenario : REQUIRED_2026_SCENARIOS) {
                if (!ran.contains(scenario)) {
                    problems.add(scenario + " did not run (exit " + run.exit() + "):\n" + run.output());
                }
            }
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        }
    }

    @Test
    void ssePollingPassesOnTheServersHttpTransport() throws Exception {
        McpHttpServer.Config config = new McpHttpServer.Config("127.0.0.1", 0, null,
                OriginPolicy.forListenHost("127.0.0.1", List.of()), true, 1 << 20, 16, Duration.ofMinutes(5),
                McpHttpServer.DEFAULT_KEEP_ALIVE, Duration.ofSeconds(30), Duration.ofMinutes(2),
                HeldBytes.defaultMax());
        try (McpHttpServer server = McpHttpServer.start(config, ConformanceIT::pollingFixture)) {
            List<String> problems = runScenario("with-fixture", server.endpoint().toString(), "server-sse-polling",
                    List.of("server-sse-priming-event", "server-sse-retry-field", "server-sse-disconnect-resume"),
                    Map.of());
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        }
    }

    /** The suite's {@code test_reconnection}: frees its connection after the priming event, then answers. */
    private static McpSyncServer pollingFixture(McpStreamableServerTransportProvider transport) {
        SyncToolSpecification reconnection = SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder("test_reconnection", Json.MCP, "{\"type\":\"object\"}")
                        .description("Closes its SSE stream mid-call; the answer arrives after the client reconnects")
                        .build())
                .callHandler((exchange, request) -> {
                    ((Runnable) exchange.transportContext().get(StreamableCore.CONTEXT_CLOSE_SSE_STREAM)).run();
                    return McpSchema.CallToolResult.builder().addTextContent("reconnected").build();
                })
                .build();
        return McpServer.sync(transport).jsonMapper(Json.MCP).jsonSchemaValidator(new DefaultJsonSchemaValidator(Json.MAPPER))
                .serverInfo("conformance-polling", "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .tools(reconnection)
                .build();
    }

    /**
     * Runs one scenario against {@code server} (names its results folder) and returns what is wrong
     * with its checks (see {@link #judge}).
     */
    private static List<String> runScenario(String server, String url, String scenario, List<String> required,
            Map<String, String> excused) throws Exception {
        Path results = RESULTS.resolve(server);
        Path out = results.resolve(scenario);
        deleteTree(out);
        Files.createDirectories(results);
        Run run = Run.of(INSTALL, results.resolve(scenario + ".log"), SCENARIO_TIMEOUT, node(), suite(),
                "server", "--url", url, "--scenario", scenario, "-o", out.toString());
        List<Path> checkFiles;
        try (Stream<Path> files = Files.walk(out)) {
            checkFiles = files.filter(p -> p.getFileName().toString().equals("checks.json")).toList();
        } catch (IOException e) {
            return List.of(scenario + ": no results (exit " + run.exit() + "):\n" + run.output());
        }
        if (checkFiles.size() != 1) {
            return List.of(scenario + ": expected one checks.json, found " + checkFiles + ":\n" + run.output());
        }
        List<String> problems = judge(scenario, Json.MAPPER.readTree(Files.readString(checkFiles.get(0))), required,
                excused);
        if (run.exit() != 0 && problems.isEmpty()) {
            problems.add(scenario + ": the suite exited " + run.exit() + ":\n" + run.output());
        }
        return problems;
    }

    /**
     * What is wrong with one scenario's checks: any that is neither SUCCESS nor INFO (unless
     * {@code excused}: check id to the reason), none that is SUCCESS, or one of {@code required}
     * missing or not SUCCESS.
     */
    private static List<String> judge(String scenario, JsonNode checks, List<String> required,
            Map<String, String> excused) {
        List<String> problems = new ArrayList<>();
        Map<String, String> statusById = new HashMap<>();
        for (JsonNode check : checks) {
            String status = check.path("status").asString();
            String id = check.path("id").asString();
            statusById.merge(id, status, (a, b) -> a.equals("SUCCESS") ? b : a);
            if (!status.equals("SUCCESS") && !status.equals("INFO") && !excused.containsKey(id)) {
                problems.add(scenario + ": " + status + " " + id + " — " + check.path("description").asString()
                        + ": " + check.path("errorMessage").asString(""));
            }
        }
        if (!statusById.containsValue("SUCCESS")) {
            problems.add(scenario + ": no check succeeded: " + checks);
        }
        for (String id : required) {
            if (!"SUCCESS".equals(statusById.get(id))) {
                problems.add(scenario + ": required check " + id + " was " + statusById.get(id));
            }
        }
        return problems;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> old = Files.walk(dir)) {
                for (Path path : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    private static String suite() {
        return INSTALL.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js").toString();
    }

    private static String node() {
        return conformance.node();
    }
}
