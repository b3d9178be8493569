package iristerm.jsonrpc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.json.Json;
import tools.jackson.databind.JsonNode;

/**
 * Params built from the JSON tree directly rather than by Jackson's conversion, for the requests
 * every interaction sends: that conversion cost a tenth of a warm call's CPU and is a large piece of
 * code for the JIT to compile during the first calls. The values are what the conversion gives.
 */
final class TreeValues {

    /** A field of the params holds the wrong kind of JSON value. */
    static final class WrongField extends RuntimeException {
        WrongField(String field) {
            super("\"" + field + "\"", null, false, false);
        }
    }

    private TreeValues() {
    }

    /** {@code tools/call}'s params; {@code params} is a JSON object whose "name" is present (checked before). */
    static McpSchema.CallToolRequest callToolRequest(JsonNode params) {
        JsonNode name = params.get("name");
        if (!name.isString()) {
            throw new WrongField("name");
        }
        return new McpSchema.CallToolRequest(name.asString(), object(params, "arguments"), object(params, "_meta"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(JsonNode params, String field) {
        JsonNode n = params.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw new WrongField(field);
        }
        return (Map<String, Object>) plain(n);
    }

    /**
     * A JSON value as Jackson reads it into {@code Object}: LinkedHashMap, ArrayList, String, Integer,
     * Long, BigInteger or Double, Boolean, null.
     */
    static Object plain(JsonNode n) {
        return switch (n.getNodeType()) {
            case OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> e : n.properties()) {
                    m.put(e.getKey(), plain(e.getValue()));
                }
                yield m;
            }
            case ARRAY -> {
                List<Object> l = new ArrayList<>(n.size());
                for (JsonNode e : n) {
                    l.add(plain(e));
                }
                yield l;
            }
            case STRING -> n.asString();
            case NUMBER -> n.numberValue();
            case BOOLEAN -> n.booleanValue();
            case NULL, MISSING -> null;
            // not produced by parsing text; converted the general way should one ever come
            default -> Json.MAPPER.treeToValue(n, Object.class);
        };
    }
}
