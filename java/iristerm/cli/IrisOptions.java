package iristerm.cli;

import iristerm.iris.IrisCalls;
import iristerm.iris.IrisConfig;
import iristerm.iris.NativeIrisCalls;
import picocli.CommandLine.Option;

/** Where IRIS is, for the standalone server (Native API over the superserver port). */
final class IrisOptions {
    @Option(names = "--iris-host", paramLabel = "HOST", defaultValue = "${env:IRIS_HOSTNAME}",
            description = "IRIS host; without it the iris tools answer how to configure one (env IRIS_HOSTNAME).")
    String host;

    @Option(names = "--iris-port", paramLabel = "PORT", defaultValue = "${env:IRIS_PORT:-1972}",
            description = "Superserver port (env IRIS_PORT; default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--iris-namespace", paramLabel = "NS", defaultValue = "${env:IRIS_NAMESPACE:-USER}",
            description = "Namespace where the Terminal classes are installed (env IRIS_NAMESPACE; default: ${DEFAULT-VALUE}).")
    String namespace;

    @Option(names = "--iris-user", paramLabel = "USER", defaultValue = "${env:IRIS_USERNAME:-_SYSTEM}",
            description = "IRIS user (env IRIS_USERNAME; default: ${DEFAULT-VALUE}).")
    String user;

    @Option(names = "--iris-password", paramLabel = "PASSWORD", defaultValue = "${env:IRIS_PASSWORD}",
            description = "IRIS password; prefer the environment variable IRIS_PASSWORD, which no process listing shows.")
    String password;

    @Option(names = "--iris-connections", paramLabel = "N", defaultValue = "${env:IRIS_CONNECTIONS:-16}",
            description = "Most concurrent connections to IRIS (env IRIS_CONNECTIONS; default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--iris-link", paramLabel = "HOST[:PORT]", defaultValue = "${env:IRIS_TERMINAL_IRIS_LINK}",
            description = "Where this server listens for the links of its IRIS session jobs: an address the IRIS host "
                    + "can reach (env IRIS_TERMINAL_IRIS_LINK; default: this machine's address on the route to "
                    + "--iris-host, any free port).")
    String link;

    boolean configured() {
        return host != null && !host.isBlank();
    }

    IrisConfig config() {
        if (connections < 1) {
            throw new IllegalArgumentException("--iris-connections must be at least 1");
        }
        return new IrisConfig(host, port, namespace, user, password == null ? "" : password, connections,
                link);
    }

    /** Connects (a failed login is a startup error naming host, port and user); null when no IRIS is configured. */
    IrisCalls connect() {
        return configured() ? new NativeIrisCalls(config()) : null;
    }
}
