package iristerm.hosted;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import iristerm.mcp.Caller;
import iristerm.mcp.ProcessGate;

/**
 * The process engine in hosted mode: OS processes run as the IRIS instance's OS user, not as the
 * agent's IRIS user, so it is off unless an administrator enabled it, and then open only to users
 * holding {@code %IRISTerminal_OS:USE}. Checked on every session_open, on the calling thread, so a
 * revoked privilege takes effect at once.
 */
record HostedProcessPolicy(boolean enabled, IrisPrivileges privileges) implements ProcessGate {

    private static final Logger LOG = LoggerFactory.getLogger(HostedProcessPolicy.class);

    static final String RESOURCE = "%IRISTerminal_OS";

    static final String OFF = "kind \"process\" is off on this IRIS-hosted server: OS processes would run as the "
            + "IRIS instance's OS user. An administrator enables it by adding the JVM argument -D"
            + HostedConfig.PROCESS_PROPERTY + "=on to the External Java Server IRISTerminal (Management Portal > "
            + "System Administration > Configuration > Connectivity > External Servers, or "
            + "##class(Terminal.Gateway).Define(,,\"-D" + HostedConfig.PROCESS_PROPERTY + "=on\")) or by setting "
            + HostedConfig.PROCESS_ENV + "=on in its environment, then restarting it with "
            + "do ##class(Terminal.Gateway).Restart(), and by granting " + RESOURCE + ":USE to each user who may "
            + "run OS processes. kind \"iris\" sessions, iris_execute and iris_sql work without it.";

    @Override
    public String refusal(Caller caller) {
        if (!enabled) {
            return OFF;
        }
        try {
            if (privileges.holds(RESOURCE, "USE")) {
                return null;
            }
        } catch (RuntimeException e) {
            // fail closed: no answer from IRIS is no permission
            LOG.warn("checking {}:USE for {} failed: {}", RESOURCE, caller.identity(), e.toString());
            return "could not check whether IRIS user " + caller.identity() + " holds " + RESOURCE + ":USE ("
                    + e.getMessage() + "); OS processes stay refused until the check succeeds";
        }
        return "IRIS user " + caller.identity() + " may not run OS processes: that needs " + RESOURCE
                + ":USE, which an administrator grants through a role (System Administration > Security > "
                + "Users or Roles). kind \"iris\" sessions, iris_execute and iris_sql work without it.";
    }
}
