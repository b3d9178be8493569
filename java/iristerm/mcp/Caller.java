package iristerm.mcp;

import io.modelcontextprotocol.server.McpSyncServerExchange;

/**
 * Who is calling: the identity the transport authenticated (a bearer token's identity over HTTP,
 * the IRIS user in hosted mode), or the server's local identity on stdio; the legacy MCP session's
 * exchange, if the call came through one (null for a modern, stateless call and outside MCP); and
 * where this call's progress goes, if the client asked for it.
 */
public record Caller(String identity, McpSyncServerExchange exchange, CallProgress progress, boolean modern) {
    /** key under which transports put the authenticated identity into the MCP transport context */
    public static final String IDENTITY_KEY = "identity";

    static Caller of(McpSyncServerExchange exchange, String fallback) {
        Object id = exchange == null || exchange.transportContext() == null
                ? null : exchange.transportContext().get(IDENTITY_KEY);
        return new Caller(id instanceof String s && !s.isBlank() ? s : fallback, exchange, CallProgress.NONE, false);
    }

    Caller withProgress(CallProgress progress) {
        return new Caller(identity, exchange, progress, modern);
    }
}
