package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The browser view (/ui) of the packaged jar's {@code serve}, driven as a person uses it: Debian's
 * headless chromium through its chromedriver (installed by .ci/run), two identities from a tokens
 * file, sessions opened and fed by the SDK's MCP client. Without chromium the class fails, saying
 * what to install: a view that was never rendered is not a view that works.
 */
@Timeout(300)
class BrowserViewIT {
    private static final String ALICE = "alice-token-0123456789abcdef";
    private static final String BOB = "bob-token-0123456789abcdefgh";
    private static final Pattern SIGN_IN = Pattern.compile("sign in as (\\S+): (http://\\S+)");
    private static final Duration WAIT = Duration.ofSeconds(45);
    /** every plain request of the test goes through this one client, each bounded by WAIT */
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(WAIT).build();

    @TempDir
    static Path dir;
    private static HttpServer server;
    private static final Map<String, CompletableFuture<String>> signInLinks = new ConcurrentHashMap<>();
    private static WebDriver alice;
    private static WebDriver bob;
    private static McpSyncClient aliceMcp;
    private static McpSyncClient bobMcp;
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        server = HttpServer.withTokens(dir, Map.of("alice", ALICE, "bob", BOB), line -> {
            Matcher m = SIGN_IN.matcher(line);
            if (m.find()) {
                link(m.group(1)).complete(m.group(2));
            }
        });
        base = "http://" + server.endpoint().getAuthority();
        aliceMcp = server.connect(ALICE, n -> { });
        bobMcp = server.connect(BOB, n -> { });
        alice = Chromium.start();
        bob = Chromium.start();
    }

    @AfterAll
    static void stop() {
        for (WebDriver d : new WebDriver[] {alice, bob}) {
            if (d != null) {
                d.quit();
            }
        }
        if (server != null) {
            server.close();
        }
    }

    private static CompletableFuture<String> link(String identity) {
        return signInLinks.computeIfAbsent(identity, k -> new CompletableFuture<>());
    }

    private static WebDriverWait waiting(WebDriver d) {
        return new WebDriverWait(d, WAIT, Duration.ofMillis(50));
    }

    /** The rendered terminal's text, as xterm.js's DOM renderer lays it out. */
    private static String screen(WebDriver d) {
        List<WebElement> rows = d.findElements(By.cssSelector("#terminal .xterm-rows"));
        return rows.isEmpty() ? "" : rows.get(0).getText();
    }

    private static WebElement row(WebDriver d, String session) {
        return waiting(d).until(x -> {
            List<WebElement> found = x.findElements(By.cssSelector("#sessions tr[data-session='" + session + "']"));
            return found.isEmpty() ? null : found.get(0);
        });
    }

    private static String signIn(WebDriver d, String identity) throws Exception {
        String link = link(identity).get(30, TimeUnit.SECONDS);
        d.get(link);
        waiting(d).until(x -> x.findElement(By.id("list-status")).getText().equals("live"));
        return link;
    }

    private static Object fetch(WebDriver d, String method, String path) {
        return ((JavascriptExecutor) d).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch(arguments[1], {method: arguments[0]}).then(r => done(r.status)).catch(e => done(String(e)));""",
                method, path);
    }

    private static HttpResponse<String> http(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aPageOrItsDataWithoutSignInIsRefused() throws Exception {
        HttpResponse<String> page = http(HttpRequest.newBuilder(URI.create(base + "/ui/")));
        assertEquals(401, page.statusCode());
        assertTrue(page.body().contains("login-form"), "the refusal shows the sign-in form");
        assertFalse(page.body().contains("id=\"sessions\""), page.body());
        for (String path : List.of("/ui/api/sessions", "/ui/app.js", "/ui/vendor/xterm.js", "/ui/api/sessions/x/output")) {
            assertEquals(401, http(HttpRequest.newBuilder(URI.create(base + path))).statusCode(), path);
        }
        assertEquals(401, http(HttpRequest.newBuilder(URI.create(base + "/ui/signin?code=made-up"))).statusCode());
    }

    @Test
    void theSignInLinkWorksOnceAndItsCookieIsNoKeyToMcp() throws Exception {
        WebDriver d = Chromium.start();
        try {
            String link = signIn(d, "bob");
            var cookie = d.manage().getCookieNamed("iristerm_ui");
            assertTrue(cookie.isHttpOnly(), "no script can read the login");
            assertEquals("/ui", cookie.getPath());
            assertEquals("Strict", cookie.getSameSite());
            assertEquals(401, http(HttpRequest.newBuilder(URI.create(link))).statusCode(), "a link signs in once");
            HttpResponse<String> mcp = http(HttpRequest.newBuilder(server.endpoint())
                    .header("Cookie", "iristerm_ui=" + cookie.getValue())
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString("""
                            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
                             "capabilities":{},"clientInfo":{"name":"cookie","version":"1"}}}""")));
            assertEquals(401, mcp.statusCode(), mcp.body());
            HttpResponse<String> withCookie = http(HttpRequest.newBuilder(URI.create(base + "/ui/api/sessions/x/output"))
                    .header("Cookie", "iristerm_ui=" + cookie.getValue()));
            assertEquals(404, withCookie.statusCode(), "the same cookie does open the view's own routes");
        } finally {
            d.quit();
        }
    }

    @Test
    void aSessionOpenedOverMcpIsWatchedLiveInColourAndInterrupted() throws Exception {
        signIn(alice, "alice");
        String id = (String) Mcp.ok(aliceMcp, "session_open", "command", "bash", "name", "watched").get("session");
        row(alice, id).click();
        waiting(alice).until(d -> !screen(d).isBlank());

        Mcp.ok(aliceMcp, "session_send", "session", id, "text", "echo ui-marker-$((6*7))", "wait_ms", 0);
        long sent = System.nanoTime();
        waiting(alice).until(d -> screen(d).contains("ui-marker-42"));
        // measured, not asserted: from the send's answer to the text on the page (includes WebDriver's polling)
        System.out.printf("browser view: output on the page %d ms after session_send returned%n",
                (System.nanoTime() - sent) / 1_000_000);
        // the page read it with its own cursor: the agent's default reader still has it to read
        Map<String, Object> unread = Mcp.ok(aliceMcp, "session_read", "session", id, "wait_ms", 5000,
                "until", Map.of("pattern", "ui-marker-42"));
        assertTrue(String.valueOf(unread.get("data")).contains("ui-marker-42"), () -> "the view took the agent's output: " + unread);

        Mcp.ok(aliceMcp, "session_send", "session", id, "text", "printf '\\033[31m%s\\033[0m\\n' COLOURED-$((1+1))");
        // read in one script: the renderer replaces row elements as it redraws
        Object colours = waiting(alice).withMessage(() -> "no red COLOURED-2 beside plain output in: "
                + alice.findElement(By.cssSelector("#terminal .xterm-rows")).getAttribute("innerHTML")).until(d -> ((JavascriptExecutor) d).executeScript("""
                const rows = [...document.querySelectorAll('#terminal .xterm-rows > div')];
                const red = rows.find(r => r.textContent.trim() === 'COLOURED-2');
                const plain = rows.find(r => r.textContent.trim() === 'ui-marker-42');
                return red && plain ? [getComputedStyle(red.querySelector('span')).color,
                                       getComputedStyle(plain.querySelector('span')).color] : null;"""));
        List<?> pair = (List<?>) colours;
        assertNotEquals(pair.get(1), pair.get(0), "red output is rendered in another colour than plain output");

        Chromium.screenshot(alice, Path.of("target", "ui-view.png"));

        Map<String, Object> started = Mcp.ok(aliceMcp, "session_send", "session", id,
                "text", "echo sleeping-$((2+3)); sleep 100", "wait_ms", 20000, "until", Map.of("pattern", "sleeping-5\\r?\\n"));
        assertEquals("pattern", started.get("reason"), () -> "sleep did not start: " + started);
        waiting(alice).until(d -> screen(d).contains("sleeping-5"));
        alice.findElement(By.id("interrupt")).click();
        waiting(alice).until(d -> d.findElement(By.id("action-status")).getText().startsWith("sent INT"));
        Map<String, Object> after = Mcp.ok(aliceMcp, "session_send", "session", id, "text", "echo after-$?",
                "wait_ms", 30000, "until", Map.of("pattern", "after-\\d+"));
        assertTrue(String.valueOf(after.get("data")).contains("after-130"), () -> "sleep was not interrupted: " + after);
        waiting(alice).until(d -> screen(d).contains("after-130"));
    }

    @Test
    void anotherIdentitySeesAndTouchesOnlyItsOwnSessions() throws Exception {
        String theirs = (String) Mcp.ok(aliceMcp, "session_open", "command", "bash", "name", "alices").get("session");
        String own = (String) Mcp.ok(bobMcp, "session_open", "command", "bash", "name", "bobs").get("session");
        // bob signs in with his token on the form, the way an identity of a tokens file comes back later
        bob.get(base + "/ui/login");
        bob.findElement(By.id("token")).sendKeys(BOB);
        bob.findElement(By.id("login-form")).submit();
        row(bob, own);
        Set<String> shown = new HashSet<>();
        for (WebElement r : bob.findElements(By.cssSelector("#sessions tbody tr"))) {
            shown.add(r.getAttribute("data-session"));
        }
        assertFalse(shown.contains(theirs), "bob's view lists alice's session: " + shown);
        assertEquals(404L, ((Number) fetch(bob, "GET", "/ui/api/sessions/" + theirs + "/output")).longValue());
        assertEquals(409L, ((Number) fetch(bob, "POST", "/ui/api/sessions/" + theirs + "/interrupt")).longValue());
        assertEquals(409L, ((Number) fetch(bob, "POST", "/ui/api/sessions/" + theirs + "/close")).longValue());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> listed = (List<Map<String, Object>>) Mcp.ok(aliceMcp, "session_list", "session", theirs)
                .get("sessions");
        assertNotEquals("exited", listed.get(0).get("state"), "bob's browser closed alice's session");
        // and the same requests from bob's page do act on his own session
        assertEquals(200L, ((Number) fetch(bob, "POST", "/ui/api/sessions/" + own + "/close")).longValue());
    }
}
