package iristerm.iris;

import java.util.List;

/**
 * Field names of the Terminal.Session JSON contract (docs/iris-contract.md). {@link #FIELDS_READ}
 * is every field Java reads from a class method's answer; a test checks that the ObjectScript
 * produces each. The link's own vocabulary (hello, marks, inbound lines) is in {@link LinkProtocol}.
 */
public final class IrisFields {
    private IrisFields() {
    }

    public static final String FAULT = "fault";
    public static final String CODE = "code";
    public static final String MESSAGE = "message";
    public static final String NAMESPACE = "namespace";
    public static final String PID = "pid";
    /** Ping (and, from the classes of a later version, Audit and Signal): $USERNAME of the calling process */
    public static final String USER = "user";
    /** Audit: 1 when IRIS kept the record, 0 when it kept none (auditing off, the event disabled) */
    public static final String AUDITED = "audited";
    /** Ping: $ROLES of the calling process */
    public static final String ROLES = "roles";
    /** Ping: the Terminal classes' version */
    public static final String VERSION = "version";
    /** Ping: $ZVERSION */
    public static final String IRIS = "iris";
    /** Ping with "check": [{"check","ok","detail"}] */
    public static final String CHECKS = "checks";
    public static final String CHECK = "check";
    public static final String OK = "ok";
    public static final String DETAIL = "detail";

    public static final List<String> FIELDS_READ = List.of(FAULT, CODE, MESSAGE, NAMESPACE, PID, USER, AUDITED, ROLES,
            VERSION, IRIS, CHECKS, CHECK, OK, DETAIL);
}
