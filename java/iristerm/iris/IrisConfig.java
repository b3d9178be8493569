package iristerm.iris;

/**
 * Where the standalone server reaches IRIS over the Native API, and where it listens for the
 * session jobs' links ({@code link}: "HOST[:PORT]", or null for the local address of the route to
 * IRIS). The password is never printed.
 */
public record IrisConfig(String host, int port, String namespace, String user, String password, int maxConnections,
                         String link) {
    @Override
    public String toString() {
        return user + "@" + host + ":" + port + "/" + namespace;
    }
}
