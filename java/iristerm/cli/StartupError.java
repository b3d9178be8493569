package iristerm.cli;

import java.net.BindException;

/** A start that cannot go on, said in one line: what failed and what to do about it. */
final class StartupError extends RuntimeException {

    StartupError(String message, Throwable cause) {
        super(message, cause);
    }

    /** The listener could not be opened on {@code address} (HOST:PORT as given to --listen). */
    static StartupError listening(String address, Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return new StartupError("cannot listen on " + address + ": the address is already in use (or not "
                        + "available on this host); stop the server that holds it, or pick a free port with "
                        + "--listen 127.0.0.1:0", failure);
            }
        }
        return new StartupError("cannot listen on " + address + ": " + reason(failure), failure);
    }

    /** The innermost message in a chain of wrapped exceptions: usually the one that names the problem. */
    static String reason(Throwable failure) {
        String found = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                found = t.getMessage();
            }
        }
        return found != null ? found : "an unexpected error without a message";
    }
}
