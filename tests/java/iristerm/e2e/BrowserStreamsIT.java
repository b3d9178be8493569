package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The browser view's event streams over plain HTTP, as a browser holds them: what a login opened
 * ends with that login.
 */
@Timeout(120)
class BrowserStreamsIT {
    private static final String ALICE = "alice-token-0123456789abcdef";
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** how soon after sign-out an open stream must have ended (its keep-alive comes every 15 s) */
    private static final long ENDED_WITHIN_SECONDS = 5;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(WAIT).build();

    @Test
    void signOutEndsTheLoginsOpenStreamsAtOnce() throws Exception {
        Path dir = Files.createTempDirectory("itm-ui-streams");
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "alice " + ALICE + "\n");
        try (HttpServer server = new HttpServer(dir.resolve("data"), List.of("--tokens-file", tokens.toString()))) {
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

    /** Signs in with the token, as the login form does; returns the Cookie header that carries the login. */
    private static String signIn(String base, String token) throws Exception {
        HttpResponse<String> in = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/ui/signin")).timeout(WAIT)
                .header("Origin", base).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(303, in.statusCode(), in.body());
        String set = in.headers().firstValue("Set-Cookie").orElseThrow();
        return set.substring(0, set.indexOf(';'));
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
