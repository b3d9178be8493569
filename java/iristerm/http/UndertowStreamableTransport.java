package iristerm.http;

import java.time.Duration;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.undertow.io.Receiver;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.SameThreadExecutor;

/**
 * The MCP endpoint on Undertow: hands each request to the {@link StreamableCore} and streams its
 * answers. It expects to sit behind authentication, which leaves the caller's identity in the
 * {@link #IDENTITY} attachment.
 *
 * <p>Undertow IO threads only hand requests over: everything that may run SDK or tool code runs
 * on a worker thread, and streams are written without blocking anyone.
 */
public final class UndertowStreamableTransport implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(UndertowStreamableTransport.class);

    /** Exchange attachment where the authentication layer leaves the caller's identity. */
    public static final AttachmentKey<String> IDENTITY = AttachmentKey.create(String.class);

    private final StreamableCore core;
    private final Duration keepAlive;
    private final HeldBytes held;

    /**
     * @param core      the protocol
     * @param keepAlive interval of the SSE comment sent on idle streams
     * @param held      the budget the streams' unsent bytes count against
     */
    public UndertowStreamableTransport(StreamableCore core, Duration keepAlive, HeldBytes held) {
        if (keepAlive.isNegative() || keepAlive.isZero()) {
            throw new IllegalArgumentException("keep-alive must be positive");
        }
        this.core = core;
        this.keepAlive = keepAlive;
        this.held = held;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) {
        if (exchange.isInIoThread()) {
            exchange.dispatch(this);
            return;
        }
        // Runs on this worker once the handler has returned, with the exchange kept open: Undertow
        // would otherwise end it when the handler returns, before the SDK's work completes.
        exchange.dispatch(SameThreadExecutor.INSTANCE, () -> core.handle(new Exchange(exchange)));
    }

    /** One Undertow request as the core sees it. */
    private final class Exchange implements StreamableExchange {

        private final HttpServerExchange exchange;

        Exchange(HttpServerExchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public String method() {
            return exchange.getRequestMethod().toString();
        }

        @Override
        public String header(String name) {
            return exchange.getRequestHeaders().getFirst(name);
        }

        @Override
        public String identity() {
            return exchange.getAttachment(IDENTITY);
        }

        /**
         * Reads without blocking, refusing a declared or actual length over the cap. The receiver
         * may call back on the IO thread, which must not run SDK or tool code: the rest then goes
         * to a worker.
         */
        @Override
        public void readBody(int limit, Consumer<byte[]> body, Runnable tooLarge) {
            Receiver receiver = exchange.getRequestReceiver();
            receiver.setMaxBufferSize(limit);
            // The receiver may run the callback as a handler call, after which Undertow ends an
            // exchange that was not dispatched: dispatching keeps it open for the SDK's work.
            receiver.receiveFullBytes((ex, bytes) -> ex.dispatch(
                    ex.isInIoThread() ? ex.getConnection().getWorker() : SameThreadExecutor.INSTANCE,
                    () -> body.accept(bytes)), (ex, error) -> {
                if (error instanceof Receiver.RequestToLargeException) {
                    // The connection stays open: ending the exchange drains the rest of the body (up
                    // to the exchange's entity bound, beyond which Undertow cuts the connection), so a
                    // client still sending reads the 413 rather than a reset.
                    tooLarge.run();
                } else {
                    log.debug("Reading request body from {} failed: {}", ex.getSourceAddress(), error.toString());
                    ex.endExchange();
                }
            });
        }

        @Override
        public void respond(Reply reply) {
            if (!exchange.isResponseStarted()) {
                Responses.send(exchange, reply);
            }
        }

        @Override
        public EventStream openEventStream() {
            return SseStream.open(exchange, keepAlive, held);
        }

        @Override
        public boolean streams() {
            return true;
        }
    }
}
