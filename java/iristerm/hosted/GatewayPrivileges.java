package iristerm.hosted;

import com.intersystems.gateway.GatewayContext;
import iristerm.iris.IrisMethod;

/**
 * What the calling user holds by the roles of their login, asked of {@code Terminal.Session.Holds} in the IRIS
 * process that called this JVM, through the External Java Server's connection. Not {@code $SYSTEM.Security.Check}
 * itself: the request's process also holds the web application's role (and any other application role), which
 * must never count as the user's.
 */
final class GatewayPrivileges implements IrisPrivileges {
    /** the Terminal.Session class method, (resource, permission) → %Boolean */
    static final String METHOD = "Holds";

    @Override
    public boolean holds(String resource, String permission) {
        Boolean held = GatewayContext.getIRIS().classMethodBoolean(IrisMethod.CLASS, METHOD, resource, permission);
        return Boolean.TRUE.equals(held);
    }
}
