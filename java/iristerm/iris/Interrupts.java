package iristerm.iris;

import java.util.List;

/**
 * The error an interrupt (Signal INT) raises in user code. IRIS's documentation names it
 * {@code <INTERRUPT>}, and IRIS's own classes {@code <EXTERNAL INTERRUPT>} (%SYS.DBSRV,
 * %Atelier.v7.TerminalAgent); until the live check LC-INT settles which an instance raises, every
 * check of an interrupt accepts both (and the second does not contain the first).
 */
public final class Interrupts {
    private Interrupts() {
    }

    /** every name of the error */
    public static final List<String> CODES = List.of("<INTERRUPT>", "<EXTERNAL INTERRUPT>");
    /** the names, as a check that expected one says it */
    public static final String EXPECTED = String.join(" or ", CODES);

    /** Whether {@code code} ($ZERROR's code, as a done mark decomposes it) is an interrupt's. */
    public static boolean is(String code) {
        return code != null && CODES.contains(code);
    }

    /** Whether {@code text} (a session's output) shows an interrupt's error. */
    public static boolean shownIn(String text) {
        return text != null && CODES.stream().anyMatch(text::contains);
    }
}
