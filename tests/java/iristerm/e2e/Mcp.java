package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tool calls as an agent makes them, through the SDK's own client. */
final class Mcp {
    private Mcp() {
    }

    static Map<String, Object> args(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static McpSchema.CallToolResult call(McpSyncClient client, String tool, Object... kv) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args(kv)));
    }

    /** A successful call's structured content. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> ok(McpSyncClient client, String tool, Object... kv) {
        McpSchema.CallToolResult r = call(client, tool, kv);
        assertFalse(Boolean.TRUE.equals(r.isError()), () -> tool + " failed: " + text(r));
        return (Map<String, Object>) r.structuredContent();
    }

    /** A failed call's message. */
    static String error(McpSyncClient client, String tool, Object... kv) {
        McpSchema.CallToolResult r = call(client, tool, kv);
        assertTrue(Boolean.TRUE.equals(r.isError()), () -> tool + " should have failed but answered " + text(r));
        return text(r);
    }

    static String text(McpSchema.CallToolResult r) {
        StringBuilder b = new StringBuilder();
        for (McpSchema.Content c : r.content()) {
            if (c instanceof McpSchema.TextContent t) {
                b.append(t.text());
            }
        }
        return b.toString();
    }

    static long num(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).longValue();
    }
}
