package iristerm.session;

/** Where a session's pushed output and exit go (an MCP client's logging notifications). */
public interface NotifyTarget {
    void output(Session session, String text);

    void exited(Session session);
}
