package iristerm.json;

import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

class ReadAnswerSerializerTest {
    /** Jackson as it is, without the serializer under test */
    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    /** output with everything JSON escapes or carries as multi-byte UTF-8 */
    private static String output(int lines) {
        return lines(lines, " \"quoted\" back\\slash\ttab \u0001\u001f del\u007f é € \uD83D\uDE00 \u2028 </x>? \r\n");
    }

    /** output of Latin-1 characters only: every one of the 256 (controls escaped, the upper half two UTF-8 bytes) */
    private static String latin1(int lines) {
        StringBuilder every = new StringBuilder();
        for (char c = 0; c < 256; c++) {
            every.append(c);
        }
        return lines(lines, " ?? " + every + "\n");
    }

    private static String lines(int n, String line) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i).append(line);
        }
        return b.toString();
    }

    private static McpSchema.CallToolResult answer(String data, String text, boolean error) {
        Map<String, Object> structured = new LinkedHashMap<>();
        structured.put("data", data);
        structured.put("bytes", 123L);
        structured.put("reason", "pattern");
        structured.put("hint", "a \"hint\"");
        return McpSchema.CallToolResult.builder().structuredContent(structured).addTextContent(text).isError(error).build();
    }

    private static McpSchema.JSONRPCResponse response(McpSchema.CallToolResult r) {
        return new McpSchema.JSONRPCResponse("2.0", 7, r, null);
    }

    private static void sameAsJackson(McpSchema.CallToolResult r) {
        byte[] expected = PLAIN.writeValueAsBytes(response(r));
        assertArrayEquals(expected, Json.MAPPER.writeValueAsBytes(response(r)),
                () -> "differs from Jackson's own: " + new String(Json.MAPPER.writeValueAsBytes(response(r)),
                        StandardCharsets.UTF_8).substring(0, 300));
        // a character writer takes no raw UTF-8: the strings are written as before
        assertEquals(PLAIN.writeValueAsString(response(r)), Json.MAPPER.writeValueAsString(response(r)));
    }

    @Test
    void aReadAnswerIsWrittenByteForByteAsJacksonWritesIt() {
        for (String data : List.of(output(200), latin1(50), latin1(50) + "€ after a table's worth")) {
            sameAsJackson(answer(data, data + "[reason=pattern state=running]\nsome \"hint\" é", false));
            sameAsJackson(answer(data, data + "\n[reason=exit]", true));
            // an answer whose text is the output alone
            sameAsJackson(answer(data + "tail", data + "tail", false));
        }
    }

    @Test
    void theOutputIsSharedOnlyWhenTheTextBeginsWithIt() {
        String data = output(200);
        McpSchema.CallToolResult shared = answer(data, data + "[reason=pattern]", false);
        assertNotSame(shared, ReadAnswerSerializer.escapedOnce(shared));
        // the text does not begin with the data (one character differs): written as it is
        String other = "X" + data.substring(1) + "[reason=pattern]";
        McpSchema.CallToolResult different = answer(data, other, false);
        assertSame(different, ReadAnswerSerializer.escapedOnce(different));
        sameAsJackson(different);
        // short output is escaped twice: not worth the bookkeeping
        McpSchema.CallToolResult small = answer("ok\n", "ok\n[reason=pattern]", false);
        assertSame(small, ReadAnswerSerializer.escapedOnce(small));
        sameAsJackson(small);
    }

    @Test
    void otherResultsAreWrittenAsBefore() {
        McpSchema.CallToolResult listing = McpSchema.CallToolResult.builder()
                .structuredContent(Map.of("sessions", List.of(Map.of("id", "s1")))).addTextContent("s1").build();
        sameAsJackson(listing);
        McpSchema.CallToolResult error = McpSchema.CallToolResult.builder().isError(true).addTextContent("no").build();
        sameAsJackson(error);
    }
}
