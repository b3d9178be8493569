package iristerm.process;

import java.util.Collection;
import java.util.List;

/**
 * What sessions of an earlier run left running when their server died without ending them (SIGKILL,
 * a crash): every server mode, standalone or the IRIS-hosted bridge, ends it as it starts. Apart from
 * {@link ProcessEngine} so that a start with nothing to end loads no process (PTY) class.
 */
public final class Orphans {
    private Orphans() {
    }

    /**
     * Ends the processes carrying any of {@code markers}, TERM then KILL after {@code graceMillis}, on a
     * thread of its own: a start does not wait for it, and it ends once they are gone, a few seconds at most.
     */
    public static void endAside(Collection<String> markers, long graceMillis) {
        if (markers.isEmpty()) {
            return;
        }
        List<String> ours = List.copyOf(markers);
        Thread t = new Thread(() -> ProcessEngine.endOrphans(ours, graceMillis), "end-orphans");
        t.setDaemon(true);
        t.start();
    }
}
