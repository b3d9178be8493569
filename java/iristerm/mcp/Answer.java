package iristerm.mcp;

import java.util.Map;

/**
 * A tool's answer: the structured content its output schema declares and a short text.
 * {@code failed} answers still carry their structure (e.g. SQLCODE) but are flagged isError.
 */
public record Answer(Map<String, Object> structured, String text, boolean failed) {
    public Answer(Map<String, Object> structured, String text) {
        this(structured, text, false);
    }

    public static Answer failed(Map<String, Object> structured, String text) {
        return new Answer(structured, text, true);
    }
}
