package iristerm.mcp;

/** One tool: its contract (name, description, JSON schemas as text) and what runs it. */
public record ToolSpec(String name, String description, String inputSchema, String outputSchema, Handler handler) {

    @FunctionalInterface
    public interface Handler {
        Answer call(Caller caller, Args args);
    }
}
