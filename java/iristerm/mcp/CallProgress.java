package iristerm.mcp;

import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.session.AnsiCleaner;
import iristerm.session.OutputLog;
import iristerm.session.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;

/**
 * notifications/progress for one tool call whose request carried a progressToken: while the call
 * waits on a session, about once a second, the bytes the session wrote since the wait began (the
 * progress value) and its last line (the message). A tick with no new output sends nothing, because
 * the protocol requires each notification's progress to be larger than the one before.
 */
final class CallProgress {
    private static final Logger LOG = LoggerFactory.getLogger(CallProgress.class);
    /** calls without a token: watching does nothing */
    static final CallProgress NONE = new CallProgress(null, null, null);
    private static final long TICK_MILLIS = 1000;
    /** how far back the last line is looked for, and how much of it a message shows */
    private static final int LINE_PROBE_BYTES = 4096;
    private static final int MESSAGE_CHARS = 200;

    private final ProgressTicker ticker;
    private final McpSyncServerExchange exchange;
    private final Object token;

    private CallProgress(ProgressTicker ticker, McpSyncServerExchange exchange, Object token) {
        this.ticker = ticker;
        this.exchange = exchange;
        this.token = token;
    }

    static CallProgress of(ProgressTicker ticker, McpSyncServerExchange exchange, McpSchema.Request request) {
        Object token = request.progressToken();
        return token == null || exchange == null ? NONE : new CallProgress(ticker, exchange, token);
    }

    /** Reports on {@code session} until the returned watch is closed; close it when the wait is over. */
    Watch watch(Session session) {
        if (token == null) {
            return () -> { };
        }
        Ticking ticking = new Ticking(session, session.log().end());
        ticking.future = ticker.every(TICK_MILLIS, ticking::tick);
        return ticking;
    }

    /** A watch ends without a checked exception, so try-with-resources needs no catch. */
    interface Watch extends AutoCloseable {
        @Override
        void close();
    }

    private final class Ticking implements Watch {
        private final Session session;
        private final long start;
        private long sent;
        private boolean closed;
        private volatile ScheduledFuture<?> future;

        Ticking(Session session, long start) {
            this.session = session;
            this.start = start;
        }

        /** Under the watch's lock, so nothing is sent once close has returned (the answer may be on its way). */
        synchronized void tick() {
            long received = session.log().end() - start;
            if (closed || received <= sent) {
                return;
            }
            sent = received;
            try {
                exchange.progressNotification(new McpSchema.ProgressNotification(token, (double) received, null,
                        lastLine(session.log(), start)));
            } catch (RuntimeException e) {
                // the client went away or its stream is closed: the call's own answer reports what matters
                LOG.debug("progress notification not delivered: {}", e.toString());
            }
        }

        @Override
        public void close() {
            ScheduledFuture<?> f = future;
            if (f != null) {
                f.cancel(false);
            }
            synchronized (this) {
                closed = true;
            }
        }
    }

    private static String lastLine(OutputLog log, long start) {
        long end = log.end();
        OutputLog.Slice tail = log.read(Math.max(start, end - LINE_PROBE_BYTES), LINE_PROBE_BYTES);
        String text = AnsiCleaner.clean(new String(tail.bytes(), StandardCharsets.UTF_8)).stripTrailing();
        String line = text.substring(text.lastIndexOf('\n') + 1).strip();
        return line.length() > MESSAGE_CHARS ? line.substring(0, MESSAGE_CHARS) + "…" : line;
    }
}
