package iristerm.mcp;

import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.session.Session;
import iristerm.ui.SessionOutput;
import iristerm.ui.UiAssets;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The MCP Apps view of a session (extension {@value #EXTENSION}, spec 2026-01-26): a host that renders
 * Apps shows the live terminal of the session a session_open, session_send or session_read call was
 * about, inside the conversation. Three parts, all plain MCP so they work on every transport (stdio,
 * HTTP, hosted in IRIS) without anything of their own:
 * <ul>
 *   <li>the view, resource {@value #URI}: one HTML document with xterm.js and the view's script inlined,
 *   so it needs no network (no {@code csp} block: the host allows no connections);</li>
 *   <li>{@code _meta.ui.resourceUri} on the three tools, which tells the host to show it;</li>
 *   <li>session_view, a tool only the view may call ({@code visibility: ["app"]}): the view's data comes
 *   through the host, as the caller's own tool calls, under the same ownership rules as every tool.</li>
 * </ul>
 * Nothing here carries a credential: the view has none, the host's connection is its authority.
 */
public final class AppView {
    public static final String EXTENSION = "io.modelcontextprotocol/ui";
    /** versioned: bump it when what the view expects of the tools changes, so no host keeps a stale copy */
    public static final String URI = "ui://iris-terminal/terminal-v1.html";
    public static final String MIME_TYPE = "text/html;profile=mcp-app";
    /** the extension as the server's capabilities declare it (initialize; server/discover should reuse it) */
    public static final Map<String, Map<String, Object>> CAPABILITY = Map.of(EXTENSION, Map.of("mimeTypes", List.of(MIME_TYPE)));
    static final String VIEW_TOOL = "session_view";
    /** the tools whose results the view shows */
    private static final Set<String> SHOWN_BY = Set.of("session_open", "session_send", "session_read");
    /**
     * A view's long poll waits at most this long: well below the tool-call timeouts of hosts (about 60 s
     * in several) and the Web Gateway's when hosted in IRIS, so an idle session costs a few calls a minute.
     */
    static final long MAX_WAIT_MS = 20_000;

    /** the view's files in the jar; their {{name}} placeholders are filled by {@link #html()} */
    private static final String TEMPLATE = "app/terminal.html";
    private static final Map<String, String> INLINED = Map.of(
            "{{xterm.css}}", UiAssets.XTERM + "css/xterm.css",
            "{{xterm.js}}", UiAssets.XTERM + "lib/xterm.js",
            "{{terminal.css}}", "app/terminal.css",
            "{{terminal.js}}", "app/terminal.js");

    private static final Pattern SOURCE_MAP = Pattern.compile("(?m)^//# sourceMappingURL=.*$");

    private static volatile String html;

    private AppView() {
    }

    /** A tool's {@code _meta}: the view for the three tools that show a session, app-only visibility for session_view. */
    static Map<String, Object> toolMeta(String tool) {
        if (VIEW_TOOL.equals(tool)) {
            return Map.of("ui", Map.of("resourceUri", URI, "visibility", List.of("app")));
        }
        if (SHOWN_BY.contains(tool)) {
            // the flat key is the spec's deprecated form and openai/outputTemplate ChatGPT's: hosts still read them
            return Map.of("ui", Map.of("resourceUri", URI), "ui/resourceUri", URI, "openai/outputTemplate", URI);
        }
        return null;
    }

    /** The view as a resource: listed, and read by hosts before they render a result of the three tools. */
    static McpServerFeatures.SyncResourceSpecification resource() {
        return new McpServerFeatures.SyncResourceSpecification(described(), (exchange, req) -> read());
    }

    /** The same resource for the stateless (2026-07-28) lane. */
    static McpStatelessServerFeatures.SyncResourceSpecification modernResource() {
        return new McpStatelessServerFeatures.SyncResourceSpecification(described(), (context, req) -> read());
    }

    private static McpSchema.Resource described() {
        return McpSchema.Resource.builder()
                .uri(URI)
                .name("terminal-view")
                .title("Live terminal")
                .description("The live terminal of a session, with Interrupt and Close, for hosts that render MCP Apps")
                .mimeType(MIME_TYPE)
                .build();
    }

    private static McpSchema.ReadResourceResult read() {
        return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(URI, MIME_TYPE, html(),
                // prefersBorder: a terminal reads best framed; no csp: the view connects nowhere
                Map.of("ui", Map.of("prefersBorder", true)))));
    }

    /**
     * The view's document: the template with xterm.js (the browser view's, from its WebJar) and the view's
     * own script and style inlined, assembled once from the jar.
     */
    public static String html() {
        String h = html;
        if (h == null) {
            h = text(TEMPLATE);
            for (Map.Entry<String, String> e : INLINED.entrySet()) {
                h = h.replace(e.getKey(), inlinable(e.getValue()));
            }
            html = h;
        }
        return h;
    }

    /**
     * A file's text, refused if it would end its own script or style element early; its source-map comment
     * is dropped (a developer tool would try to fetch the map, and the view fetches nothing).
     */
    private static String inlinable(String resource) {
        String t = SOURCE_MAP.matcher(text(resource)).replaceAll("");
        String lower = t.toLowerCase(Locale.ROOT);
        // "<!--" too: inside a script, it (with a later "<script") changes how the page's parser finds the end
        if (lower.contains("</script") || lower.contains("</style") || lower.contains("<!--")) {
            throw new IllegalStateException(resource + " cannot be inlined: it contains </script, </style or <!--");
        }
        return t;
    }

    private static String text(String resource) {
        return new String(UiAssets.read(resource), StandardCharsets.UTF_8);
    }

    /**
     * session_view: a session's raw output from a byte offset, long-polled. Like the browser view it reads
     * the output log with its own offset, not as one of the session's readers, so it moves no agent's cursor.
     */
    static ToolSpec viewTool(ServerContext ctx) {
        return new ToolSpec(VIEW_TOOL, "Watch a session (the terminal view)", ToolSpec.Hints.READS, """
                For the terminal view only (MCP Apps): a session's raw output from byte offset since (default: \
                the last 256 KiB), waiting up to wait_ms for some; b64 is the bytes as base64, next the offset \
                to ask for next, ended true once the session exited and all its output was given. Moves no \
                reader's cursor.""", """
                {"type": "object", "properties": {
                  "session": {"type": "string"},
                  "since": {"type": "integer", "minimum": 0, "description": "byte offset (the last answer's next)"},
                  "wait_ms": {"type": "integer", "minimum": 0, "maximum": %d, "default": %d}
                }, "required": ["session"], "additionalProperties": false}""".formatted(MAX_WAIT_MS, MAX_WAIT_MS), """
                {"type": "object", "properties": {
                  "session": {"type": "string"}, "from": {"type": "integer"}, "next": {"type": "integer"},
                  "b64": {"type": "string"}, "ended": {"type": "boolean"}, "state": {"type": "string"},
                  "exit_code": {"type": "integer"}, "signal": {"type": "string"}
                }, "required": ["session", "from", "next", "b64", "ended", "state"]}""", (c, a) -> {
            Session s = ctx.sessions().get(c.identity(), a.requiredString("session"));
            long since = a.has("since") ? a.integer("since", 0, 0, Long.MAX_VALUE) : SessionOutput.start(s);
            SessionOutput.Chunk chunk = SessionOutput.next(s, since, a.integer("wait_ms", MAX_WAIT_MS, 0, MAX_WAIT_MS));
            Map<String, Object> out = Results.map("session", s.id(), "from", chunk.from(), "next", chunk.next(),
                    "b64", Base64.getEncoder().encodeToString(chunk.bytes()), "ended", chunk.ended(),
                    "state", s.state().name(), "exit_code", chunk.exitCode(), "signal", chunk.signal());
            return new Answer(out, chunk.bytes().length + " bytes of session " + s.id() + " at " + chunk.from()
                    + (chunk.ended() ? " (ended)" : ""));
        });
    }
}
