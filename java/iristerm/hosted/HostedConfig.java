package iristerm.hosted;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * What an administrator can set for the IRIS-hosted server. The JVM is started by IRIS, so each
 * setting is a JVM argument of the External Java Server ({@code -Diristerm.hosted...}, which wins)
 * or a variable of its environment.
 *
 * @param dataDir        session metadata and transcripts
 * @param processEnabled whether the process engine may be used at all (then per user by privilege)
 * @param allowedOrigins browser origins that may call the endpoint; requests without Origin always may
 * @param sessionNamespace where an iris session starts when the agent names no namespace; null: the endpoint's
 *                         own namespace. Terminal.Installer sets it where the endpoint lives in a namespace of its
 *                         own, which agents can read but not write
 */
record HostedConfig(Path dataDir, boolean processEnabled, Set<String> allowedOrigins, String sessionNamespace) {

    static final String DATA_DIR_PROPERTY = "iristerm.hosted.dataDir";
    static final String DATA_DIR_ENV = "IRIS_TERMINAL_HOSTED_DATA_DIR";
    static final String PROCESS_PROPERTY = "iristerm.hosted.process";
    static final String PROCESS_ENV = "IRIS_TERMINAL_HOSTED_PROCESS";
    static final String ORIGINS_PROPERTY = "iristerm.hosted.origins";
    static final String ORIGINS_ENV = "IRIS_TERMINAL_HOSTED_ORIGINS";
    static final String SESSION_NAMESPACE_PROPERTY = "iristerm.hosted.sessionNamespace";
    static final String SESSION_NAMESPACE_ENV = "IRIS_TERMINAL_HOSTED_SESSION_NAMESPACE";

    HostedConfig {
        allowedOrigins = allowedOrigins.stream().map(HostedConfig::normalize).collect(Collectors.toUnmodifiableSet());
    }

    /** From this JVM's system properties and environment. */
    static HostedConfig fromSystem() {
        return from(System::getProperty, System::getenv);
    }

    static HostedConfig from(UnaryOperator<String> properties, UnaryOperator<String> environment) {
        String dir = setting(properties.apply(DATA_DIR_PROPERTY), environment.apply(DATA_DIR_ENV));
        if (dir == null) {
            // no shared, guessable default (such as one under /tmp): Terminal.Gateway.Define puts it under the mgr directory
            throw new IllegalStateException("no data directory is set for the bridge. An administrator should run "
                    + "do ##class(Terminal.Gateway).Define() (it adds -D" + DATA_DIR_PROPERTY + "=<mgr dir>iris-terminal-mcp/ "
                    + "to the External Java Server's JVM arguments) and then do ##class(Terminal.Gateway).Restart()");
        }
        Path dataDir = Path.of(dir);
        boolean process = "on".equalsIgnoreCase(setting(properties.apply(PROCESS_PROPERTY),
                environment.apply(PROCESS_ENV)));
        String origins = setting(properties.apply(ORIGINS_PROPERTY), environment.apply(ORIGINS_ENV));
        Set<String> allowed = origins == null ? Set.of()
                : Arrays.stream(origins.split(",")).map(String::strip).filter(o -> !o.isEmpty())
                        .collect(Collectors.toSet());
        String sessionNamespace = setting(properties.apply(SESSION_NAMESPACE_PROPERTY),
                environment.apply(SESSION_NAMESPACE_ENV));
        return new HostedConfig(dataDir, process, allowed, sessionNamespace);
    }

    /** Whether a request's Origin header (null when absent: not a browser) may use the endpoint. */
    boolean allowsOrigin(String origin) {
        return origin == null || allowedOrigins.contains(normalize(origin));
    }

    private static String setting(String property, String environment) {
        String value = property != null && !property.isBlank() ? property : environment;
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static String normalize(String origin) {
        String o = origin.strip().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }
}
