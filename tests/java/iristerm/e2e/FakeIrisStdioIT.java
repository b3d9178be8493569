package iristerm.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;

/** The iris scenarios against the real server with the contract fake in place of IRIS. */
class FakeIrisStdioIT extends IrisScenarios {
    private static final List<String> LAUNCH = List.of("-cp", System.getProperty("java.class.path"),
            FakeIrisStdioMain.class.getName());

    @Override
    protected ServerUnderTest start() throws Exception {
        List<String> launch = new ArrayList<>(LAUNCH);
        launch.addAll(List.of("--process", "off"));
        return new StdioServer(Files.createTempDirectory("itm-fake-iris"), List.of(), launch, Map.of());
    }

    /**
     * A cancelled wait on an iris session ends at once, as one on a process session does: the
     * iris_execute of a 50 s HANG and a 50 s session_read of it, both cancelled
     * (notifications/cancelled), no longer hold the end of input back, and neither is answered.
     */
    @Test
    void cancelledWaitsOnAnIrisSessionEndAtOnce() throws Exception {
        try (RawStdioServer server = new RawStdioServer(Files.createTempDirectory("itm-fake-iris-cancel"), LAUNCH,
                "--process", "off")) {
            StdioErasIT.Messages m = new StdioErasIT.Messages(server);
            String session = m.call(StdioErasIT.modern(1, "tools/call", Map.of("name", "session_open",
                    "arguments", Map.of("kind", "iris")))).path("result").path("structuredContent").path("session")
                    .asString();
            server.send(StdioErasIT.modern(2, "tools/call", Map.of("name", "iris_execute", "arguments",
                    Map.of("session", session, "code", "hang 50", "timeout_ms", 50000))));
            cancel(server, 2);
            server.send(StdioErasIT.modern(3, "tools/call", Map.of("name", "session_read", "arguments",
                    Map.of("session", session, "wait_ms", 50000, "until", Map.of("pattern", "never-printed")))));
            cancel(server, 3);
            // the server is there for the next call
            JsonNode listed = m.call(StdioErasIT.modern(4, "tools/call", Map.of("name", "session_list",
                    "arguments", Map.of()))).path("result");
            assertTrue(listed.path("content").get(0).path("text").asString().contains(session), listed::toString);
            server.closeStdin();
            assertTrue(server.exitsWithin(StdioErasIT.PROMPT_EXIT_SECONDS), "a cancelled iris wait went on");
            assertEquals(List.of(), m.seen.stream().filter(n -> n.path("id").asInt(-1) == 2
                    || n.path("id").asInt(-1) == 3).toList(), "cancelled, yet answered");
        }
    }

    private static void cancel(RawStdioServer server, int id) throws Exception {
        server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + id
                + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    }
}
