package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.mcp.AppView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static iristerm.e2e.Mcp.call;
import static iristerm.e2e.Mcp.error;
import static iristerm.e2e.Mcp.num;
import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MCP Apps view as a host sees it, through the SDK's client and the packaged jar's {@code serve}
 * with two identities: the declared extension, the tools' {@code _meta}, the view resource, and the
 * app-only session_view (what it returns, whom it serves, whose cursor it leaves alone).
 */
@Timeout(120)
class AppViewIT {
    private static final String ALICE = "alice-token-0123456789abcdef";
    private static final String BOB = "bob-token-0123456789abcdefgh";

    @TempDir
    static Path dir;
    private static HttpServer server;
    private static McpSyncClient alice;
    private static McpSyncClient bob;

    @BeforeAll
    static void start() throws Exception {
        server = HttpServer.withTokens(dir, Map.of("alice", ALICE, "bob", BOB), line -> { });
        alice = server.connect(ALICE, n -> { });
        bob = server.connect(BOB, n -> { });
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void initializeDeclaresTheExtension() {
        Map<String, Map<String, Object>> extensions = alice.getServerCapabilities().extensions();
        assertEquals(Map.of("mimeTypes", List.of("text/html;profile=mcp-app")),
                extensions == null ? null : extensions.get("io.modelcontextprotocol/ui"), () -> "extensions: " + extensions);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theSessionToolsNameTheViewAndSessionViewIsForTheViewOnly() {
        Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
        alice.listTools().tools().forEach(t -> tools.put(t.name(), t));
        for (String name : List.of("session_open", "session_send", "session_read")) {
            Map<String, Object> meta = tools.get(name).meta();
            assertEquals(Map.of("resourceUri", "ui://iris-terminal/terminal-v1.html"), meta.get("ui"), name);
            assertEquals("ui://iris-terminal/terminal-v1.html", meta.get("ui/resourceUri"), name);
            assertEquals("ui://iris-terminal/terminal-v1.html", meta.get("openai/outputTemplate"), name);
        }
        Map<String, Object> view = (Map<String, Object>) tools.get("session_view").meta().get("ui");
        assertEquals(List.of("app"), view.get("visibility"), "session_view must be hidden from the model");
        assertTrue(tools.get("session_view").annotations().readOnlyHint());
        for (String name : List.of("session_signal", "session_close", "session_list")) {
            assertNull(tools.get(name).meta(), name + " shows no view");
        }
    }

    @Test
    void theViewIsOneSelfContainedDocumentWithoutCredentials() {
        assertTrue(alice.listResources().resources().stream().anyMatch(r -> r.uri().equals(AppView.URI)
                && r.mimeType().equals("text/html;profile=mcp-app")), "resources/list shows the view");
        List<McpSchema.ResourceContents> contents = alice.readResource(new McpSchema.ReadResourceRequest(AppView.URI)).contents();
        assertEquals(1, contents.size());
        McpSchema.TextResourceContents html = (McpSchema.TextResourceContents) contents.get(0);
        assertEquals("text/html;profile=mcp-app", html.mimeType());
        // no csp: the host allows the view no connections at all
        assertEquals(Map.of("ui", Map.of("prefersBorder", true)), html.meta());
        String text = html.text();
        assertTrue(text.startsWith("<!doctype html>"), () -> text.substring(0, 100));
        assertTrue(text.contains("'ui/initialize'"), "the view's script is inlined (AppViewTest checks the rest)");
        // the view has no credential of its own: the host's connection is its authority
        for (String absent : List.of(ALICE, BOB, "signin", "/mcp", "iristerm_ui")) {
            assertFalse(text.contains(absent), "the view contains " + absent);
        }
    }

    @Test
    void sessionViewShowsTheOutputToItsOwnerAndMovesNoCursor() {
        String s = (String) ok(alice, "session_open", "command", "bash", "args", List.of("--norc", "--noprofile"),
                "env", Map.of("PS1", "$ ")).get("session");
        ok(alice, "session_send", "session", s, "text", "echo view-$((6*7))", "wait_ms", 0);
        String seen = "";
        Map<String, Object> v = Map.of("next", 0);
        // bounded: each call waits at most 5 s for output, and the command prints at once
        for (int i = 0; i < 10 && !seen.contains("view-42"); i++) {
            v = ok(alice, "session_view", "session", s, "since", num(v, "next"), "wait_ms", 5000);
            seen += new String(Base64.getDecoder().decode((String) v.get("b64")), StandardCharsets.UTF_8);
        }
        assertTrue(seen.contains("view-42"), seen);
        assertEquals(s, v.get("session"));
        assertEquals(false, v.get("ended"));
        // the agent's default reader still has it all to read
        Map<String, Object> r = ok(alice, "session_read", "session", s, "wait_ms", 5000);
        assertTrue(((String) r.get("data")).contains("view-42"), r::toString);

        String foreign = error(bob, "session_view", "session", s);
        assertEquals(error(bob, "session_read", "session", s), foreign, "another identity's view is refused as its read is");

        ok(alice, "session_close", "session", s);
        Map<String, Object> last = ok(alice, "session_view", "session", s, "since", num(v, "next"), "wait_ms", 5000);
        for (int i = 0; i < 10 && !Boolean.TRUE.equals(last.get("ended")); i++) {
            last = ok(alice, "session_view", "session", s, "since", num(last, "next"), "wait_ms", 5000);
        }
        assertEquals(true, last.get("ended"), last::toString);
        assertEquals("exited", last.get("state"));
        assertTrue(Boolean.TRUE.equals(call(alice, "session_view", "session", s, "wait_ms", 60_000).isError()),
                "wait_ms above the view's bound is refused");
    }
}
