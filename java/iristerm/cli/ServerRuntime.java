package iristerm.cli;

import iristerm.iris.IrisApi;
import iristerm.iris.IrisCalls;
import iristerm.iris.IrisMethod;
import iristerm.mcp.ProcessGate;
import iristerm.mcp.ServerAssembly;
import iristerm.mcp.ServerContext;
import iristerm.session.SessionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every serving mode runs: the sessions, the IRIS connection (if any) and the assembled tools. */
final class ServerRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServerRuntime.class);

    final SessionManager sessions;
    final IrisCalls iris;
    final ServerAssembly assembly;

    /**
     * @param iris      IRIS to use, or null for none
     * @param processOn whether the process engine is on (the caller applied its mode's policy)
     */
    ServerRuntime(CommonOptions options, IrisCalls iris, boolean processOn, String offReason) {
        this.iris = iris;
        if (iris != null) {
            // fail at start, not at the first tool call, when IRIS is wrong (classes missing, bad login)
            String ping = new IrisApi(iris).call(IrisMethod.PING, IrisApi.request()).toString();
            LOG.info("IRIS at {} answers: {}", iris.describe(), ping);
        }
        this.sessions = options.sessionManager();
        ServerContext ctx = new ServerContext(sessions, options.limits(), options.identity,
                ProcessGate.fixed(processOn ? null : offReason));
        this.assembly = new ServerAssembly(ctx, iris == null ? null : new IrisApi(iris));
    }

    @Override
    public void close() {
        assembly.close();
        sessions.close();
        if (iris != null) {
            iris.close();
        }
    }
}
