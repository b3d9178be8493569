package iristerm.iris;

import iristerm.session.SessionException;

/** IRIS could not be reached or refused the connection; the message names where and what to check. */
public class IrisUnavailableException extends SessionException {
    public IrisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
