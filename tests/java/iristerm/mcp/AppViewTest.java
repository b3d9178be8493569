package iristerm.mcp;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The view's document as assembled from the jar's files, and which tools point at it. */
class AppViewTest {
    private static final Pattern TAG = Pattern.compile("<(script|style|link|img|iframe)\\b([^>]*)>");

    @Test
    void theDocumentIsSelfContained() {
        String html = AppView.html();
        assertFalse(html.contains("{{"), "a placeholder was left unfilled");
        Matcher m = TAG.matcher(html);
        int scripts = 0;
        while (m.find()) {
            // every script and style is inline: the host's default CSP allows no source but the document
            assertTrue(m.group(1).equals("script") || m.group(1).equals("style"), m.group());
            assertEquals("", m.group(2).strip(), () -> "an element with attributes: " + m.group());
            scripts += m.group(1).equals("script") ? 1 : 0;
        }
        assertEquals(2, scripts, "xterm.js and the view's script");
        assertTrue(html.contains("Could not dispose an addon that has not been loaded"), "xterm.js is inlined");
        assertFalse(html.contains("sourceMappingURL"), "a developer tool would fetch the map");
    }

    @Test
    void theSessionToolsPointAtTheViewAndSessionViewIsForItOnly() {
        for (String tool : List.of("session_open", "session_send", "session_read")) {
            assertEquals(Map.of("resourceUri", AppView.URI), AppView.toolMeta(tool).get("ui"), tool);
        }
        assertEquals(Map.of("resourceUri", AppView.URI, "visibility", List.of("app")), AppView.toolMeta("session_view").get("ui"));
        assertNull(AppView.toolMeta("session_close"));
        assertNull(AppView.toolMeta("iris_execute"));
    }
}
