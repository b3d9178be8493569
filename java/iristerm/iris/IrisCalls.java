package iristerm.iris;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The one way into IRIS. Implementations: over the Native API ({@link NativeIrisCalls},
 * standalone), reentrant through the External Java Server's connection ({@link ReentrantIrisCalls},
 * hosted), and a fake in the tests.
 */
public interface IrisCalls extends AutoCloseable {
    /**
     * Calls {@code Terminal.Session.<method>(requestJson)} and returns its JSON answer.
     *
     * @throws IrisUnavailableException when IRIS cannot be reached; the message says what to check
     */
    String call(IrisMethod method, String requestJson);

    /** Where this reaches IRIS, for messages (never includes a password). */
    String describe();

    /**
     * Whether {@link #call} works on any thread. Reentrant calls work only on the gateway thread of
     * a request, so a server thread of its own (idle timeout, shutdown) must not call IRIS at all.
     */
    default boolean anyThread() {
        return true;
    }

    /**
     * Whether IRIS runs each call as the MCP caller's own IRIS user (hosted: the caller's identity is
     * {@code $USERNAME} of the request's process), so that the session job, and the Audit and Signal calls,
     * must run as the identity that owns the session. Over the Native API every identity is served by one
     * IRIS user, so there is nothing to compare.
     */
    default boolean runsAsCaller() {
        return false;
    }

    /**
     * Where this server listens for the links of the session jobs this IRIS starts (port 0: any free
     * one): an address the IRIS host can reach. Default: loopback, for an IRIS on this machine.
     */
    default InetSocketAddress linkAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    @Override
    default void close() {
    }
}
