package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stdio server asked for the browser view ({@code stdio --ui 127.0.0.1:0}): its sign-in link comes on
 * stderr (stdout is the MCP stream, which the SDK's client reads and would choke on anything else), and the
 * sessions its stdio client opens are there to watch, in Debian's headless chromium.
 */
@Timeout(120)
class StdioBrowserViewIT {
    private static final Pattern SIGN_IN = Pattern.compile("sign in as (\\S+): (http://\\S+/ui/signin\\?code=\\S+)");
    private static final Duration WAIT = Duration.ofSeconds(45);

    @TempDir
    Path dir;

    @Test
    void theSessionsOfAStdioServerAreWatchedThroughTheLinkItPrintsOnStderr() throws Exception {
        CompletableFuture<Matcher> signIn = new CompletableFuture<>();
        try (StdioServer server = new StdioServer(dir, List.of("--ui", "127.0.0.1:0"), line -> {
            Matcher m = SIGN_IN.matcher(line);
            if (m.find()) {
                signIn.complete(m);
            }
        })) {
            McpSyncClient mcp = server.connect(n -> { }, p -> { });
            String id = (String) Mcp.ok(mcp, "session_open", "command", "bash", "name", "over-stdio").get("session");
            Mcp.ok(mcp, "session_send", "session", id, "text", "echo from-stdio-$((5*5))");
            Matcher link = signIn.get(30, TimeUnit.SECONDS);
            assertTrue(link.group(1).equals("local"), "the view signs in as the stdio server's identity: " + link.group(1));

            WebDriver d = Chromium.start();
            try {
                d.get(link.group(2));
                WebDriverWait waiting = new WebDriverWait(d, WAIT, Duration.ofMillis(50));
                waiting.until(x -> !x.findElements(By.cssSelector("#sessions tr[data-session='" + id + "']")).isEmpty());
                waiting.until(x -> {
                    var rows = x.findElements(By.cssSelector("#terminal .xterm-rows"));
                    return !rows.isEmpty() && rows.get(0).getText().contains("from-stdio-25");
                });
            } finally {
                d.quit();
            }
            // and the MCP stream is still whole: the client goes on being answered
            Mcp.ok(mcp, "session_list");
        }
    }
}
