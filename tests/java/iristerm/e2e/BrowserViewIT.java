package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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
    /** identities of their own for the tests that need a clean slate: a link's reuse, the first session, typing */
    private static final String CAROL = "carol-token-0123456789abcdef";
    private static final String DAVE = "dave-token-0123456789abcdefg";
    private static final String ERIN = "erin-token-0123456789abcdefg";
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
        server = HttpServer.withTokens(dir, Map.of("alice", ALICE, "bob", BOB, "carol", CAROL, "dave", DAVE,
                "erin", ERIN), line -> {
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
    void theSignInLinkSurvivesAPreviewWorksAgainWithinItsGraceAndItsCookieIsNoKeyToMcp() throws Exception {
        String link = link("carol").get(30, TimeUnit.SECONDS);
        // a link previewer fetches the link and follows nothing: the link is not spent by it
        HttpResponse<String> preview = http(HttpRequest.newBuilder(URI.create(link)));
        assertEquals(303, preview.statusCode(), preview.body());
        WebDriver d = Chromium.start();
        try {
            signIn(d, "carol");
            var cookie = d.manage().getCookieNamed("iristerm_ui");
            assertTrue(cookie.isHttpOnly(), "no script can read the login");
            assertEquals("/ui", cookie.getPath());
            assertEquals("Strict", cookie.getSameSite());
            // the browser came back with its login: the link is spent, yet works for its grace (a second tab)
            assertEquals(303, http(HttpRequest.newBuilder(URI.create(link))).statusCode(), "the link's grace");
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
    void aRefusedLinkSaysWhyInPlainWords() {
        WebDriver d = Chromium.start();
        try {
            d.get(base + "/ui/signin?code=made-up-code");
            String why = waiting(d).until(x -> x.findElement(By.id("refusal"))).getText();
            assertTrue(why.contains("not one this server knows") && why.contains("latest start"), why);
            d.get(base + "/ui/signin?code=");
            String empty = waiting(d).until(x -> x.findElement(By.id("refusal"))).getText();
            assertTrue(empty.contains("has no code"), empty);
            d.get(base + "/ui/login");
            assertFalse(d.findElement(By.id("refusal")).isDisplayed(), "a plain sign-in page blames nothing");
        } finally {
            d.quit();
        }
    }

    @Test
    void theFirstLiveSessionIsShownAtOnceAndCloseAsksFirst() throws Exception {
        McpSyncClient mcp = server.connect(DAVE, n -> { });
        String id = (String) Mcp.ok(mcp, "session_open", "command", "bash", "name", "first").get("session");
        Mcp.ok(mcp, "session_send", "session", id, "text", "echo shown-$((3*3))");
        WebDriver d = Chromium.start();
        try {
            signIn(d, "dave");
            // no click: the page opens on it
            waiting(d).until(x -> x.findElement(By.id("current")).getText().contains(id));
            waiting(d).until(x -> screen(x).contains("shown-9"));
            assertTrue(row(d, id).getAttribute("class").contains("selected"));

            d.findElement(By.id("close")).click();
            Alert asked = waiting(d).until(ExpectedConditions.alertIsPresent());
            assertTrue(asked.getText().contains(id) && asked.getText().startsWith("Close session"), asked.getText());
            asked.dismiss();
            // declined: the session lives on, as a call through the agent's own tool shows
            Map<String, Object> alive = Mcp.ok(mcp, "session_send", "session", id, "text", "echo still-$((4*4))",
                    "wait_ms", 20000, "until", Map.of("pattern", "still-16"));
            assertEquals("pattern", alive.get("reason"), () -> "declined Close closed the session: " + alive);

            d.findElement(By.id("close")).click();
            waiting(d).until(ExpectedConditions.alertIsPresent()).accept();
            waiting(d).until(x -> !x.findElements(By.cssSelector("#sessions tr[data-session='" + id + "'] td.state-exited"))
                    .isEmpty());
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> listed = (List<Map<String, Object>>) Mcp.ok(mcp, "session_list", "session", id)
                    .get("sessions");
            assertEquals("exited", listed.get(0).get("state"));
        } finally {
            d.quit();
        }
    }

    @Test
    void aPersonTypesIntoTheirSessionOnlyBehindTheToggleAndTheTranscriptSaysSo() throws Exception {
        McpSyncClient mcp = server.connect(ERIN, n -> { });
        String id = (String) Mcp.ok(mcp, "session_open", "command", "bash", "name", "typed").get("session");
        WebDriver d = Chromium.start();
        try {
            signIn(d, "erin");
            waiting(d).until(x -> x.findElement(By.id("current")).getText().contains(id));
            WebElement toggle = d.findElement(By.id("typing"));
            assertFalse(toggle.isSelected(), "typing is off until the person turns it on");
            waiting(d).until(x -> x.findElement(By.id("typing")).isEnabled());
            toggle.click();
            waiting(d).until(x -> x.findElement(By.id("action-status")).getText().contains("is on"));
            // the keys go to whatever has the focus, as a person's would: the terminal, once typing is on
            new Actions(d).sendKeys("echo typed-by-$((40+2))" + Keys.ENTER).perform();
            waiting(d).until(x -> screen(x).contains("typed-by-42"));

            Map<String, Object> read = Mcp.ok(mcp, "session_read", "session", id, "wait_ms", 20000,
                    "until", Map.of("pattern", "typed-by-42\\r?\\n"));
            String data = String.valueOf(read.get("data"));
            String note = "[iris-terminal-mcp: a person signed in as erin is typing into this session from the browser view]";
            assertTrue(data.contains(note), () -> "the agent is not told a person typed: " + data);
            assertTrue(data.indexOf(note) < data.indexOf("typed-by-42"), data);

            toggle.click();
            waiting(d).until(x -> x.findElement(By.id("action-status")).getText().contains("is off"));
            Path transcript = dir.resolve("data").resolve("sessions").resolve(id).resolve("transcript.log");
            String stopped = "[iris-terminal-mcp: the person signed in as erin stopped typing from the browser view]";
            waiting(d).until(x -> readString(transcript).contains(stopped));
            String kept = readString(transcript);
            assertTrue(kept.indexOf(note) < kept.indexOf("typed-by-42") && kept.indexOf("typed-by-42") < kept.indexOf(stopped),
                    () -> "the transcript does not bracket the person's typing: " + kept);
        } finally {
            d.quit();
        }
    }

    private static String readString(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aSessionOpenedOverMcpIsWatchedLiveInColourAndInterrupted() throws Exception {
        signIn(alice, "alice");
        String id = (String) Mcp.ok(aliceMcp, "session_open", "command", "bash", "name", "watched").get("session");
        row(alice, id).click();
        waiting(alice).until(d -> !screen(d).isBlank());

        Mcp.ok(aliceMcp, "session_send", "session", id, "text", "echo ui-marker-$((6*7))");
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
