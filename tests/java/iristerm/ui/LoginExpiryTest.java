package iristerm.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import iristerm.http.HeldBytes;
import iristerm.http.McpHttpServer;
import iristerm.mcp.Limits;
import iristerm.mcp.ProcessGate;
import iristerm.mcp.ServerAssembly;
import iristerm.mcp.ServerContext;
import iristerm.security.OriginPolicy;
import iristerm.security.Tokens;
import iristerm.session.SessionManager;

/**
 * A browser login that expires (12 h after sign-in, on the logins' clock, moved by the test) ends the
 * view's open streams, the session list's and a session's output, and its cookie is refused from then on.
 */
@Timeout(60)
class LoginExpiryTest {
    private static final String TOKEN = "expiry-token-0123456789abcdef";
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** a stream notices the end of its login at its next keep-alive (every 2 s) at the latest */
    private static final long ENDED_WITHIN_SECONDS = 8;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(WAIT).build();

    @TempDir
    Path dataDir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void anExpiredLoginsStreamsEndAndItsRequestsAreRefused() throws Exception {
        AtomicLong now = new AtomicLong(System.currentTimeMillis());
        SessionManager sessions = new SessionManager(new SessionManager.Config(dataDir, 1 << 16, 8,
                Duration.ofMinutes(5), 10, 500));
        open.add(sessions);
        ServerAssembly assembly = new ServerAssembly(new ServerContext(sessions, new Limits(4096, 1 << 20, 1 << 16,
                60_000, 500, dataDir.resolve("files")), Tokens.DEFAULT_IDENTITY, ProcessGate.fixed(null)), null);
        open.add(assembly);
        McpHttpServer.Config config = new McpHttpServer.Config("127.0.0.1", 0, Tokens.single(TOKEN),
                OriginPolicy.forListenHost("127.0.0.1", List.of()), false, 1 << 20, 8, Duration.ofMinutes(5),
                McpHttpServer.DEFAULT_KEEP_ALIVE, Duration.ofSeconds(10), Duration.ofSeconds(60), 64L << 20);
        HeldBytes held = new HeldBytes(config.maxHeldBytes());
        UiHandler ui = new UiHandler(new UiApi(assembly, sessions), sessions.changes(), new UiLogins(now::get),
                Tokens.single(TOKEN), held);
        open.add(ui);
        McpHttpServer http = McpHttpServer.start(config, transport -> assembly.build(transport, false), ui, held);
        open.add(http::close);
        String base = "http://127.0.0.1:" + http.endpoint().getPort();
        String session = (String) ((Map<?, ?>) assembly.callAs(Tokens.DEFAULT_IDENTITY, "session_open",
                Map.of("command", "cat", "mode", "pipe", "wait_ms", 0)).structuredContent()).get("session");
        assembly.callAs(Tokens.DEFAULT_IDENTITY, "session_send", Map.of("session", session, "text", "before"));

        String cookie = signIn(base);
        List<CompletableFuture<Void>> ended = new ArrayList<>();
        for (String path : List.of("/ui/api/sessions", "/ui/api/sessions/" + session + "/output")) {
            ended.add(openedStream(URI.create(base + path), cookie));
        }
        // honoured until then: no such session (404), not signed out (401)
        assertEquals(404, status(base + "/ui/api/sessions/nosuch/output", cookie));

        now.addAndGet(UiLogins.LOGIN_MILLIS + 1);
        for (CompletableFuture<Void> e : ended) {
            e.get(ENDED_WITHIN_SECONDS, TimeUnit.SECONDS);
        }
        assertEquals(401, status(base + "/ui/api/sessions", cookie), "the expired login opened a stream");
        assertEquals(401, status(base + "/ui/api/sessions/" + session + "/interrupt", cookie, "POST"),
                "the expired login's request was taken");
    }

    /** Signs in with the token, as the login form does; the Cookie header that carries the login. */
    private static String signIn(String base) throws Exception {
        HttpResponse<String> in = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/ui/signin")).timeout(WAIT)
                .header("Origin", base).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(TOKEN, StandardCharsets.UTF_8)))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(303, in.statusCode(), in.body());
        String set = in.headers().firstValue("Set-Cookie").orElseThrow();
        return set.substring(0, set.indexOf(';'));
    }

    /**
     * Opens an event stream and returns, once its first event came, what completes when the server
     * ends it (the body's end of input).
     */
    private static CompletableFuture<Void> openedStream(URI uri, String cookie) throws Exception {
        HttpResponse<InputStream> response = HTTP.send(HttpRequest.newBuilder(uri).timeout(WAIT)
                .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode(), uri.toString());
        BufferedReader body = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        CompletableFuture<Void> firstEvent = new CompletableFuture<>();
        CompletableFuture<Void> ended = CompletableFuture.runAsync(() -> {
            try (body) {
                for (String line = body.readLine(); line != null; line = body.readLine()) {
                    if (line.startsWith("data:")) {
                        firstEvent.complete(null);
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        firstEvent.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(!ended.isDone(), "the stream ended before the login did: " + uri);
        return ended;
    }

    private static int status(String url, String cookie) throws Exception {
        return status(url, cookie, "GET");
    }

    private static int status(String url, String cookie, String method) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).header("Cookie", cookie)
                .header("Origin", url.substring(0, url.indexOf("/ui/")))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
