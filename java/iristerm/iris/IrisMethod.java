package iristerm.iris;

/**
 * Every class method Java calls in IRIS, in one place, so that a test can hold the list against
 * the .cls sources. Each takes one JSON object string and returns one (docs/iris-contract.md).
 */
public enum IrisMethod {
    PING("Ping"),
    OPEN("Open"),
    SIGNAL("Signal"),
    AUDIT("Audit");

    public static final String CLASS = "Terminal.Session";
    /** every method takes exactly one argument, the request JSON */
    public static final int ARITY = 1;

    private final String method;

    IrisMethod(String method) {
        this.method = method;
    }

    public String method() {
        return method;
    }

    /** Safe to repeat after a dropped connection: it changes nothing in IRIS (a repeated Audit would record twice). */
    public boolean idempotent() {
        return this == PING;
    }
}
