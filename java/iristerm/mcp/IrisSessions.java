package iristerm.mcp;

import iristerm.session.Session;

/** Opens iris sessions for session_open; the IRIS tools provide it. */
@FunctionalInterface
interface IrisSessions {
    Session open(Caller caller, Args args);
}
