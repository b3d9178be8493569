package iristerm.stdio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import iristerm.jsonrpc.InboundMessage;
import iristerm.jsonrpc.Plain;
import iristerm.jsonrpc.Refusal;
import iristerm.jsonrpc.RequestParams;
import reactor.core.publisher.Mono;

/**
 * MCP over newline-delimited JSON-RPC on a stream pair, for one client that spawned the server.
 * Unlike the SDK's stdio transport, no line ends the reading: a blank line is skipped, a line that
 * is not a message is answered with a JSON-RPC error, an over-long line is skipped to its newline
 * and answered too. The SDK's {@link McpServerSession} does the protocol.
 *
 * <p>{@link #serve} reads on the calling thread until the input ends, then waits (bounded) until
 * the requests in flight are answered. Output is written by one thread, one message per line, in
 * the order messages were sent.
 */
public final class StdioTransport implements McpServerTransportProvider {
    private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
    private static final Duration WRITER_CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final McpJsonMapper json;
    private final InputStream in;
    private final OutputStream out;
    private final int maxLineBytes;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "stdio-writer");
        t.setDaemon(true);
        return t;
    });
    /** answers not yet written for messages read so far */
    private final Set<CompletableFuture<Void>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile McpServerSession session;
    private volatile boolean outputFailed;

    /**
     * @param maxLineBytes longest line read as a message; longer ones are refused
     */
    public StdioTransport(McpJsonMapper json, InputStream in, OutputStream out, int maxLineBytes) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("the line limit must be positive");
        }
        this.json = json;
        this.in = in;
        this.out = out;
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        this.session = sessionFactory.create(new SessionTransport());
    }

    /**
     * Reads messages until the input ends, then waits up to {@code drain} for the answers to the
     * requests read so far. Returns when both are done (or the wait is over).
     */
    public void serve(Duration drain) throws IOException {
        if (session == null) {
            throw new IllegalStateException("build the MCP server on this transport before serving");
        }
        LineReader lines = new LineReader(in, maxLineBytes);
        LineReader.Line line;
        while ((line = lines.next()) != null) {
            if (line.overlong()) {
                refuse(new Refusal(ErrorCodes.INVALID_REQUEST, "message of " + line.length()
                        + " bytes exceeds the limit of " + maxLineBytes + " bytes per line", null), "");
            } else if (!line.blank()) {
                accept(line.bytes());
            }
        }
        LOG.debug("stdin closed; waiting for {} answers in flight", inFlight.size());
        awaitInFlight(drain);
    }

    private void accept(byte[] bytes) {
        InboundMessage inbound = InboundMessage.parse(bytes);
        Refusal refusal = inbound.refusal();
        McpSchema.JSONRPCMessage message = inbound.message();
        if (refusal == null && message instanceof McpSchema.JSONRPCRequest request) {
            RequestParams.Checked checked = RequestParams.check(request);
            refusal = checked.refusal();
            message = checked.request();
        }
        if (refusal != null) {
            refuse(refusal, new String(bytes, 0, Math.min(bytes.length, Plain.MAX_CHARS), StandardCharsets.UTF_8));
            return;
        }
        track(session.handle(message).toFuture());
    }

    private void refuse(Refusal refusal, String line) {
        LOG.debug("refused a message ({} {}): {}", refusal.code(), refusal.message(), Plain.of(line));
        track(write(refusal.toJson().getBytes(StandardCharsets.UTF_8)));
    }

    private void track(CompletableFuture<Void> answer) {
        inFlight.add(answer);
        answer.whenComplete((ok, e) -> {
            inFlight.remove(answer);
            if (e != null) {
                LOG.debug("a message could not be handled or answered: {}", e.toString());
            }
        });
    }

    private void awaitInFlight(Duration drain) {
        try {
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new))
                    .get(drain.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("{} requests still unanswered {} after stdin closed; closing anyway", inFlight.size(), drain);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            // each failure was logged where it happened; the others are complete
        }
    }

    /** Queues one line of output (UTF-8, no newline); completes once it is written (or failed to be). */
    private CompletableFuture<Void> write(byte[] message) {
        try {
            return CompletableFuture.runAsync(() -> writeLine(message), writer);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IOException("the stdio transport is closed"));
        }
    }

    private void writeLine(byte[] message) {
        if (outputFailed) {
            throw new IllegalStateException("stdout is closed");
        }
        try {
            out.write(message);
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            // the client stopped reading; later messages have nowhere to go either
            outputFailed = true;
            LOG.warn("writing to stdout failed ({}); no more messages can be sent", e.getMessage());
            throw new IllegalStateException("stdout is closed", e);
        }
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Mono.defer(() -> session == null ? Mono.empty() : session.sendNotification(method, params));
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return Mono.defer(() -> {
            McpServerSession s = session;
            if (s == null || !s.getId().equals(sessionId)) {
                LOG.debug("notification {} for unknown session {} dropped", method, sessionId);
                return Mono.empty();
            }
            return s.sendNotification(method, params);
        });
    }

    /** Writes what is queued (bounded), then refuses further output. */
    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> {
            writer.shutdown();
            try {
                if (!writer.awaitTermination(WRITER_CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.warn("stdout did not take the last messages within {}", WRITER_CLOSE_TIMEOUT);
                    writer.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** The one session's side of the transport: what the SDK session sends goes out through the writer. */
    private final class SessionTransport implements McpServerTransport {
        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.defer(() -> {
                // encoded straight to UTF-8: a large answer (a page of output) is not also held as a String
                byte[] line;
                try {
                    line = json.writeValueAsBytes(message);
                } catch (IOException e) {
                    return Mono.error(e);
                }
                return Mono.fromFuture(write(line));
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return json.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return StdioTransport.this.closeGracefully();
        }
    }
}
