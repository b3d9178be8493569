package iristerm.e2e;

import com.sun.net.httpserver.HttpExchange;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.json.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MCP Apps view (ui://iris-terminal/terminal-v1.html) rendered by a host built on the ext-apps
 * SDK's own host side (AppBridge, pinned with what it needs in tests/apps-host, installed into
 * target/apps-host with {@code npm ci} and bundled by esbuild) in Debian's headless chromium. The host
 * page shows the view in a sandboxed iframe (scripts only, opaque origin) under the spec's default
 * CSP (no connections), delivers a real session_send result, and passes the view's requests to this
 * test, which makes them with the MCP SDK's client on the packaged jar over stdio, refusing, as a host
 * must, tools whose visibility leaves out "app".
 */
@Timeout(300)
class AppViewBrowserIT {
    private static final Path PACKAGE = Path.of("tests", "apps-host").toAbsolutePath();
    private static final Path INSTALL = Path.of("target", "apps-host").toAbsolutePath();
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(45);

    @TempDir
    static Path dir;
    private static StdioServer server;
    private static McpSyncClient mcp;
    private static com.sun.net.httpserver.HttpServer host;
    private static ExecutorService hostThreads;
    private static WebDriver browser;
    /** the tools the view called through the host, in order */
    private static final Queue<String> viewCalls = new ConcurrentLinkedQueue<>();
    private static final Map<String, McpSchema.Tool> tools = new HashMap<>();

    @BeforeAll
    static void start() throws Exception {
        installHost();
        server = new StdioServer(dir, List.of());
        mcp = server.connect(n -> { });
        mcp.listTools().tools().forEach(t -> tools.put(t.name(), t));
        hostThreads = Executors.newCachedThreadPool();
        host = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        host.setExecutor(hostThreads);
        host.createContext("/", AppViewBrowserIT::serve);
        host.start();
        browser = Chromium.start();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (host != null) {
            host.stop(0);
            hostThreads.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    /** npm ci of the pinned host packages, then the host page's script bundled for the browser. */
    private static void installHost() throws Exception {
        Files.createDirectories(INSTALL.resolve("dist"));
        for (String file : List.of("package.json", "package-lock.json", "host.js", "host.html")) {
            Files.copy(PACKAGE.resolve(file), INSTALL.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        Run npm;
        try {
            npm = Run.of(INSTALL, INSTALL.resolve("npm-ci.log"), INSTALL_TIMEOUT, "npm", "ci", "--no-audit", "--no-fund");
        } catch (IOException e) {
            throw new AssertionError("AppViewBrowserIT installs its MCP Apps host with npm; install Node.js 20 or "
                    + "later with npm (.ci/run does so on a clean machine): " + e.getMessage(), e);
        }
        assertEquals(0, npm.exit(), "npm ci failed:\n" + npm.output());
        Run bundle = Run.of(INSTALL, INSTALL.resolve("esbuild.log"), INSTALL_TIMEOUT,
                INSTALL.resolve("node_modules/.bin/esbuild").toString(), "host.js", "--bundle", "--format=esm", "--platform=browser",
                "--outfile=dist/host.js");
        assertEquals(0, bundle.exit(), "bundling the host page failed:\n" + bundle.output());
        Files.copy(INSTALL.resolve("host.html"), INSTALL.resolve("dist/host.html"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** The host's server side: its page, and the view's requests made on the MCP server under test. */
    private static void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            byte[] body = exchange.getRequestBody().readAllBytes();
            switch (path) {
                case "/" -> reply(exchange, 200, "text/html", Files.readAllBytes(INSTALL.resolve("dist/host.html")));
                case "/host.js" -> reply(exchange, 200, "text/javascript", Files.readAllBytes(INSTALL.resolve("dist/host.js")));
                case "/resource" -> reply(exchange, 200, "application/json", json(mcp.readResource(
                        Json.MCP.readValue(new String(body, StandardCharsets.UTF_8), McpSchema.ReadResourceRequest.class))));
                case "/call" -> call(exchange, Json.MCP.readValue(new String(body, StandardCharsets.UTF_8),
                        McpSchema.CallToolRequest.class));
                default -> reply(exchange, 404, "text/plain", "not found".getBytes(StandardCharsets.UTF_8));
            }
        } catch (RuntimeException e) {
            reply(exchange, 500, "text/plain", String.valueOf(e).getBytes(StandardCharsets.UTF_8));
        }
    }

    @SuppressWarnings("unchecked")
    private static void call(HttpExchange exchange, McpSchema.CallToolRequest request) throws IOException {
        McpSchema.Tool tool = tools.get(request.name());
        Map<String, Object> ui = tool == null || tool.meta() == null ? null : (Map<String, Object>) tool.meta().get("ui");
        List<String> visibility = ui == null || ui.get("visibility") == null ? List.of("model", "app")
                : (List<String>) ui.get("visibility");
        if (!visibility.contains("app")) {
            reply(exchange, 403, "text/plain", (request.name() + " is not callable by a view").getBytes(StandardCharsets.UTF_8));
            return;
        }
        viewCalls.add(request.name());
        reply(exchange, 200, "application/json", json(mcp.callTool(request)));
    }

    private static byte[] json(Object value) throws IOException {
        return Json.MCP.writeValueAsString(value).getBytes(StandardCharsets.UTF_8);
    }

    private static void reply(HttpExchange exchange, int status, String type, byte[] body) {
        try {
            exchange.getResponseHeaders().set("Content-Type", type + "; charset=UTF-8");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static WebDriverWait waiting() {
        return new WebDriverWait(browser, WAIT, Duration.ofMillis(50));
    }

    /** The view's terminal as xterm.js's DOM renderer lays it out (the driver is inside the view's frame). */
    private static String screen() {
        List<WebElement> rows = browser.findElements(By.cssSelector("#terminal .xterm-rows"));
        return rows.isEmpty() ? "" : rows.get(0).getText();
    }

    private static String status() {
        return browser.findElement(By.id("status")).getText();
    }

    /** The links the view asked the host to open. */
    private static String opened() {
        return String.valueOf(((JavascriptExecutor) browser).executeScript("return window.host.opened"));
    }

    @Test
    void theViewOfASessionSendResultShowsLiveOutputAndInterruptsAndClosesIt() throws Exception {
        browser.get("http://127.0.0.1:" + host.getAddress().getPort() + "/");
        waiting().until(d -> ((JavascriptExecutor) d).executeScript("return !!(window.host && window.host.show)"));

        String id = (String) Mcp.ok(mcp, "session_open", "command", "bash", "args", List.of("--norc", "--noprofile"),
                "env", Map.of("PS1", "$ ")).get("session");
        Map<String, Object> args = Mcp.args("session", id, "text", "echo hello-$((6*7))-from-the-chat", "wait_ms", 10000);
        McpSchema.CallToolResult sent = mcp.callTool(new McpSchema.CallToolRequest("session_send", args));
        ((JavascriptExecutor) browser).executeScript(
                "window.host.show('session_send', JSON.parse(arguments[0]), JSON.parse(arguments[1]))"
                        + ".catch((e) => { window.host.error = String(e); });",
                Json.MCP.writeValueAsString(args), Json.MCP.writeValueAsString(sent));
        WebElement frame = waiting().withMessage(() -> "no view: " + ((JavascriptExecutor) browser)
                .executeScript("return window.host.error")).until(d -> d.findElements(By.tagName("iframe")).stream()
                .findFirst().orElse(null));
        browser.switchTo().frame(frame);
        waiting().withMessage(() -> "the view shows: " + screen()).until(d -> screen().contains("hello-42-from-the-chat"));
        assertTrue(browser.findElement(By.id("current")).getText().contains(id));

        // live: output the view was not given, arriving after it opened
        Mcp.ok(mcp, "session_send", "session", id, "text", "for i in 1 2 3; do echo tick-$i; sleep 0.2; done");
        waiting().withMessage(() -> "the view shows: " + screen()).until(d -> screen().contains("tick-3"));

        Map<String, Object> started = Mcp.ok(mcp, "session_send", "session", id, "text", "echo sleeping-$((2+3)); sleep 100",
                "wait_ms", 20000, "until", Map.of("pattern", "sleeping-5\\r?\\n"));
        assertEquals("pattern", started.get("reason"), () -> "sleep did not start: " + started);
        waiting().until(d -> screen().contains("sleeping-5"));
        browser.findElement(By.id("interrupt")).click();
        waiting().withMessage(() -> "status: " + status()).until(d -> status().startsWith("sent INT"));
        Map<String, Object> after = Mcp.ok(mcp, "session_send", "session", id, "text", "echo after-$?",
                "wait_ms", 30000, "until", Map.of("pattern", "after-\\d+"));
        assertTrue(String.valueOf(after.get("data")).contains("after-130"), () -> "sleep was not interrupted: " + after);
        waiting().withMessage(() -> "the view shows: " + screen()).until(d -> screen().contains("after-130"));

        // a link opens only through the host (ui/open-link), when the user clicks it
        Mcp.ok(mcp, "session_send", "session", id, "text", "echo https://example.invalid/$((3*3))");
        WebElement link = waiting().until(d -> d.findElements(By.cssSelector("#terminal .xterm-rows > div")).stream()
                .filter(r -> r.getText().strip().equals("https://example.invalid/9")).findFirst().orElse(null));
        new Actions(browser).moveToElement(link, -link.getSize().getWidth() / 2 + 20, 0).pause(Duration.ofMillis(200))
                .click().perform();
        browser.switchTo().defaultContent();
        waiting().withMessage(() -> "opened: " + opened()).until(d -> opened().contains("https://example.invalid/9"));
        browser.switchTo().frame(frame);

        // fitting and typing are the user's to ask for: nothing was resized or sent until now
        assertTrue(viewCalls.stream().noneMatch(c -> c.equals("session_resize") || c.equals("session_send")),
                viewCalls::toString);
        browser.findElement(By.id("fit")).click();
        waiting().withMessage(() -> "status: " + status()).until(d -> status().startsWith("resized to "));
        String size = status().substring("resized to ".length());
        browser.findElement(By.id("type")).click();
        browser.findElement(By.id("line-text")).sendKeys("stty size | tr ' ' x; echo typed-$((5*5))\n");
        waiting().withMessage(() -> "the view shows: " + screen()).until(d -> screen().contains("typed-25"));
        String[] colsRows = size.split("x");
        assertTrue(screen().contains(colsRows[1] + "x" + colsRows[0]), () -> "stty size is not " + size + ": " + screen());
        browser.switchTo().defaultContent();
        Chromium.screenshot(browser, Path.of("target", "app-view.png"));
        // the host's theme and style variables reach the page
        ((JavascriptExecutor) browser).executeScript("window.host.context({ theme: 'light', styles: { variables: "
                + "{ '--font-sans': 'serif' } } })");
        browser.switchTo().frame(frame);
        waiting().withMessage("the view did not take the host's light theme")
                .until(d -> d.findElement(By.tagName("body")).getAttribute("class").contains("light"));
        assertEquals("serif", ((JavascriptExecutor) browser).executeScript(
                "return getComputedStyle(document.documentElement).getPropertyValue('--font-sans').trim()"));

        // Close asks first, in the page (a sandboxed frame may not show confirm())
        browser.findElement(By.id("close")).click();
        assertTrue(browser.findElement(By.id("confirm")).isDisplayed(), "Close did not ask for confirmation");
        assertEquals(List.of(), viewCalls.stream().filter("session_close"::equals).toList(), "closed before confirmation");
        browser.findElement(By.id("close-yes")).click();
        waiting().withMessage(() -> "status: " + status()).until(d -> status().startsWith("session ended"));
        assertTrue(browser.findElement(By.id("interrupt")).getAttribute("disabled") != null, "Interrupt after the end");

        browser.switchTo().defaultContent();
        Object teardown = ((JavascriptExecutor) browser).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "window.host.teardown().then(() => done('answered'), (e) => done(String(e)));");
        assertEquals("answered", teardown, "the view did not answer ui/resource-teardown");
        List<String> calls = List.copyOf(viewCalls);
        // what it followed the session with, and what the user clicked: nothing else
        assertEquals(Set.of("session_view", "session_signal", "session_resize", "session_send", "session_close"),
                Set.copyOf(calls), calls::toString);
        System.out.printf("MCP Apps view: %d calls through the host: %s%n", calls.size(), calls);
    }
}
