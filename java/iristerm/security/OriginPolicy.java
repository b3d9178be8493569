package iristerm.security;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Which {@code Host} and {@code Origin} headers the HTTP server answers, the DNS-rebinding
 * protection the MCP specification requires of local servers.
 *
 * <p>Allowed host names derive from the listen address: a loopback listener answers to
 * {@code 127.0.0.1}, {@code localhost} and {@code [::1]}; a wildcard listener also to the
 * machine's own addresses and host name; any other listener to the name it was given. A
 * rebinding attack reaches the server under the attacker's DNS name, which is never among them.
 *
 * <p>Browsers send {@code Origin}; other clients usually do not, so a missing Origin is allowed.
 * A present Origin must be {@code http://<allowed host name>:<listen port>} or one of the extra
 * origins configured by the administrator ({@code --allow-origin}).
 */
public final class OriginPolicy {

    private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost", "[0:0:0:0:0:0:0:1]");

    private final Set<String> hostNames;
    private final Set<String> extraOrigins;

    private OriginPolicy(Set<String> hostNames, Set<String> extraOrigins) {
        this.hostNames = Set.copyOf(hostNames);
        this.extraOrigins = Set.copyOf(extraOrigins);
    }

    /**
     * @param listenHost   the address the server binds ({@code 127.0.0.1}, {@code 0.0.0.0}, a name…)
     * @param extraOrigins further allowed origins such as {@code https://inspector.example.com}
     * @throws IllegalArgumentException if an extra origin is not {@code scheme://host[:port]}
     */
    public static OriginPolicy forListenHost(String listenHost, Collection<String> extraOrigins) {
        Set<String> names = new HashSet<>();
        String listen = normalizeHost(listenHost);
        if (listen == null) {
            throw new IllegalArgumentException("Invalid listen host: " + listenHost);
        }
        names.add(listen);
        InetAddress address = literalOrResolve(listenHost);
        if (address != null && address.isLoopbackAddress()) {
            names.addAll(LOOPBACK_NAMES);
        }
        if (address != null && address.isAnyLocalAddress()) {
            names.addAll(LOOPBACK_NAMES);
            names.addAll(localNames());
        }
        Set<String> origins = new HashSet<>();
        for (String origin : extraOrigins) {
            String normalized = normalizeOrigin(origin);
            if (normalized == null) {
                throw new IllegalArgumentException("Invalid allowed origin '" + origin
                        + "': expected scheme://host[:port], e.g. https://app.example.com");
            }
            origins.add(normalized);
        }
        return new OriginPolicy(names, origins);
    }

    /**
     * Whether a request's {@code Host} header names this server. The port is not compared: the
     * attack is told apart by the name, and port-forwarding or proxies legitimately change ports.
     */
    public boolean allowsHost(String hostHeader) {
        if (hostHeader == null) {
            return false;
        }
        String host = hostHeader.strip();
        int close = host.lastIndexOf(']');
        int colon = host.lastIndexOf(':');
        if (colon > close) {
            host = host.substring(0, colon);
        }
        String normalized = normalizeHost(host);
        return normalized != null && hostNames.contains(normalized);
    }

    /** Whether a request's {@code Origin} header (null when absent) may use the server on {@code port}. */
    public boolean allowsOrigin(String originHeader, int port) {
        if (originHeader == null) {
            return true;
        }
        String origin = normalizeOrigin(originHeader);
        if (origin == null) {
            return false;
        }
        if (extraOrigins.contains(origin)) {
            return true;
        }
        String prefix = "http://";
        String suffix = ":" + port;
        return origin.startsWith(prefix) && origin.endsWith(suffix)
                && hostNames.contains(origin.substring(prefix.length(), origin.length() - suffix.length()));
    }

    /** {@code scheme://host:port} in lower case with the default port made explicit, or null. */
    private static String normalizeOrigin(String origin) {
        URI uri;
        try {
            uri = new URI(origin.strip());
        } catch (URISyntaxException e) {
            return null;
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean bare = (uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
                && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null;
        if (!("http".equals(scheme) || "https".equals(scheme)) || uri.getHost() == null || !bare) {
            return null;
        }
        String host = normalizeHost(uri.getHost());
        if (host == null) {
            return null;
        }
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(scheme) ? 443 : 80;
        return scheme + "://" + host + ":" + port;
    }

    /**
     * Lower-cased host name, or an IPv6 literal in brackets and full form so that {@code [::1]}
     * and {@code [0:0:0:0:0:0:0:1]} compare equal. Null if it is not a plausible host.
     */
    private static String normalizeHost(String host) {
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.isEmpty()) {
            return null;
        }
        if (h.indexOf(':') >= 0) {
            int scope = h.indexOf('%');
            // In brackets the JDK parses an IPv6 literal or fails; it never looks the name up in
            // DNS, which a request's Host header must not be able to trigger.
            InetAddress v6 = literalOrResolve("[" + (scope >= 0 ? h.substring(0, scope) : h) + "]");
            return v6 == null ? null : "[" + v6.getHostAddress() + "]";
        }
        return h.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_') ? h : null;
    }

    /** The address {@code host} names, or null; literals, and anything in brackets, are never looked up in DNS. */
    private static InetAddress literalOrResolve(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static Set<String> localNames() {
        Set<String> names = new HashSet<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    String name = normalizeHost(address.getHostAddress());
                    if (name != null) {
                        names.add(name);
                    }
                }
            }
        } catch (SocketException e) {
            // no interface list: the loopback names still apply
        }
        try {
            // getHostName, not getCanonicalHostName: no reverse DNS lookup at start
            names.add(InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT));
        } catch (UnknownHostException e) {
            // host name unresolvable: clients must use an address
        }
        return names;
    }
}
