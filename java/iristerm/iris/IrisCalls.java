package iristerm.iris;

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

    @Override
    default void close() {
    }
}
