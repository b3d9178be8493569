package iristerm.json;

import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.json.UTF8JsonGenerator;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.JacksonSerializable;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.jsontype.TypeSerializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.ValueSerializerModifier;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a tool result whose text content begins with its structured {@code data} (every read's
 * answer: the output, then a status line) with the output escaped for JSON once. The MCP
 * specification recommends both forms, so the output travels twice; escaping it is most of the cost
 * of an answer of a megabyte, and the escaped bytes are the same both times. Everything else about
 * the result is written by Jackson's own serializer for it, and the escaping is Jackson's too (a
 * generator of the same settings), so the answer is byte for byte what Jackson would write. Writers
 * that take no raw UTF-8 (a character writer, a token buffer) get the strings as before.
 */
final class ReadAnswerSerializer extends ValueSerializer<Object> {
    /** shorter output is escaped twice: the bookkeeping would cost about what it saves */
    static final int MIN_CHARS = 4096;

    private final ValueSerializer<Object> standard;

    private ReadAnswerSerializer(ValueSerializer<Object> standard) {
        this.standard = standard;
    }

    /** The module that puts this serializer in front of Jackson's own for {@link McpSchema.CallToolResult}. */
    static SimpleModule module() {
        return new SimpleModule("read-answers").setSerializerModifier(new ValueSerializerModifier() {
            @Override
            @SuppressWarnings("unchecked")
            public ValueSerializer<?> modifySerializer(SerializationConfig config, BeanDescription.Supplier bean,
                                                       ValueSerializer<?> serializer) {
                return bean.getBeanClass() == McpSchema.CallToolResult.class
                        ? new ReadAnswerSerializer((ValueSerializer<Object>) serializer) : serializer;
            }
        });
    }

    @Override
    public void resolve(SerializationContext ctxt) {
        standard.resolve(ctxt);
    }

    @Override
    @SuppressWarnings("unchecked")
    public ValueSerializer<?> createContextual(SerializationContext ctxt, BeanProperty property) {
        ValueSerializer<?> contextual = standard.createContextual(ctxt, property);
        return contextual == standard ? this : new ReadAnswerSerializer((ValueSerializer<Object>) contextual);
    }

    @Override
    public void serialize(Object value, JsonGenerator gen, SerializationContext ctxt) {
        standard.serialize(escapedOnce((McpSchema.CallToolResult) value), gen, ctxt);
    }

    @Override
    public void serializeWithType(Object value, JsonGenerator gen, SerializationContext ctxt, TypeSerializer typeSer) {
        standard.serializeWithType(escapedOnce((McpSchema.CallToolResult) value), gen, ctxt, typeSer);
    }

    /**
     * The same result with its data and its text content as values that share one escaping, when the
     * text content is one plain text that begins with a long enough data; else the result as it is.
     */
    static McpSchema.CallToolResult escapedOnce(McpSchema.CallToolResult r) {
        if (!(r.structuredContent() instanceof Map<?, ?> structured) || !(structured.get("data") instanceof String data)
                || data.length() < MIN_CHARS || r.content() == null || r.content().size() != 1
                || !(r.content().get(0) instanceof McpSchema.TextContent t) || t.annotations() != null
                || t.meta() != null || !t.text().startsWith(data)) {
            return r;
        }
        Escaped escaped = new Escaped(t.text(), data);
        Map<Object, Object> withData = new LinkedHashMap<>(structured);
        withData.put("data", new Data(escaped));
        return new McpSchema.CallToolResult(List.of(new Text(escaped)), r.isError(), withData, r.meta());
    }

    /** The text content's text, escaped once on first use, and the data it begins with. */
    private static final class Escaped {
        private final String text;
        private final String data;
        private Bytes bytes;
        /** escaped lengths (without quotes) of the text and of its data part (-1 when not found) */
        private int textLength;
        private int dataLength;

        Escaped(String text, String data) {
            this.text = text;
            this.data = data;
        }

        void write(JsonGenerator gen, SerializationContext ctxt, boolean whole) {
            if (gen instanceof UTF8JsonGenerator) {
                escape(ctxt);
                if (whole || dataLength >= 0) {
                    gen.writeRawUTF8String(bytes.array(), 1, whole ? textLength : dataLength);
                    return;
                }
            }
            gen.writeString(whole ? text : data);
        }

        /**
         * Escapes the text as a generator of the caller's settings does. Escaping is character by character,
         * so the text's escaped form is its data's escaped form followed by its tail's, whose length tells
         * where the data's ends (when the tail's escaped bytes are indeed the end, which is checked).
         */
        private void escape(SerializationContext ctxt) {
            if (bytes != null) {
                return;
            }
            // room for an escape in every fourth character (seq's output has a newline in every 6.5): most
            // output is escaped without the buffer growing, which copies it into an array twice the size
            bytes = jsonString(ctxt, text, text.length() + text.length() / 4 + 16);
            textLength = bytes.size() - 2;
            Bytes tail = jsonString(ctxt, text.substring(data.length()), 64);
            int tailLength = tail.size() - 2;
            dataLength = textLength - tailLength;
            if (dataLength < 0 || !java.util.Arrays.equals(bytes.array(), 1 + dataLength, 1 + textLength,
                    tail.array(), 1, 1 + tailLength)) {
                dataLength = -1;
            }
        }

        private static Bytes jsonString(SerializationContext ctxt, String s, int capacity) {
            Bytes out = new Bytes(capacity);
            try (JsonGenerator g = ctxt.tokenStreamFactory().createGenerator(ctxt, out)) {
                g.writeString(s);
            }
            return out;
        }
    }

    /** A byte stream whose buffer is read in place (a megabyte is not copied once more). */
    private static final class Bytes extends ByteArrayOutputStream {
        Bytes(int capacity) {
            super(capacity);
        }

        byte[] array() {
            return buf;
        }
    }

    /** The structured {@code data}, written from the shared escaping. */
    private record Data(Escaped escaped) implements JacksonSerializable {
        @Override
        public void serialize(JsonGenerator gen, SerializationContext ctxt) {
            escaped.write(gen, ctxt, false);
        }

        @Override
        public void serializeWithType(JsonGenerator gen, SerializationContext ctxt, TypeSerializer typeSer) {
            serialize(gen, ctxt);
        }
    }

    /** The text content, written as Jackson writes a {@link McpSchema.TextContent} without annotations or meta. */
    private record Text(Escaped escaped) implements McpSchema.Content, JacksonSerializable {
        @Override
        public Map<String, Object> meta() {
            return null;
        }

        @Override
        public void serialize(JsonGenerator gen, SerializationContext ctxt) {
            gen.writeStartObject(this);
            gen.writeStringProperty("type", "text");
            gen.writeName("text");
            escaped.write(gen, ctxt, true);
            gen.writeEndObject();
        }

        @Override
        public void serializeWithType(JsonGenerator gen, SerializationContext ctxt, TypeSerializer typeSer) {
            // the type id is the "type" property written above, as the polymorphic TextContent writes it
            serialize(gen, ctxt);
        }
    }
}
