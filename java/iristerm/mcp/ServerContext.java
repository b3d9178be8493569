package iristerm.mcp;

import iristerm.session.SessionManager;

/**
 * What the tools work on. {@code localIdentity} owns the sessions of callers a transport did not
 * authenticate (stdio). {@code process} says who may run OS processes.
 */
public record ServerContext(SessionManager sessions, Limits limits, String localIdentity, ProcessGate process) {
}
