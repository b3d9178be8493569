package iristerm.ui;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.Cookie;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import iristerm.http.Reply;
import iristerm.http.Responses;
import iristerm.http.SseFormat;
import iristerm.json.Json;
import iristerm.security.Tokens;
import iristerm.session.Session;
import iristerm.session.SessionChanges;
import iristerm.session.SessionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Deque;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/**
 * The browser view on the standalone server's listener, under {@value #PREFIX}: sign-in, the page and its
 * files, the live session list and output streams (server-sent events), Interrupt/Close, and a person's typing
 * into a session they took over. Every route
 * but the login page and sign-in needs a login cookie ({@link UiLogins}); {@code /mcp} never looks at it.
 * The server's {@code Host}/{@code Origin} guard runs before this handler; state-changing requests must
 * moreover come from the page itself (an {@code Origin} equal to this server's own).
 */
public final class UiHandler implements HttpHandler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UiHandler.class);
    public static final String PREFIX = "/ui";
    /**
     * an idle stream gets a comment this often, which also notices a browser that went away: the write after
     * the one that met the closed connection fails, so a gone browser's stream and permit go within two of these
     */
    private static final long KEEPALIVE_MILLIS = 2_000;
    /** streams one identity's browsers may hold open at once; each holds a thread */
    static final int MAX_STREAMS_PER_IDENTITY = 32;
    private static final int MAX_FORM_BYTES = 4096;
    /** the routes of a person's typing, which read a JSON body */
    private static final Set<String> PERSON_INPUT = Set.of("takeover", "type");
    /** typing requests one identity may make at once, and then one per interval (fast typing, a paste's pieces) */
    static final int TYPING_BURST = 100;
    static final long TYPING_INTERVAL_MILLIS = 10;
    /** how long closing waits for the stream threads it interrupted */
    private static final long STOP_MILLIS = 2_000;

    private final UiApi api;
    private final SessionChanges changes;
    private final UiLogins logins;
    private final Tokens tokens;
    private final UiAssets assets = new UiAssets();
    private final Map<String, Semaphore> streams = new ConcurrentHashMap<>();
    private final Map<String, RateLimit> typing = new ConcurrentHashMap<>();
    /**
     * the threads of the open streams, by the login cookie they were opened with: sign-out interrupts them; a set
     * is changed only inside the map's compute for its login, which makes that atomic with the interrupts
     */
    private final Map<String, Set<Thread>> streamsByLogin = new ConcurrentHashMap<>();
    private final ExecutorService streamThreads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ui-stream");
        t.setDaemon(true);
        return t;
    });

    /** @param tokens the bearer tokens a browser may sign in with; null when the server runs without authentication */
    public UiHandler(UiApi api, SessionChanges changes, UiLogins logins, Tokens tokens) {
        this.api = api;
        this.changes = changes;
        this.logins = logins;
        this.tokens = tokens;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        String path = exchange.getRequestPath();
        boolean get = Methods.GET.equals(exchange.getRequestMethod());
        boolean post = Methods.POST.equals(exchange.getRequestMethod());
        if (path.equals(PREFIX)) {
            redirect(exchange, PREFIX + "/");
        } else if (path.equals(PREFIX + "/login") && get) {
            page(exchange, 200, "/ui/login");
        } else if (path.equals(PREFIX + "/signin") && get) {
            String code = first(exchange, "code");
            signIn(exchange, logins.redeem(code), code);
        } else if (path.equals(PREFIX + "/signin") && post) {
            if (sameOrigin(exchange)) {
                exchange.getRequestReceiver().receiveFullString((ex, body) -> signIn(ex, tokenOf(body), null),
                        (ex, e) -> send(ex, UiApi.error(400, "the sign-in form could not be read")), StandardCharsets.UTF_8);
            }
        } else {
            Optional<String> identity = identity(exchange);
            if (identity.isEmpty()) {
                refuse(exchange, path);
            } else if (path.equals(PREFIX + "/signout") && post) {
                if (sameOrigin(exchange)) {
                    logins.logout(cookie(exchange));
                    endStreams(cookie(exchange));
                    exchange.getResponseHeaders().add(Headers.SET_COOKIE, cookieHeader("", 0));
                    redirect(exchange, PREFIX + "/login");
                }
            } else if (path.equals(PREFIX + "/api/sessions") && get) {
                stream(exchange, identity.get(), (out, until) -> listFeed(Viewer.own(identity.get()), out, until));
            } else {
                authenticated(exchange, identity.get(), path, get, post);
            }
        }
    }

    private void authenticated(HttpServerExchange exchange, String identity, String path, boolean get, boolean post) {
        Viewer viewer = Viewer.own(identity);
        Matcher m = UiApi.SESSION_ROUTE.matcher(path);
        if (m.matches() && m.group(2).equals("output") && get) {
            Session s;
            try {
                s = api.session(viewer, m.group(1));
            } catch (SessionException e) {
                send(exchange, UiApi.error(404, e.getMessage()));
                return;
            }
            long from = resumeAt(exchange, s);
            stream(exchange, identity, (out, until) -> outputFeed(s, from, out, until));
        } else if (m.matches() && PERSON_INPUT.contains(m.group(2)) && post) {
            if (sameOrigin(exchange)) {
                personInput(exchange, viewer, m.group(1), m.group(2));
            }
        } else if (m.matches() && !m.group(2).equals("output") && post) {
            if (sameOrigin(exchange)) {
                String id = m.group(1);
                String action = m.group(2);
                // the tools may wait (close drains the session): off the I/O thread
                exchange.dispatch(() -> send(exchange, api.act(viewer, id, action)));
            }
        } else if (get && assets.get(path) != null) {
            page(exchange, 200, path);
        } else {
            send(exchange, UiApi.error(404, "no page " + path + " here; the view is at " + PREFIX + "/"));
        }
    }

    // ---- a person typing -----------------------------------------------------------------------

    /**
     * A take-over ({@code {"on": true|false}}) or typed text ({@code {"text": "..."}}), each a small JSON body,
     * rate-limited per identity: a page sends a keystroke (or a pasted piece) per request, one at a time.
     */
    private void personInput(HttpServerExchange exchange, Viewer viewer, String id, String action) {
        long wait = typing.computeIfAbsent(viewer.identity(), k -> new RateLimit(TYPING_BURST, TYPING_INTERVAL_MILLIS)).take();
        if (wait > 0) {
            send(exchange, UiApi.error(429, "typing too fast for this server: try again in " + wait + " s")
                    .with("Retry-After", Long.toString(wait)));
            return;
        }
        exchange.setMaxEntitySize(MAX_FORM_BYTES);
        exchange.getRequestReceiver().receiveFullString((ex, body) -> {
            Object parsed;
            try {
                parsed = Json.MAPPER.readValue(body, Object.class);
            } catch (JacksonException e) {
                parsed = null;
            }
            Map<?, ?> json = parsed instanceof Map<?, ?> given ? given : Map.of();
            Object text = json.get("text");
            Object on = json.get("on");
            if (action.equals("type") && !(text instanceof String)) {
                send(ex, UiApi.error(400, "send {\"text\": \"...\"}: the keys typed, as a JSON string"));
            } else if (action.equals("takeover") && !(on instanceof Boolean)) {
                send(ex, UiApi.error(400, "send {\"on\": true} to start typing into the session, {\"on\": false} to stop"));
            } else {
                // input waits (bounded) for its program to take it: off the I/O thread
                ex.dispatch(() -> send(ex, action.equals("type") ? api.type(viewer, id, (String) text)
                        : api.takeover(viewer, id, (Boolean) on)));
            }
        }, (ex, e) -> send(ex, UiApi.error(413, "at most " + MAX_FORM_BYTES + " bytes per request: send "
                + "long text in pieces")), StandardCharsets.UTF_8);
    }

    // ---- sign-in ------------------------------------------------------------------------------

    private Optional<String> identity(HttpServerExchange exchange) {
        if (tokens == null) {
            return Optional.of(Tokens.DEFAULT_IDENTITY);
        }
        return logins.identityOf(cookie(exchange));
    }

    private static String cookie(HttpServerExchange exchange) {
        Cookie c = exchange.getRequestCookie(UiLogins.COOKIE);
        return c == null ? null : c.getValue();
    }

    private UiLogins.Redemption tokenOf(String form) {
        String wrong = "That token is not one this server accepts: paste the bearer token the server printed "
                + "(or your line's token of its --tokens-file) whole.";
        if (tokens == null || form.length() > MAX_FORM_BYTES) {
            return new UiLogins.Redemption(null, wrong);
        }
        for (String pair : form.split("&")) {
            if (pair.startsWith("token=")) {
                Optional<String> identity = tokens.identityOf(URLDecoder.decode(pair.substring(6), StandardCharsets.UTF_8).strip());
                return new UiLogins.Redemption(identity.orElse(null), identity.isEmpty() ? wrong : null);
            }
        }
        return new UiLogins.Redemption(null, wrong);
    }

    /** @param code the sign-in code redeemed, or null for a token */
    private void signIn(HttpServerExchange exchange, UiLogins.Redemption redeemed, String code) {
        String identity = redeemed.identity();
        long wait = identity == null ? logins.refusalWait() : logins.signInWait(identity);
        if (wait > 0) {
            LOG.info("browser sign-in refused: too many attempts{}", identity == null ? "" : " as " + identity);
            send(exchange, assets.login(429, "Too many sign-ins: try again in " + wait + " s.")
                    .with("Retry-After", Long.toString(wait)));
            return;
        }
        if (identity == null) {
            LOG.info("browser sign-in refused: {}", redeemed.refusal());
            send(exchange, assets.login(401, redeemed.refusal()));
            return;
        }
        exchange.getResponseHeaders().add(Headers.SET_COOKIE,
                cookieHeader(logins.login(identity, code), UiLogins.LOGIN_MILLIS / 1000));
        LOG.info("browser signed in as {}", identity);
        redirect(exchange, PREFIX + "/");
    }

    /** HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it; Path=/ui: /mcp never gets it. */
    private static String cookieHeader(String value, long maxAgeSeconds) {
        return UiLogins.COOKIE + "=" + value + "; Path=" + PREFIX + "; HttpOnly; SameSite=Strict; Max-Age=" + maxAgeSeconds;
    }

    /** Pages get the login page (401); everything else a 401 with what to do. */
    private void refuse(HttpServerExchange exchange, String path) {
        if (path.equals(PREFIX + "/")) {
            page(exchange, 401, "/ui/login");
        } else {
            send(exchange, UiApi.error(401, "sign in first: open the sign-in link the server printed at start, "
                    + "or " + PREFIX + "/login with your token"));
        }
    }

    /** A state change must come from this server's own page: see {@link UiApi#foreignOrigin}. */
    private static boolean sameOrigin(HttpServerExchange exchange) {
        Reply refused = UiApi.foreignOrigin(exchange.getRequestHeaders().getFirst(Headers.ORIGIN),
                exchange.getRequestHeaders().getFirst(Headers.HOST));
        if (refused != null) {
            send(exchange, refused);
        }
        return refused == null;
    }

    // ---- streams ------------------------------------------------------------------------------

    /** One stream's loop: it writes to {@code out} and ends by {@code until} (epoch millis: its login's end). */
    @FunctionalInterface
    private interface Feed {
        void run(OutputStream out, long until) throws IOException, InterruptedException;
    }

    private void stream(HttpServerExchange exchange, String identity, Feed feed) {
        Semaphore permits = streams.computeIfAbsent(identity, k -> new Semaphore(MAX_STREAMS_PER_IDENTITY));
        if (!permits.tryAcquire()) {
            send(exchange, UiApi.error(503, "too many open views (" + MAX_STREAMS_PER_IDENTITY + " per identity); "
                    + "close a browser tab and reload"));
            return;
        }
        // Undertow hands the task to the executor only after this handler returns, and answers a refusal
        // itself; the permit is given back where the refusal happens (review N1: a catch here never ran)
        exchange.dispatch(task -> {
            try {
                streamThreads.execute(task);
            } catch (RejectedExecutionException stopping) {
                permits.release();
                throw stopping;
            }
        }, () -> feed(exchange, permits, feed));
    }

    /**
     * Runs one view's stream on its own thread, for as long as the login it was opened with lasts (sign-out
     * interrupts it); the permit taken for it is given back when it ends.
     */
    private void feed(HttpServerExchange exchange, Semaphore permits, Feed feed) {
        String login = tokens == null ? null : cookie(exchange);
        Thread current = Thread.currentThread();
        if (login != null) {
            streamsByLogin.compute(login, (k, threads) -> {
                Set<Thread> all = threads == null ? new HashSet<>() : threads;
                all.add(current);
                return all;
            });
        }
        try {
            // read after registering: a sign-out from now on interrupts this thread, one before it is seen here
            long until = login == null ? Long.MAX_VALUE : logins.expiresAt(login);
            if (until <= System.currentTimeMillis()) {
                send(exchange, UiApi.error(401, "signed out; sign in again"));
                return;
            }
            exchange.startBlocking();
            exchange.setStatusCode(200);
            exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, SseFormat.CONTENT_TYPE)
                    .put(Headers.CACHE_CONTROL, "no-store");
            OutputStream out = exchange.getOutputStream();
            feed.run(out, until);
        } catch (IOException gone) {
            LOG.debug("a browser view went away: {}", gone.toString());
        } catch (InterruptedException | SessionException closing) {
            LOG.debug("a browser view ended with the server");
        } catch (RuntimeException e) {
            // e.g. IRIS out of reach while fetching an iris session's output: this view ends, nothing else
            LOG.warn("a browser view's stream failed: {}", e.toString());
        } finally {
            if (login != null) {
                // atomic with sign-out's interrupts (the map's lock for the login): no interrupt meant for this
                // stream comes after the flag is cleared, so none reaches the pooled thread's next stream
                streamsByLogin.computeIfPresent(login, (k, threads) -> {
                    threads.remove(current);
                    return threads.isEmpty() ? null : threads;
                });
                Thread.interrupted();
            }
            permits.release();
            exchange.endExchange();
        }
    }

    /** Ends the open streams of a login at once (their threads are interrupted): the browser was signed out. */
    private void endStreams(String login) {
        if (login != null) {
            streamsByLogin.computeIfPresent(login, (k, threads) -> {
                threads.forEach(Thread::interrupt);
                return threads;
            });
        }
    }

    /** How long a feed may wait now: a keep-alive interval, or less when its login ends sooner. */
    private static long waitUntil(long until) {
        return Math.min(KEEPALIVE_MILLIS, until - System.currentTimeMillis());
    }

    private void listFeed(Viewer viewer, OutputStream out, long until) throws IOException, InterruptedException {
        String last = null;
        long seen = changes.version();
        while (!Thread.currentThread().isInterrupted() && waitUntil(until) > 0) {
            // built again after a keep-alive wait too, although the count did not move: last_activity moves with
            // every read and input (no output needed), and an iris session's state with each mark from its job,
            // none of which counts as a change. It costs this server's memory only; unchanged, it is not sent.
            String now = api.sessionsJson(viewer);
            if (!now.equals(last)) {
                event(out, null, now);
                last = now;
            } else {
                comment(out);
            }
            seen = UiApi.awaitListChange(changes, seen, Math.max(1, waitUntil(until)));
        }
    }

    private static void outputFeed(Session s, long from, OutputStream out, long until) throws IOException {
        long at = from;
        while (!Thread.currentThread().isInterrupted() && waitUntil(until) > 0) {
            SessionOutput.Chunk c = SessionOutput.next(s, at, Math.max(1, waitUntil(until)));
            if (c.bytes().length == 0 && !c.ended()) {
                comment(out);
                continue;
            }
            // the id is where a reconnecting browser resumes (Last-Event-ID): nothing twice, nothing lost
            event(out, Long.toString(c.next()), c.json());
            at = c.next();
            if (c.ended()) {
                return;
            }
        }
    }

    /** Where a stream starts: after what a reconnecting browser already has, else the transcript's last part. */
    private static long resumeAt(HttpServerExchange exchange, Session s) {
        String last = exchange.getRequestHeaders().getFirst(HttpString.tryFromString("Last-Event-ID"));
        if (last != null && last.matches("\\d{1,18}")) {
            return Long.parseLong(last);
        }
        return SessionOutput.start(s);
    }

    private static void event(OutputStream out, String id, String json) throws IOException {
        out.write(SseFormat.event(id, json).getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void comment(OutputStream out) throws IOException {
        out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    // ---- plain answers ------------------------------------------------------------------------

    private void page(HttpServerExchange exchange, int status, String path) {
        send(exchange, assets.page(status, path));
    }

    private static void redirect(HttpServerExchange exchange, String to) {
        exchange.setStatusCode(303);
        exchange.getResponseHeaders().put(Headers.LOCATION, to);
        exchange.endExchange();
    }

    private static void send(HttpServerExchange exchange, Reply reply) {
        Responses.send(exchange, reply.with("Cache-Control", "no-store"));
    }

    private static String first(HttpServerExchange exchange, String name) {
        Deque<String> values = exchange.getQueryParameters().get(name);
        return values == null ? null : values.peekFirst();
    }

    /**
     * Ends the open streams (their threads are interrupted, and given a moment to finish writing before the
     * listener stops); the listener itself belongs to the HTTP server.
     */
    @Override
    public void close() {
        streamThreads.shutdownNow();
        try {
            if (!streamThreads.awaitTermination(STOP_MILLIS, TimeUnit.MILLISECONDS)) {
                LOG.warn("browser view streams still running {} ms after the server began to stop", STOP_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
