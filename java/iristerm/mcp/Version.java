package iristerm.mcp;

/** The jar's version, from its manifest (absent when run from classes, e.g. in an IDE). */
public final class Version {
    private Version() {
    }

    public static String current() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
