package iristerm.mcp;

/**
 * One tool: its contract (name, title, behaviour hints, description, JSON schemas as text) and what
 * runs it.
 */
public record ToolSpec(String name, String title, Hints hints, String description, String inputSchema,
                       String outputSchema, Handler handler) {

    /** The same tool run by another handler (e.g. one that does some work first, then this one's). */
    public ToolSpec withHandler(Handler other) {
        return new ToolSpec(name, title, hints, description, inputSchema, outputSchema, other);
    }

    @FunctionalInterface
    public interface Handler {
        Answer call(Caller caller, Args args);
    }

    /**
     * The MCP tool annotations: what a client may assume before it calls (e.g. whether to ask the user
     * first). All four are always stated because the protocol's defaults for absent hints are the
     * cautious ones (destructive, open world).
     */
    public record Hints(boolean readOnly, boolean destructive, boolean idempotent, boolean openWorld) {
        /** runs whatever program or code the caller names: anything may happen, outside this server too */
        public static final Hints RUNS_CODE = new Hints(false, true, false, true);
        /** looks at the caller's sessions without changing what they do */
        public static final Hints READS = new Hints(true, false, false, false);
        /** stops or ends what a session runs; doing it again changes nothing more */
        public static final Hints ENDS = new Hints(false, true, true, false);
        /** interrupts or ends what a session runs; each signal is a new event */
        public static final Hints SIGNALS = new Hints(false, true, false, false);
        /** changes a session's setting to a given value */
        public static final Hints SETS = new Hints(false, false, true, false);
    }
}
