package iristerm.http;

import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import iristerm.security.OriginPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The browser view alone on a listener of its own, with no MCP endpoint beside it: a stdio server's
 * ({@code stdio --ui}), whose MCP travels on stdin and stdout. The same {@code Host}/{@code Origin} guard as the
 * standalone server's runs before the view, and its connection timeouts are the standalone server's defaults.
 */
public final class UiListener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UiListener.class);
    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CONNECTION_IDLE = Duration.ofSeconds(120);
    /** the view's own requests are small (a sign-in form, typed keys); its handler bounds them more tightly */
    private static final long MAX_BODY_BYTES = 64 * 1024;

    private final Undertow undertow;
    private final InetSocketAddress address;

    private UiListener(Undertow undertow) {
        this.undertow = undertow;
        this.address = (InetSocketAddress) undertow.getListenerInfo().get(0).getAddress();
    }

    /**
     * Serves {@code ui} under {@code /ui} on {@code host:port} (port 0: a free one).
     *
     * @throws RuntimeException if the address cannot be bound
     */
    public static UiListener start(String host, int port, HttpHandler ui) {
        HttpHandler guarded = new OriginGuard(OriginPolicy.forListenHost(host, List.of()), ui);
        Undertow undertow = Undertow.builder()
                .addHttpListener(port, host)
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, (int) HEADER_TIMEOUT.toMillis())
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, (int) CONNECTION_IDLE.toMillis())
                .setHandler(exchange -> {
                    exchange.setMaxEntitySize(MAX_BODY_BYTES);
                    if ((exchange.getRequestPath() + "/").startsWith("/ui/")) {
                        guarded.handleRequest(exchange);
                    } else {
                        Responses.error(exchange, 404, ErrorCodes.INVALID_REQUEST,
                                "Not found; this listener serves only the browser view, at /ui/ (MCP is on stdio)");
                    }
                })
                .build();
        undertow.start();
        UiListener listener = new UiListener(undertow);
        LOG.info("browser view listening on {}", listener.page());
        return listener;
    }

    /** The view's page, {@code http://host:port/ui/}. */
    public URI page() {
        return McpHttpServer.local(address, "/ui/");
    }

    @Override
    public void close() {
        undertow.stop();
    }
}
