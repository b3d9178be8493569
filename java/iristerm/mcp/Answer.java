package iristerm.mcp;

import java.util.Map;

/** A tool's successful answer: the structured content its output schema declares, and a short text. */
public record Answer(Map<String, Object> structured, String text) {
}
