package iristerm.mcp;

/**
 * Whether a caller may run OS processes. Standalone servers decide once for everybody; the
 * IRIS-hosted server asks IRIS about each caller's privileges.
 */
@FunctionalInterface
public interface ProcessGate {

    /** Null when {@code caller} may open a process session, otherwise why not (shown as the tool error). */
    String refusal(Caller caller);

    /** The same answer for every caller: {@code offReason}, or null when the engine is on. */
    static ProcessGate fixed(String offReason) {
        return caller -> offReason;
    }
}
