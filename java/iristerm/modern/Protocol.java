package iristerm.modern;

import java.util.List;

/**
 * The names and numbers of MCP 2026-07-28 ("modern": no initialize, every request carries its
 * version and the client's capabilities in {@code params._meta}) that both transports and the
 * modern server use.
 */
public final class Protocol {
    /** the one modern revision served; legacy revisions stay reachable through initialize */
    public static final String VERSION = "2026-07-28";
    public static final List<String> SUPPORTED = List.of(VERSION);

    public static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
    public static final String META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    public static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
    public static final String META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
    public static final String META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
    public static final String META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

    /** the HTTP headers do not match the body, or a required one is missing or malformed */
    public static final int HEADER_MISMATCH = -32020;
    public static final int UNSUPPORTED_VERSION = -32022;

    public static final String METHOD_DISCOVER = "server/discover";
    public static final String METHOD_LISTEN = "subscriptions/listen";
    public static final String NOTIFICATION_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

    private Protocol() {
    }

    /** Whether a version names the modern era (revisions are dates, so they compare as strings). */
    public static boolean isModern(String version) {
        return version != null && version.compareTo(VERSION) >= 0;
    }
}
