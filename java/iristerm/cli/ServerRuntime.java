package iristerm.cli;

import iristerm.iris.IrisApi;
import iristerm.iris.IrisCalls;
import iristerm.iris.IrisMethod;
import iristerm.mcp.ProcessGate;
import iristerm.mcp.ServerAssembly;
import iristerm.mcp.ServerContext;
import iristerm.process.Orphans;
import iristerm.session.SessionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What every serving mode runs: the sessions, the IRIS connection (if any) and the assembled tools. */
final class ServerRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServerRuntime.class);
    /** pty4j's system property for the parent of the folder it unpacks its native library into */
    private static final String PTY4J_FOLDER = "pty4j.tmpdir";

    final SessionManager sessions;
    final IrisCalls iris;
    final ServerAssembly assembly;

    /**
     * @param iris      IRIS to use, or null for none
     * @param processOn whether the process engine is on (the caller applied its mode's policy)
     */
    ServerRuntime(CommonOptions options, IrisCalls iris, boolean processOn, String offReason) {
        this.iris = iris;
        keepPtyNativesIn(options.dataDir.resolve("native"));
        if (iris != null) {
            // fail at start, not at the first tool call, when IRIS is wrong (classes missing, bad login)
            String ping = new IrisApi(iris).call(IrisMethod.PING, IrisApi.request()).toString();
            LOG.info("IRIS at {} answers: {}", iris.describe(), ping);
            // and where its session jobs will connect back (refused across a network unless --iris-link says so)
            LOG.info("IRIS session jobs will connect back to {}", iris.linkAddress());
        }
        this.sessions = options.sessionManager();
        Orphans.endAside(sessions.orphanMarkers(), CommonOptions.GRACE_MILLIS);
        ServerContext ctx = new ServerContext(sessions, options.limits(), options.identity,
                ProcessGate.fixed(processOn ? null : offReason));
        this.assembly = new ServerAssembly(ctx, iris == null ? null : new IrisApi(iris));
    }

    /**
     * pty4j unpacks its native library on first use, by default into a new temporary folder per start
     * that is never removed (it is not empty at exit). Given a folder of its own it reuses one
     * subfolder there, re-copying only files whose checksum changed (a new pty4j version).
     */
    private static void keepPtyNativesIn(Path folder) {
        if (System.getProperty(PTY4J_FOLDER) != null) {
            return;
        }
        try {
            Files.createDirectories(folder);
            System.setProperty(PTY4J_FOLDER, folder.toAbsolutePath().toString());
        } catch (IOException e) {
            LOG.warn("cannot create {} ({}); the pty library unpacks into a temporary folder instead", folder,
                    e.getMessage());
        }
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
