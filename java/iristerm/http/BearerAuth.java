package iristerm.http;

import java.util.Optional;

import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import iristerm.security.Tokens;

/**
 * Requires {@code Authorization: Bearer <token>} (RFC 6750) and hands the token's identity to the
 * transport; answers 401 with a {@code WWW-Authenticate} challenge otherwise.
 */
final class BearerAuth implements HttpHandler {

    static final String CHALLENGE = "Bearer realm=\"iris-terminal-mcp\"";
    private static final String SCHEME = "bearer ";

    private final Tokens tokens;
    private final HttpHandler next;

    BearerAuth(Tokens tokens, HttpHandler next) {
        this.tokens = tokens;
        this.next = next;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        String authorization = exchange.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            reject(exchange, CHALLENGE, "Missing bearer token (Authorization: Bearer <token>)");
            return;
        }
        Optional<String> identity = tokens.identityOf(authorization.substring(SCHEME.length()).strip());
        if (identity.isEmpty()) {
            reject(exchange, CHALLENGE + ", error=\"invalid_token\"", "Invalid bearer token");
            return;
        }
        exchange.putAttachment(UndertowStreamableTransport.IDENTITY, identity.get());
        next.handleRequest(exchange);
    }

    private static void reject(HttpServerExchange exchange, String challenge, String message) {
        exchange.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, challenge);
        Responses.error(exchange, 401, ErrorCodes.INVALID_REQUEST, message);
    }
}
