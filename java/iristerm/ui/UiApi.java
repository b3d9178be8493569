package iristerm.ui;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.http.Reply;
import iristerm.json.Json;
import iristerm.mcp.ServerAssembly;
import iristerm.session.Session;
import iristerm.session.SessionChanges;
import iristerm.session.SessionException;
import iristerm.session.SessionManager;
import iristerm.session.Signal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * What the browser view asks of the server, whatever carries the request: the caller's sessions,
 * a session's output, Interrupt and Close. Listing and both actions run the MCP tools' own handlers
 * ({@code session_list}, {@code session_signal}, {@code session_close}) as the caller, so a browser can
 * see and do exactly what that identity's agent could.
 */
public final class UiApi {
    /**
     * a session's output, Interrupt, Close, a person's take-over and typing: the routes both front ends
     * (streaming and polling) serve
     */
    static final Pattern SESSION_ROUTE = Pattern.compile(
            "/ui/api/sessions/([A-Za-z0-9._-]{1,64})/(output|interrupt|close|takeover|type)");

    /**
     * a burst of changes (output pouring out) is gathered for this long into one list, by both front ends: each
     * list runs session_list, and a hosted one is a round trip Web Gateway, bridge, IRIS besides
     */
    public static final long LIST_COALESCE_MILLIS = 250;

    private final ServerAssembly tools;
    private final SessionManager sessions;
    private final Takeovers takeovers = new Takeovers();

    public UiApi(ServerAssembly tools, SessionManager sessions) {
        this.tools = tools;
        this.sessions = sessions;
    }

    /**
     * session_list's answer for the viewer, and for one who sees all every other owner's sessions too, as a
     * {@code sessions} event's JSON.
     */
    String sessionsJson(Viewer viewer) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "sessions");
        McpSchema.CallToolResult r = tools.callAs(viewer.identity(), "session_list", Map.of());
        List<Object> rows = new ArrayList<>();
        if (Boolean.TRUE.equals(r.isError())) {
            m.put("error", text(r));
        } else {
            rows.addAll((List<?>) ((Map<?, ?>) r.structuredContent()).get("sessions"));
        }
        for (Session s : othersSeenBy(viewer)) {
            rows.add(tools.describe(s));
        }
        m.put("sessions", rows);
        return Json.MAPPER.writeValueAsString(m);
    }

    /**
     * Waits at most {@code timeoutMillis} for the sessions to change past {@code seen}; once they have, lets the
     * burst go on for {@link #LIST_COALESCE_MILLIS}, so that one list answers all of it. Returns the count the
     * list built next reflects ({@code seen} when nothing changed).
     */
    static long awaitListChange(SessionChanges changes, long seen, long timeoutMillis) throws InterruptedException {
        if (changes.awaitChange(seen, timeoutMillis) == seen) {
            return seen;
        }
        TimeUnit.MILLISECONDS.sleep(LIST_COALESCE_MILLIS);
        return changes.version();
    }

    /**
     * Other identities' sessions this viewer sees: none, or every one for an administrator. They are found
     * here rather than through the tools, which find only the caller's own.
     */
    private List<Session> othersSeenBy(Viewer viewer) {
        return viewer.seesAll()
                ? sessions.all().stream().filter(s -> !s.meta().owner().equals(viewer.identity())).toList()
                : List.of();
    }

    /** The viewer's session, found as the tools find it (another identity's is not found), or an administrator's pick. */
    Session session(Viewer viewer, String id) {
        Session other = othersSession(viewer, id);
        return other != null ? other : sessions.get(viewer.identity(), id);
    }

    /** Another identity's session {@code id} that the viewer may see, or null. */
    private Session othersSession(Viewer viewer, String id) {
        for (Session s : othersSeenBy(viewer)) {
            if (s.id().equals(id)) {
                return s;
            }
        }
        return null;
    }

    /**
     * Interrupt (INT) or Close: on the viewer's own session through the tools, as its agent would; on another
     * owner's (an administrator's view) through the same session calls the tools make, except where only the owner
     * can signal what runs in it (a hosted iris session: IRIS lets a user signal only its own jobs).
     */
    Reply act(Viewer viewer, String id, String action) {
        if (!action.equals("interrupt") && !action.equals("close")) {
            return error(404, "no action '" + action + "' here; the actions are interrupt and close");
        }
        Session other = othersSession(viewer, id);
        if (other != null && other.engine().ownerOnlySignals()) {
            return error(409, "only " + other.meta().owner() + " can " + action + " session " + id + ": IRIS lets a user "
                    + "signal only its own jobs; an administrator ends one in the Management Portal (System Operation > "
                    + "Processes, job " + other.pid() + ")");
        }
        if (other != null) {
            try {
                if (action.equals("interrupt")) {
                    other.signal(Signal.INT);
                } else {
                    // ends it as session_close does, leaving its unread output to its agent
                    other.terminate(false, sessions.config().defaultGraceMillis());
                }
            } catch (SessionException e) {
                return error(409, e.getMessage());
            }
            return done((action.equals("interrupt") ? "sent INT to" : "closed") + " session " + id + " of "
                    + other.meta().owner());
        }
        McpSchema.CallToolResult r = action.equals("interrupt")
                ? tools.callAs(viewer.identity(), "session_signal", Map.of("session", id, "signal", "INT"))
                : tools.callAs(viewer.identity(), "session_close", Map.of("session", id));
        return Boolean.TRUE.equals(r.isError()) ? error(409, text(r)) : done(text(r));
    }

    /**
     * Starts ({@code on}) or ends a person's take-over of a session, which typing into it needs. Only the viewer's
     * own sessions: an administrator who sees everyone's types into none but its own.
     */
    Reply takeover(Viewer viewer, String id, boolean on) {
        Session s;
        try {
            s = ownSession(viewer, id);
            if (on) {
                takeovers.begin(s, viewer.identity());
            } else {
                takeovers.end(s, viewer.identity());
            }
        } catch (SessionException e) {
            return error(409, e.getMessage());
        }
        return done(on ? "typing into session " + id + " is on: what you type goes to its program"
                : "typing into session " + id + " is off");
    }

    /** Text a person typed (keys as the terminal sends them) into the viewer's own session, while taken over. */
    Reply type(Viewer viewer, String id, String text) {
        try {
            Session s = ownSession(viewer, id);
            if (!takeovers.holds(s)) {
                return error(409, "typing into session " + id + " is off: turn on \"Type into this session\" first");
            }
            s.send(text, false, false);
        } catch (SessionException e) {
            return error(409, e.getMessage());
        }
        return done("typed " + text.length() + " characters");
    }

    private Session ownSession(Viewer viewer, String id) {
        try {
            return sessions.get(viewer.identity(), id);
        } catch (SessionException e) {
            throw new SessionException(e.getMessage() + ". A person types only into sessions of the identity "
                    + viewer.identity() + " they signed in as.");
        }
    }

    private static Reply done(String message) {
        return Reply.json(200, Json.MAPPER.writeValueAsString(Map.of("ok", true, "message", message)));
    }

    /**
     * One page of a session's output from {@code from} (-1: the transcript's last part), waiting up to
     * {@code waitMillis} for some: how a page that cannot hold a stream open (the IRIS-hosted one) follows it.
     */
    Reply output(Viewer viewer, String id, long from, long waitMillis) {
        Session s;
        try {
            s = session(viewer, id);
        } catch (SessionException e) {
            return error(404, e.getMessage());
        }
        return Reply.json(200, SessionOutput.next(s, from < 0 ? SessionOutput.start(s) : from, waitMillis).json());
    }

    /**
     * A refusal unless {@code origin} names the very host the request was sent to ({@code Host}): a state
     * change must come from the view's own page, not from any other page the browser has open. Null when it does.
     */
    static Reply foreignOrigin(String origin, String host) {
        int scheme = origin == null ? -1 : origin.indexOf("://");
        if (scheme > 0 && host != null && origin.substring(scheme + 3).equalsIgnoreCase(host)) {
            return null;
        }
        return error(403, "Origin " + origin + " may not change anything here: use the view's own page");
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
