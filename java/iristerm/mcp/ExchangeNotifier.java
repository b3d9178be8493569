package iristerm.mcp;

import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.session.NotifyTarget;
import iristerm.session.Session;

/**
 * Pushes a session's output and exit to the client that opened it with notify, as MCP logging
 * notifications whose logger names the session.
 */
record ExchangeNotifier(McpSyncServerExchange exchange) implements NotifyTarget {
    @Override
    public void output(Session session, String text) {
        send(McpSchema.LoggingLevel.INFO, session, text);
    }

    @Override
    public void exited(Session session) {
        send(McpSchema.LoggingLevel.NOTICE, session, "session " + session.id() + " exited"
                + (session.exitCode() != null ? " with code " + session.exitCode() : "")
                + (session.exitSignal() != null ? " (signal " + session.exitSignal() + ")" : ""));
    }

    private void send(McpSchema.LoggingLevel level, Session session, String text) {
        exchange.loggingNotification(McpSchema.LoggingMessageNotification.builder()
                .level(level)
                .logger("session/" + session.id())
                .data(text)
                .build());
    }
}
