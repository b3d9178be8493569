package iristerm.doctor;

/**
 * One line of the doctor's table: a check, whether it passed, what was seen, and (when it failed)
 * what to do about it.
 */
public record Finding(String check, boolean ok, String seen, String fix) {
    static Finding passed(String check, String seen) {
        return new Finding(check, true, seen, "");
    }

    static Finding failed(String check, String seen, String fix) {
        return new Finding(check, false, seen, fix);
    }

    /** {@code ok   check: seen} or {@code FAIL check: seen -> fix}, one line. */
    String line() {
        String head = (ok ? "ok  " : "FAIL") + "  " + check + ": " + seen;
        return ok || fix.isEmpty() ? head : head + " -> " + fix;
    }
}
