package iristerm.http;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import org.xnio.Xnio;
import iristerm.json.Json;
import iristerm.security.OriginPolicy;
import iristerm.security.Tokens;

/**
 * The standalone MCP endpoint: Undertow serving {@code /mcp} on one address, in front of the
 * Streamable HTTP transport ({@link StreamableCore}, streamed by {@link UndertowStreamableTransport}),
 * with the request body capped, request headers and idle connections timed out, {@code Host}/{@code Origin}
 * checked and a bearer token required. The MCP server itself is built by the caller on the transport
 * handed to it, so the tool set is assembled in one place for every way of running.
 */
public final class McpHttpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(McpHttpServer.class);

    public static final String ENDPOINT_PATH = "/mcp";
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(15);

    /**
     * @param host               address to bind; 127.0.0.1 unless remote clients are intended
     * @param port               TCP port; 0 picks a free one (see {@link #port()})
     * @param tokens             bearer tokens and their identities; null only with {@code noAuth}
     * @param originPolicy       allowed Host and Origin headers
     * @param noAuth             serve without tokens, every caller being {@link Tokens#DEFAULT_IDENTITY};
     *                           refused unless {@code host} is a loopback address
     * @param maxBodyBytes       largest accepted request body (413 beyond)
     * @param maxSessionsPerIdentity MCP sessions one identity may hold open (initialize beyond gets 429)
     * @param sessionIdleTimeout MCP sessions no connection carries, with no request for this long, are closed
     * @param keepAliveInterval  how often an idle SSE stream gets a comment line (and a dead client is noticed)
     * @param headerTimeout      a connection that has begun a request must complete its headers within this
     * @param connectionIdleTimeout a connection with no request under way and none begun is closed after this
     * @param maxHeldBytes       the events all MCP sessions together keep for resuming streams (see {@link HeldBytes})
     */
    public record Config(String host, int port, Tokens tokens, OriginPolicy originPolicy, boolean noAuth,
            int maxBodyBytes, int maxSessionsPerIdentity, Duration sessionIdleTimeout, Duration keepAliveInterval,
            Duration headerTimeout, Duration connectionIdleTimeout, long maxHeldBytes) {

        public Config {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(originPolicy, "originPolicy");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0-65535, was " + port);
            }
            if (maxBodyBytes <= 0) {
                throw new IllegalArgumentException("maxBodyBytes must be positive, was " + maxBodyBytes);
            }
            if (maxSessionsPerIdentity <= 0) {
                throw new IllegalArgumentException("maxSessionsPerIdentity must be positive, was "
                        + maxSessionsPerIdentity);
            }
            if (maxHeldBytes <= 0) {
                throw new IllegalArgumentException("maxHeldBytes must be positive, was " + maxHeldBytes);
            }
            requirePositive(sessionIdleTimeout, "sessionIdleTimeout");
            requirePositive(keepAliveInterval, "keepAliveInterval");
            // Undertow takes these as int milliseconds
            requirePositive(headerTimeout, "headerTimeout");
            requirePositive(connectionIdleTimeout, "connectionIdleTimeout");
            if (headerTimeout.toMillis() > Integer.MAX_VALUE || connectionIdleTimeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("headerTimeout and connectionIdleTimeout must be under 24 days");
            }
            if (noAuth && !isLoopback(host)) {
                throw new IllegalArgumentException("Refusing to serve without authentication on " + host
                        + ": that address is reachable from other machines. Listen on 127.0.0.1 (or ::1), "
                        + "or configure a bearer token.");
            }
            if (!noAuth && tokens == null) {
                throw new IllegalArgumentException("Bearer tokens are required unless authentication is disabled");
            }
        }

        private static void requirePositive(Duration duration, String name) {
            Objects.requireNonNull(duration, name);
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + duration);
            }
        }

        private static boolean isLoopback(String host) {
            try {
                return InetAddress.getByName(host).isLoopbackAddress();
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("Cannot resolve listen host " + host, e);
            }
        }
    }

    private final Undertow undertow;
    private final StreamableCore transport;
    private final McpSyncServer mcpServer;
    private final InetSocketAddress address;
    private boolean stopped;

    private McpHttpServer(Undertow undertow, StreamableCore transport, McpSyncServer mcpServer) {
        this.undertow = undertow;
        this.transport = transport;
        this.mcpServer = mcpServer;
        this.address = (InetSocketAddress) undertow.getListenerInfo().get(0).getAddress();
    }

    /**
     * Builds the MCP server with {@code serverFactory} on a new transport and starts listening.
     *
     * @throws RuntimeException if the address cannot be bound (nothing is left running then)
     */
    public static McpHttpServer start(Config config,
            Function<McpStreamableServerTransportProvider, McpSyncServer> serverFactory) {
        return start(config, serverFactory, System::nanoTime, null);
    }

    /**
     * As above, also serving {@code ui} (the browser view, its own authentication) under {@code /ui}, whose
     * streams count their unsent bytes against {@code held} (made of {@link Config#maxHeldBytes}), the budget
     * the MCP endpoint's events and streams count against too.
     */
    public static McpHttpServer start(Config config,
            Function<McpStreamableServerTransportProvider, McpSyncServer> serverFactory, HttpHandler ui,
            HeldBytes held) {
        return start(config, serverFactory, System::nanoTime, ui, held);
    }

    static McpHttpServer start(Config config,
            Function<McpStreamableServerTransportProvider, McpSyncServer> serverFactory, LongSupplier nanoClock,
            HttpHandler ui) {
        return start(config, serverFactory, nanoClock, ui, new HeldBytes(config.maxHeldBytes()));
    }

    private static McpHttpServer start(Config config,
            Function<McpStreamableServerTransportProvider, McpSyncServer> serverFactory, LongSupplier nanoClock,
            HttpHandler ui, HeldBytes held) {
        McpJsonMapper json = Json.MCP;
        StreamableCore transport = new StreamableCore(json, config.maxBodyBytes(), config.maxSessionsPerIdentity(),
                config.sessionIdleTimeout(), nanoClock, new CallLanes(), held);
        McpSyncServer mcpServer = null;
        try {
            mcpServer = Objects.requireNonNull(serverFactory.apply(transport), "serverFactory returned null");
            UndertowStreamableTransport endpoint = new UndertowStreamableTransport(transport,
                    config.keepAliveInterval(), held);
            HttpHandler identified = config.noAuth()
                    ? exchange -> {
                        exchange.putAttachment(UndertowStreamableTransport.IDENTITY, Tokens.DEFAULT_IDENTITY);
                        endpoint.handleRequest(exchange);
                    }
                    : new BearerAuth(config.tokens(), endpoint);
            HttpHandler guarded = new OriginGuard(config.originPolicy(), identified);
            HttpHandler uiGuarded = ui == null ? null : new OriginGuard(config.originPolicy(), ui);
            // A refused body is still read, and discarded, up to this much: a client that is still
            // sending then reads the 413 instead of a connection reset. Beyond it the connection is cut.
            long drainedBodyBytes = 2L * config.maxBodyBytes();
            Undertow undertow = Undertow.builder()
                    .addHttpListener(config.port(), config.host())
                    // Undertow's own cap (2 MiB by default) would refuse bodies before the endpoint sees them,
                    // with a bare 400; each exchange gets its bound below instead.
                    .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, -1L)
                    .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, (int) config.headerTimeout().toMillis())
                    .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT,
                            (int) config.connectionIdleTimeout().toMillis())
                    .setHandler(exchange -> {
                        exchange.setMaxEntitySize(drainedBodyBytes);
                        if (ENDPOINT_PATH.equals(exchange.getRequestPath())) {
                            guarded.handleRequest(exchange);
                        } else if (uiGuarded != null && (exchange.getRequestPath() + "/").startsWith("/ui/")) {
                            uiGuarded.handleRequest(exchange);
                        } else {
                            Responses.error(exchange, 404, ErrorCodes.INVALID_REQUEST,
                                    "Not found; the MCP endpoint is " + ENDPOINT_PATH);
                        }
                    })
                    .build();
            undertow.start();
            McpHttpServer server = new McpHttpServer(undertow, transport, mcpServer);
            log.info("MCP endpoint listening on {}{}", server.endpoint(),
                    config.noAuth() ? " WITHOUT authentication" : "");
            return server;
        } catch (RuntimeException e) {
            if (mcpServer != null) {
                mcpServer.close();
            }
            transport.closeGracefully().block();
            throw e;
        }
    }

    /**
     * Loads and initialises what {@link #start} needs of the HTTP stack and nothing of a listener: XNIO's
     * NIO provider, one per class loader, which on creation registers its management bean with the
     * JVM's platform MBean server (building that server is the larger part). Undertow's start looks
     * the same provider up and finds it ready; a start calls this on a second thread ahead of it.
     */
    public static void prepare() {
        Xnio.getInstance(Undertow.class.getClassLoader());
    }

    /** The bound port (the real one when the configured port was 0). */
    public int port() {
        return address.getPort();
    }

    /** {@code http://host:port/mcp} as local clients reach it (loopback for a wildcard listener). */
    public URI endpoint() {
        return local(address, ENDPOINT_PATH);
    }

    /** {@code http://host:port<path>} of a bound listener as local clients reach it (loopback for a wildcard one). */
    static URI local(InetSocketAddress address, String path) {
        InetAddress ip = address.getAddress().isAnyLocalAddress() ? InetAddress.getLoopbackAddress()
                : address.getAddress();
        String literal = ip.getHostAddress().replaceFirst("%.*$", "");
        String host = ip instanceof Inet6Address ? "[" + literal + "]" : literal;
        return URI.create("http://" + host + ":" + address.getPort() + path);
    }

    /**
     * Closes every MCP session and its streams, waits a bounded time for open responses to end,
     * then stops Undertow. Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            mcpServer.closeGracefully();
        } catch (RuntimeException e) {
            log.warn("Closing the MCP server failed: {}", e.toString());
        }
        // Ends the streams even if the server's close failed; a no-op after a clean close.
        transport.closeGracefully().block();
        undertow.stop();
        log.info("MCP endpoint on port {} stopped", port());
    }

    @Override
    public void close() {
        stop();
    }

    StreamableCore transport() {
        return transport;
    }
}
