package iristerm.ui;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.http.Reply;
import iristerm.mcp.Json;
import iristerm.mcp.ServerAssembly;
import iristerm.session.Session;
import iristerm.session.SessionException;
import iristerm.session.SessionManager;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the browser view asks of the server, whatever carries the request: the caller's sessions,
 * a session's output, Interrupt and Close. Listing and both actions run the MCP tools' own handlers
 * ({@code session_list}, {@code session_signal}, {@code session_close}) as the caller, so a browser can
 * see and do exactly what that identity's agent could.
 */
public final class UiApi {
    private final ServerAssembly tools;
    private final SessionManager sessions;

    public UiApi(ServerAssembly tools, SessionManager sessions) {
        this.tools = tools;
        this.sessions = sessions;
    }

    /** session_list's answer for {@code identity}, as a {@code sessions} event's JSON. */
    String sessionsJson(String identity) {
        McpSchema.CallToolResult r = tools.callAs(identity, "session_list", Map.of());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "sessions");
        if (Boolean.TRUE.equals(r.isError())) {
            m.put("error", text(r));
        } else {
            m.put("sessions", ((Map<?, ?>) r.structuredContent()).get("sessions"));
        }
        return Json.MAPPER.writeValueAsString(m);
    }

    /** The identity's session, found as the tools find it (another identity's is not found either). */
    Session session(String identity, String id) {
        return sessions.get(identity, id);
    }

    /** Interrupt (INT) or Close, as the tools do them for this identity. */
    Reply act(String identity, String id, String action) {
        McpSchema.CallToolResult r = switch (action) {
            case "interrupt" -> tools.callAs(identity, "session_signal", Map.of("session", id, "signal", "INT"));
            case "close" -> tools.callAs(identity, "session_close", Map.of("session", id));
            default -> null;
        };
        if (r == null) {
            return error(404, "no action '" + action + "'; the actions are interrupt and close");
        }
        if (Boolean.TRUE.equals(r.isError())) {
            return error(409, text(r));
        }
        return Reply.json(200, Json.MAPPER.writeValueAsString(Map.of("ok", true, "message", text(r))));
    }

    /**
     * One page of a session's output from {@code from} (-1: the transcript's last part), waiting up to
     * {@code waitMillis} for some: how a page that cannot hold a stream open (the IRIS-hosted one) follows it.
     */
    Reply output(String identity, String id, long from, long waitMillis) {
        Session s;
        try {
            s = session(identity, id);
        } catch (SessionException e) {
            return error(404, e.getMessage());
        }
        return Reply.json(200, SessionOutput.next(s, from < 0 ? SessionOutput.start(s) : from, waitMillis).json());
    }

    static Reply error(int status, String message) {
        return Reply.json(status, Json.MAPPER.writeValueAsString(Map.of("error", message)));
    }

    private static String text(McpSchema.CallToolResult r) {
        StringBuilder b = new StringBuilder();
        for (McpSchema.Content c : r.content()) {
            if (c instanceof McpSchema.TextContent t) {
                b.append(t.text());
            }
        }
        return b.toString();
    }
}
