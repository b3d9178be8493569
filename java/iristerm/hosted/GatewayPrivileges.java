package iristerm.hosted;

import com.intersystems.gateway.GatewayContext;

/**
 * {@code $SYSTEM.Security.Check(resource, permission)} in the IRIS process that called this JVM,
 * through the External Java Server's connection, so IRIS evaluates the caller's own roles.
 */
final class GatewayPrivileges implements IrisPrivileges {

    @Override
    public boolean holds(String resource, String permission) {
        Boolean held = GatewayContext.getIRIS().classMethodBoolean("%SYSTEM.Security", "Check", resource, permission);
        return Boolean.TRUE.equals(held);
    }
}
