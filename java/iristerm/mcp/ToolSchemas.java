package iristerm.mcp;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Validates tool arguments and results against the tools' JSON schemas (JSON Schema 2020-12), for
 * the SDK, at a cost per call of the validation itself. The SDK's default validator builds its
 * registry (and reads the draft's meta-schema) when constructed, hashes the whole schema map on every
 * call to find it in its cache, and renders every valid result to a JSON string that is used only
 * for a result without content. Here the registry is built at the first validation (a start that
 * answers no tool call never loads it), each schema is compiled once and found by identity (the
 * SDK hands over the same map every call), and a valid result is not rendered: every result this
 * server returns carries its text content (see {@link ServerAssembly}).
 *
 * <p>The server's own results are not validated on every call: their shapes are fixed by the code
 * that builds them, and the end-to-end tests validate every result they get against its tool's
 * output schema in the SDK's client. Validating them here cost each call a tenth of its CPU.
 */
final class ToolSchemas implements JsonSchemaValidator {
    private final JsonMapper mapper;
    private final Map<Identity, Schema> compiled = new ConcurrentHashMap<>();
    /** the output schemas of this server's tools, whose results are not checked per call */
    private final Set<Identity> ownResults = ConcurrentHashMap.newKeySet();
    private volatile SchemaRegistry registry;

    ToolSchemas(JsonMapper mapper) {
        this.mapper = mapper;
    }

    /** Marks a tool's output schema (the very map the SDK will hand over) as describing this server's own results. */
    void ownResults(Map<String, Object> outputSchema) {
        if (outputSchema != null) {
            ownResults.add(new Identity(outputSchema));
        }
    }

    @Override
    public ValidationResponse validate(Map<String, Object> schema, Object instance) {
        if (schema != null && instance != null && ownResults.contains(new Identity(schema))) {
            return ValidationResponse.asValid(null);
        }
        if (schema == null || instance == null) {
            return ValidationResponse.asInvalid("Validation failed: " + (schema == null ? "no schema" : "no value") + " to validate");
        }
        try {
            List<Error> errors = compiled.computeIfAbsent(new Identity(schema), this::compile)
                    .validate(mapper.valueToTree(instance));
            return errors.isEmpty() ? ValidationResponse.asValid(null)
                    : ValidationResponse.asInvalid("Validation failed: JSON schema validation errors: " + errors);
        } catch (RuntimeException e) {
            // the validator's own words name its classes (e.g. a number past a long, "'DoubleNode' method asLong()")
            String field = beyondLong(instance, "");
            return ValidationResponse.asInvalid("Validation failed: " + (field != null
                    ? "'" + field + "' is a number beyond any whole number this server takes; give one within the "
                            + "range the tool's input schema states"
                    : "the arguments could not be checked against the tool's input schema; compare them with it "
                            + "(tools/list)"));
        }
    }

    /** The path of the first number in {@code value} that no 64-bit whole number holds, or null. */
    private static String beyondLong(Object value, String path) {
        if (value instanceof Number n) {
            double d = n.doubleValue();
            return Double.isFinite(d) && Math.abs(d) < 0x1p63 ? null : path;
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String found = beyondLong(e.getValue(), path.isEmpty() ? String.valueOf(e.getKey()) : path + "." + e.getKey());
                if (found != null) {
                    return found;
                }
            }
        }
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                String found = beyondLong(list.get(i), path + "[" + i + "]");
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private Schema compile(Identity key) {
        return registry().getSchema(mapper.valueToTree(key.schema()));
    }

    private SchemaRegistry registry() {
        SchemaRegistry r = registry;
        if (r == null) {
            synchronized (this) {
                if (registry == null) {
                    registry = SchemaRegistry.withDefaultDialect(Dialects.getDraft202012());
                }
                r = registry;
            }
        }
        return r;
    }

    /** A schema map as a key by identity: hashing the map itself would walk every nested value. */
    private record Identity(Map<String, Object> schema) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Identity other && other.schema == schema;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(schema);
        }
    }
}
