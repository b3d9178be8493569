package iristerm.iris;

import com.intersystems.gateway.GatewayContext;

/**
 * Hosted mode: calls back into the IRIS process that called this JVM, through the External Java
 * Server's connection. That connection belongs to the calling gateway thread, so this works only
 * on it — the hosted server runs every tool there (immediate execution).
 */
public final class ReentrantIrisCalls implements IrisCalls {
    @Override
    public String call(IrisMethod method, String requestJson) {
        try {
            return GatewayContext.getIRIS().classMethodString(IrisMethod.CLASS, method.method(), requestJson);
        } catch (RuntimeException e) {
            throw new IrisUnavailableException("the call back into IRIS (" + IrisMethod.CLASS + "." + method.method()
                    + ") failed: " + e.getMessage() + "; it works only on the gateway thread IRIS called in on", e);
        }
    }

    @Override
    public boolean anyThread() {
        return false;
    }

    @Override
    public boolean runsAsCaller() {
        return true;
    }

    @Override
    public String describe() {
        return "the calling IRIS process (reentrant)";
    }
}
