package iristerm.ui;

/**
 * Who looks through the browser view: an identity that sees and acts on its own sessions, or (IRIS-hosted,
 * a holder of %Admin_Secure:USE) on everyone's, acting as each session's owner so the tools' rules still apply.
 */
public record Viewer(String identity, boolean seesAll) {
    public static Viewer own(String identity) {
        return new Viewer(identity, false);
    }
}
