package iristerm.json;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;

import java.io.IOException;

/**
 * The SDK's JSON mapper, except that converting a value to the class it already is hands it over
 * as it is: the transports convert a request's params once, when they check them
 * ({@link iristerm.jsonrpc.RequestParams}), and the SDK's handlers then ask for that same type.
 */
final class ConvertedParamsMapper implements McpJsonMapper {
    private final McpJsonMapper jackson;

    ConvertedParamsMapper(McpJsonMapper jackson) {
        this.jackson = jackson;
    }

    @Override
    public <T> T convertValue(Object from, Class<T> type) {
        return type.isInstance(from) && type != Object.class ? type.cast(from) : jackson.convertValue(from, type);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T convertValue(Object from, TypeRef<T> type) {
        // only a plain class: a generic type (List<Tool>) needs its elements converted too
        return type.getType() instanceof Class<?> c && c.isInstance(from) && c != Object.class ? (T) from
                : jackson.convertValue(from, type);
    }

    @Override
    public <T> T readValue(String content, Class<T> type) throws IOException {
        return jackson.readValue(content, type);
    }

    @Override
    public <T> T readValue(byte[] content, Class<T> type) throws IOException {
        return jackson.readValue(content, type);
    }

    @Override
    public <T> T readValue(String content, TypeRef<T> type) throws IOException {
        return jackson.readValue(content, type);
    }

    @Override
    public <T> T readValue(byte[] content, TypeRef<T> type) throws IOException {
        return jackson.readValue(content, type);
    }

    @Override
    public String writeValueAsString(Object value) throws IOException {
        return jackson.writeValueAsString(value);
    }

    @Override
    public byte[] writeValueAsBytes(Object value) throws IOException {
        return jackson.writeValueAsBytes(value);
    }
}
