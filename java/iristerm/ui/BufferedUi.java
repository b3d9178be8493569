package iristerm.ui;

import iristerm.http.Reply;
import iristerm.session.SessionChanges;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The browser view where every request is answered whole before the next can be made (the IRIS-hosted
 * bridge, which cannot stream): the same page and API, the page following the list and a session's output
 * with bounded long-poll requests instead of server-sent events. Who the viewer is, the caller has
 * established (IRIS's web application, its login and roles).
 */
public final class BufferedUi {
    /** a long-poll request waits at most this long for something new: well within the Web Gateway's 60 s */
    static final long POLL_MILLIS = 20_000;
    /** the list's version travels in this header, for the next request to wait past */
    static final String VERSION_HEADER = "X-Sessions-Version";
    /**
     * long polls one viewer may have waiting at once: each holds a Web Gateway request, a CSP process and a
     * gateway connection for up to POLL_MILLIS, so one user's open tabs must not hold them all
     */
    static final int MAX_WAITING_PER_VIEWER = 4;
    private final PollCap cap = new PollCap(MAX_WAITING_PER_VIEWER);
    private static final Pattern NUMBER = Pattern.compile("-?\\d{1,18}");

    private final UiApi api;
    private final SessionChanges changes;
    private final UiAssets assets = new UiAssets();
    /** the view's page, told to follow with requests instead of streams */
    private final Reply page;

    public BufferedUi(UiApi api, SessionChanges changes) {
        this.api = api;
        this.changes = changes;
        Reply index = assets.page(200, "/ui/");
        this.page = new Reply(200, index.headers(), index.body().replace("<body>", "<body data-follow=\"poll\">"));
    }

    /**
     * One request below the web application: {@code path} from {@code /ui} on, {@code query} the raw query
     * string (or empty), {@code origin} and {@code host} the request's headers (either may be null).
     */
    public Reply handle(Viewer viewer, String method, String path, String query, String origin, String host) {
        boolean get = "GET".equals(method);
        if (get && path.equals("/ui")) {
            // the page's addresses are relative to ui/
            return new Reply(303, java.util.Map.of("Location", "ui/"), "");
        }
        if (get && path.equals("/ui/")) {
            return page;
        }
        if (get && path.equals("/ui/api/sessions")) {
            long since = number(query, "since", -1);
            return since < 0 ? sessions(viewer, since) : cap.within(viewer.identity(), () -> sessions(viewer, since));
        }
        Matcher m = UiApi.SESSION_ROUTE.matcher(path);
        boolean route = m.matches();
        if (route && m.group(2).equals("output") && get) {
            return cap.within(viewer.identity(), () -> api.output(viewer, m.group(1), number(query, "from", -1), POLL_MILLIS));
        }
        if (route && "POST".equals(method) && (m.group(2).equals("takeover") || m.group(2).equals("type"))) {
            return UiApi.error(501, "typing into a session is not available in the IRIS-hosted view: Terminal.REST "
                    + "passes the bridge no request body, which typed text needs. An MCP client's session_send types.");
        }
        if (route && "POST".equals(method)) {
            Reply refused = UiApi.foreignOrigin(origin, host);
            return refused != null ? refused : api.act(viewer, m.group(1), m.group(2));
        }
        if (get && assets.get(path) != null && !path.equals("/ui/login")) {
            return assets.page(200, path);
        }
        return UiApi.error(404, "no page " + path + " here; the view is at ui/ of this web application");
    }

    /**
     * The list at once for a first request (no {@code since}); else once it changed since {@code since} and the
     * burst of changes settled ({@link UiApi#awaitListChange}), or as it is after the wait. A page asks again
     * as soon as it has its answer, so without the settling every session that prints would keep each open
     * page's requests going round without pause.
     */
    private Reply sessions(Viewer viewer, long since) {
        long version = changes.version();
        if (since >= 0) {
            try {
                version = UiApi.awaitListChange(changes, since, POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return Reply.json(200, api.sessionsJson(viewer)).with(VERSION_HEADER, Long.toString(version));
    }

    private static long number(String query, String name, long fallback) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith(name + "=") && NUMBER.matcher(pair.substring(name.length() + 1)).matches()) {
                    return Long.parseLong(pair.substring(name.length() + 1));
                }
            }
        }
        return fallback;
    }
}
