package iristerm.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProviderBase;
import iristerm.session.NotifyTarget;
import iristerm.session.Session;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;

/**
 * Pushes a session's output and exit to the MCP session that opened it with notify, as logging
 * notifications whose logger names the terminal session. They go through the transport to that
 * client's session (over HTTP: its GET stream), not through the exchange of the opening call,
 * whose response stream is long closed by then.
 */
record ExchangeNotifier(McpServerTransportProviderBase transport, String mcpSession) implements NotifyTarget {
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(5);

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
        McpSchema.LoggingMessageNotification n = McpSchema.LoggingMessageNotification.builder()
                .level(level)
                .logger("session/" + session.id())
                .data(text)
                .build();
        // sent from a worker so the wait keeps its bound: on stdio the sending thread itself writes to
        // stdout, which a client that stopped reading would hold for as long as it likes
        transport.notifyClient(mcpSession, McpSchema.METHOD_NOTIFICATION_MESSAGE, n)
                .subscribeOn(Schedulers.boundedElastic()).block(SEND_TIMEOUT);
    }
}
