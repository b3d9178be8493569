package iristerm.session;

/**
 * A failure the caller can act on: the message says what was wrong and what to do. Tools turn it
 * into an MCP tool error ({@code isError: true}); it never reaches a client as a stack trace.
 */
public class SessionException extends RuntimeException {
    public SessionException(String message) {
        super(message);
    }

    public SessionException(String message, Throwable cause) {
        super(message, cause);
    }
}
