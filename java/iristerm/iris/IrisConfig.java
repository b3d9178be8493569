package iristerm.iris;

/** Where the standalone server reaches IRIS over the Native API. The password is never printed. */
public record IrisConfig(String host, int port, String namespace, String user, String password, int maxConnections) {
    @Override
    public String toString() {
        return user + "@" + host + ":" + port + "/" + namespace;
    }
}
