package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The browser view's event streams and sign-in over plain HTTP, as browsers use them: what a login
 * opened ends with that login, each identity has its own share of streams and logins, a closed
 * tab's stream is let go within seconds, and sign-in is rate-limited.
 */
@Timeout(120)
class BrowserStreamsIT {
    private static final String ALICE = "alice-token-0123456789abcdef";
    private static final String BOB = "bob-token-0123456789abcdefgh";
    /** the streams one identity may hold, as README states it */
    private static final int STREAMS_PER_IDENTITY = 32;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** how soon after sign-out an open stream must have ended (its keep-alive comes every 2 s) */
    private static final long ENDED_WITHIN_SECONDS = 5;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(WAIT).build();

    @Test
    void signOutEndsTheLoginsOpenStreamsAtOnce() throws Exception {
        try (HttpServer server = twoIdentities("itm-ui-streams")) {
            String base = "http://" + server.endpoint().getAuthority();
            McpSyncClient alice = server.connect(ALICE, n -> { });
            String session = (String) ok(alice, "session_open", "command", "cat", "mode", "pipe", "wait_ms", 0)
                    .get("session");
            ok(alice, "session_send", "session", session, "text", "before-sign-out");

            String cookie = signIn(base, ALICE);
            Stream<String> paths = Stream.of("/ui/api/sessions", "/ui/api/sessions/" + session + "/output");
            List<Feed> feeds = paths.map(p -> Feed.open(URI.create(base + p), cookie)).toList();
            for (Feed f : feeds) {
                assertTrue(f.firstEvent.await(WAIT.toSeconds(), TimeUnit.SECONDS), "no event on " + f.uri);
            }

            HttpResponse<String> out = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/ui/signout"))
                    .timeout(WAIT).header("Cookie", cookie).header("Origin", base)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(303, out.statusCode(), out.body());
            for (Feed f : feeds) {
                f.ended.get(ENDED_WITHIN_SECONDS, TimeUnit.SECONDS);
            }
            // and the cookie opens no new one
            assertEquals(401, HTTP.send(HttpRequest.newBuilder(URI.create(base + "/ui/api/sessions")).timeout(WAIT)
                    .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.discarding()).statusCode());
        }
    }

    @Test
    void eachIdentityHasItsOwnStreamCapAndAGoneBrowsersPermitIsBackWithinSeconds() throws Exception {
        try (HttpServer server = twoIdentities("itm-ui-cap")) {
            String base = "http://" + server.endpoint().getAuthority();
            String alice = signIn(base, ALICE);
            String bob = signIn(base, BOB);
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < STREAMS_PER_IDENTITY; i++) {
                    Socket s = new Socket("127.0.0.1", server.endpoint().getPort());
                    held.add(s);
                    assertEquals(200, openList(s, base, alice), "stream " + i);
                }
                assertEquals(503, statusOfList(server, base, alice), "alice may hold no more");
                assertEquals(200, statusOfList(server, base, bob), "alice's streams took bob's");

                held.remove(0).close();
                long closed = System.nanoTime();
                long deadline = closed + TimeUnit.SECONDS.toNanos(15);
                int status = 503;
                while (status == 503 && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(200);
                    status = statusOfList(server, base, alice);
                }
                long freedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed);
                assertEquals(200, status, "the closed stream's permit never came back");
                assertTrue(freedMs < 6_000, "the closed stream's permit came back after " + freedMs + " ms");
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }

    @Test
    void signInsAreRateLimitedAndNeverEndAnotherIdentitysLogin() throws Exception {
        try (HttpServer server = twoIdentities("itm-ui-signins")) {
            String base = "http://" + server.endpoint().getAuthority();
            String bob = signIn(base, BOB);
            int attempts = 0;
            HttpResponse<String> last;
            do {
                last = postSignIn(base, ALICE);
                attempts++;
            } while (last.statusCode() == 303 && attempts < 200);
            assertEquals(429, last.statusCode(), "no limit after " + attempts + " sign-ins");
            assertTrue(last.headers().firstValue("Retry-After").isPresent(), last.headers().toString());
            assertTrue(attempts <= 11, "refused only at sign-in " + attempts);
            // bob's login is untouched: his cookie still opens the view's routes (404: no such session, not 401)
            assertEquals(404, HTTP.send(HttpRequest.newBuilder(URI.create(base + "/ui/api/sessions/x/output"))
                    .timeout(WAIT).header("Cookie", bob).build(), HttpResponse.BodyHandlers.discarding()).statusCode());
        }
    }

    @Test
    void typingTakesTheOwnersTakeOverFromTheViewsOwnPage() throws Exception {
        try (HttpServer server = twoIdentities("itm-ui-typing")) {
            String base = "http://" + server.endpoint().getAuthority();
            McpSyncClient aliceMcp = server.connect(ALICE, n -> { });
            String session = (String) ok(aliceMcp, "session_open", "command", "cat", "mode", "pipe", "wait_ms", 0)
                    .get("session");
            String alice = signIn(base, ALICE);
            String bob = signIn(base, BOB);
            String on = "{\"on\": true}";

            // another identity's session: bob neither takes it over nor types into it
            assertEquals(409, personInput(base, bob, base, session, "takeover", on).statusCode());
            HttpResponse<String> bobs = personInput(base, bob, base, session, "type", "{\"text\": \"from-bob\\n\"}");
            assertEquals(409, bobs.statusCode(), bobs.body());
            assertTrue(bobs.body().contains("only into sessions of the identity bob"), bobs.body());
            // the owner, before turning typing on
            HttpResponse<String> early = personInput(base, alice, base, session, "type", "{\"text\": \"too-early\\n\"}");
            assertEquals(409, early.statusCode(), early.body());
            assertTrue(early.body().contains("is off"), early.body());
            // from another page, or from no page, or with no login: refused before anything happens
            assertEquals(403, personInput(base, alice, "http://elsewhere.example", session, "takeover", on).statusCode());
            assertEquals(403, personInput(base, alice, null, session, "takeover", on).statusCode());
            assertEquals(401, personInput(base, null, base, session, "takeover", on).statusCode());
            assertEquals(400, personInput(base, alice, base, session, "takeover", "{\"on\": \"yes\"}").statusCode());

            assertEquals(200, personInput(base, alice, base, session, "takeover", on).statusCode());
            HttpResponse<String> typed = personInput(base, alice, base, session, "type", "{\"text\": \"typed-by-alice\\n\"}");
            assertEquals(200, typed.statusCode(), typed.body());
            Map<String, Object> read = ok(aliceMcp, "session_read", "session", session, "wait_ms", 20000,
                    "until", Map.of("pattern", "typed-by-alice"));
            String data = String.valueOf(read.get("data"));
            assertTrue(data.contains("a person signed in as alice is typing into this session"), data);
            assertFalse(data.contains("from-bob") || data.contains("too-early"), data);
        }
    }

    /** A take-over or typing POST with the login {@code cookie} (null: none) and {@code origin} (null: none). */
    private static HttpResponse<String> personInput(String base, String cookie, String origin, String session,
                                                    String action, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/ui/api/sessions/" + session + "/" + action))
                .timeout(WAIT).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        if (origin != null) {
            b.header("Origin", origin);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpServer twoIdentities(String name) throws Exception {
        Path dir = Files.createTempDirectory(name);
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "alice " + ALICE + "\nbob " + BOB + "\n");
        return new HttpServer(dir.resolve("data"), List.of("--tokens-file", tokens.toString()));
    }

    /** Sends the list stream's GET on {@code socket} as a browser does; the status of its answer. */
    private static int openList(Socket socket, String base, String cookie) throws Exception {
        socket.setSoTimeout((int) WAIT.toMillis());
        OutputStream out = socket.getOutputStream();
        out.write(("GET /ui/api/sessions HTTP/1.1\r\nHost: " + base.substring("http://".length()) + "\r\nCookie: "
                + cookie + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String status = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                .readLine();
        return Integer.parseInt(status.split(" ")[1]);
    }

    /** Opens the list stream on a connection of its own and closes it again; the status it got. */
    private static int statusOfList(HttpServer server, String base, String cookie) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.endpoint().getPort())) {
            return openList(s, base, cookie);
        }
    }

    /** Signs in with the token, as the login form does; returns the Cookie header that carries the login. */
    private static String signIn(String base, String token) throws Exception {
        HttpResponse<String> in = postSignIn(base, token);
        assertEquals(303, in.statusCode(), in.body());
        String set = in.headers().firstValue("Set-Cookie").orElseThrow();
        return set.substring(0, set.indexOf(';'));
    }

    private static HttpResponse<String> postSignIn(String base, String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/ui/signin")).timeout(WAIT)
                .header("Origin", base).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** One open event stream: when its first event came, and when it ended. */
    private record Feed(URI uri, CountDownLatch firstEvent, CompletableFuture<Void> ended) {
        static Feed open(URI uri, String cookie) {
            Feed feed = new Feed(uri, new CountDownLatch(1), new CompletableFuture<>());
            HTTP.sendAsync(HttpRequest.newBuilder(uri).header("Cookie", cookie).build(),
                    HttpResponse.BodyHandlers.ofLines()).thenAccept(response -> {
                        assertEquals(200, response.statusCode(), uri.toString());
                        response.body().forEach(line -> {
                            if (line.startsWith("data:")) {
                                feed.firstEvent.countDown();
                            }
                        });
                        feed.ended.complete(null);
                    }).exceptionally(e -> {
                        feed.ended.completeExceptionally(e);
                        return null;
                    });
            return feed;
        }
    }
}
