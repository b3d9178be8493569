package iristerm.mcp;

import iristerm.session.SessionManager;

/**
 * What the tools work on. {@code localIdentity} owns the sessions of callers a transport did not
 * authenticate (stdio). {@code processOff} is null when the process engine is on, otherwise the
 * reason it is off.
 */
public record ServerContext(SessionManager sessions, Limits limits, String localIdentity, String processOff) {
}
