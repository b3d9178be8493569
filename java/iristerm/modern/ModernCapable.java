package iristerm.modern;

/** A transport that serves MCP 2026-07-28 requests beside its legacy sessions, once given the lane. */
public interface ModernCapable {
    void serveModern(ModernLane lane);
}
