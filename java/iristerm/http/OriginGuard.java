package iristerm.http;

import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import iristerm.security.OriginPolicy;

/**
 * Rejects requests whose {@code Host} or {@code Origin} the {@link OriginPolicy} does not allow
 * (403), and gives allowed browser origins the CORS headers without which a page could not read
 * the responses. Sits before authentication because CORS preflights carry no credentials.
 */
final class OriginGuard implements HttpHandler {

    private static final HttpString ALLOW_ORIGIN = new HttpString("Access-Control-Allow-Origin");
    private static final HttpString ALLOW_METHODS = new HttpString("Access-Control-Allow-Methods");
    private static final HttpString ALLOW_HEADERS = new HttpString("Access-Control-Allow-Headers");
    private static final HttpString EXPOSE_HEADERS = new HttpString("Access-Control-Expose-Headers");
    private static final HttpString MAX_AGE = new HttpString("Access-Control-Max-Age");
    private static final String REQUEST_HEADERS = String.join(", ", "Authorization", "Content-Type", "Accept",
            HttpHeaders.MCP_SESSION_ID, HttpHeaders.PROTOCOL_VERSION, HttpHeaders.LAST_EVENT_ID);

    private final OriginPolicy policy;
    private final HttpHandler next;

    OriginGuard(OriginPolicy policy, HttpHandler next) {
        this.policy = policy;
        this.next = next;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        String host = exchange.getRequestHeaders().getFirst(Headers.HOST);
        if (!policy.allowsHost(host)) {
            Responses.error(exchange, 403, ErrorCodes.INVALID_REQUEST, "Host not allowed: " + host);
            return;
        }
        String origin = exchange.getRequestHeaders().getFirst(Headers.ORIGIN);
        int port = exchange.getDestinationAddress().getPort();
        if (!policy.allowsOrigin(origin, port)) {
            Responses.error(exchange, 403, ErrorCodes.INVALID_REQUEST, "Origin not allowed: " + origin);
            return;
        }
        if (origin != null) {
            exchange.getResponseHeaders()
                    .put(ALLOW_ORIGIN, origin)
                    .put(Headers.VARY, "Origin")
                    .put(EXPOSE_HEADERS, HttpHeaders.MCP_SESSION_ID + ", WWW-Authenticate");
            if (Methods.OPTIONS.equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders()
                        .put(ALLOW_METHODS, "GET, POST, DELETE")
                        .put(ALLOW_HEADERS, REQUEST_HEADERS)
                        .put(MAX_AGE, "600");
                Responses.empty(exchange, 204);
                return;
            }
        }
        next.handleRequest(exchange);
    }
}
