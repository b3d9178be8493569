package iristerm.mcp;

import iristerm.json.Json;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator.ValidationResponse;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The validator the SDK checks tool arguments and results with: compiled once, refusing what the schema refuses. */
@SuppressWarnings("unchecked")
class ToolSchemasTest {
    private static final String SCHEMA = """
            {"type": "object", "properties": {
              "session": {"type": "string"}, "wait_ms": {"type": "integer", "minimum": 0}
            }, "required": ["session"], "additionalProperties": false}""";

    private final ToolSchemas schemas = new ToolSchemas(Json.MAPPER);
    private final Map<String, Object> schema = Json.MAPPER.readValue(SCHEMA, Map.class);

    @Test
    void aConformingValueIsValidAndNotRenderedAgain() {
        for (int i = 0; i < 3; i++) {
            ValidationResponse r = schemas.validate(schema, Map.of("session", "s1", "wait_ms", 10 + i));
            assertTrue(r.valid(), r::errorMessage);
            assertNull(r.jsonStructuredOutput(), "every result carries its own text; rendering it again is waste");
        }
    }

    @Test
    void eachViolationIsRefusedNamingWhatIsWrong() {
        assertRefused(Map.of("wait_ms", 5), "session");
        assertRefused(Map.of("session", 7), "string");
        assertRefused(Map.of("session", "s1", "wait_ms", -1), "minimum");
        assertRefused(Map.of("session", "s1", "bogus", true), "bogus");
    }

    @Test
    void anEqualSchemaHeldElsewhereIsCompiledForItself() {
        Map<String, Object> copy = Json.MAPPER.readValue(SCHEMA, Map.class);
        assertTrue(schemas.validate(schema, Map.of("session", "a")).valid());
        assertFalse(schemas.validate(copy, Map.of("wait_ms", 1)).valid());
    }

    @Test
    void theServersOwnResultsAreNotValidatedPerCallButOtherSchemasStillAre() {
        Map<String, Object> output = Json.MAPPER.readValue(SCHEMA, Map.class);
        schemas.ownResults(output);
        assertTrue(schemas.validate(output, Map.of("wait_ms", -1)).valid(), "an own result schema is not checked");
        // the same content held elsewhere (a tool's input schema, say) is still enforced
        assertRefused(Map.of("wait_ms", -1), "session");
    }

    private void assertRefused(Map<String, Object> value, String named) {
        ValidationResponse r = schemas.validate(schema, value);
        assertFalse(r.valid(), () -> value + " was accepted");
        assertTrue(r.errorMessage().startsWith("Validation failed: ") && r.errorMessage().contains(named),
                r::errorMessage);
    }
}
