package iristerm.hosted;

/**
 * What IRIS says the calling user holds. Asked on the gateway thread IRIS called in on, where the
 * connection back into IRIS runs as that user.
 */
@FunctionalInterface
interface IrisPrivileges {

    /** Whether the caller holds {@code permission} (e.g. USE) on {@code resource}. */
    boolean holds(String resource, String permission);
}
