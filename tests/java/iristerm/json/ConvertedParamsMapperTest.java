package iristerm.json;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The SDK's mapper hands over params the transports already converted, and converts everything else as before. */
class ConvertedParamsMapperTest {

    @Test
    void aValueAlreadyOfTheAskedClassIsHandedOverAsItIs() {
        McpSchema.CallToolRequest call = new McpSchema.CallToolRequest("session_list", Map.of());
        assertSame(call, Json.MCP.convertValue(call, new TypeRef<McpSchema.CallToolRequest>() {
        }));
        assertSame(call, Json.MCP.convertValue(call, McpSchema.CallToolRequest.class));
    }

    @Test
    void anythingElseIsConvertedByJackson() {
        McpSchema.CallToolRequest fromMap = Json.MCP.convertValue(Map.of("name", "session_list"),
                new TypeRef<McpSchema.CallToolRequest>() {
                });
        assertEquals("session_list", fromMap.name());
        // Object and generic targets are conversions, not hand-overs: a record becomes a map
        McpSchema.CallToolRequest call = new McpSchema.CallToolRequest("x", Map.of());
        Object asObject = Json.MCP.convertValue(call, Object.class);
        assertNotSame(call, asObject);
        assertInstanceOf(Map.class, asObject);
        List<McpSchema.Root> roots = Json.MCP.convertValue(List.of(Map.of("uri", "file:///a")),
                new TypeRef<List<McpSchema.Root>>() {
                });
        assertInstanceOf(McpSchema.Root.class, roots.get(0));
    }
}
