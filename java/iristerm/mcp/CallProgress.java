package iristerm.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.session.AnsiCleaner;
import iristerm.session.OutputLog;
import iristerm.session.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * notifications/progress for one tool call whose request carried a progressToken: while the call
 * waits on a session, about once a second, the bytes the session wrote since the wait began (the
 * progress value) and its last line (the message). A tick with no new output sends nothing, because
 * the protocol requires each notification's progress to be larger than the one before.
 *
 * <p>A modern call (MCP 2026-07-28) can also be cancelled while it waits: the client closed its
 * stream. The wait then ends (see {@link WaitInterrupt}); the terminal session goes on.
 */
final class CallProgress {
    private static final Logger LOG = LoggerFactory.getLogger(CallProgress.class);
    /** calls without a token: watching does nothing */
    static final CallProgress NONE = new CallProgress(null, null, null, null);
    private static final long TICK_MILLIS = 1000;
    /** how far back the last line is looked for, and how much of it a message shows */
    private static final int LINE_PROBE_BYTES = 4096;
    private static final int MESSAGE_CHARS = 200;

    private final ProgressTicker ticker;
    private final Consumer<McpSchema.ProgressNotification> sender;
    private final Object token;
    /** completes when the client cancels the call; null where a call cannot be cancelled */
    private final CompletableFuture<Void> cancelled;

    private CallProgress(ProgressTicker ticker, Consumer<McpSchema.ProgressNotification> sender, Object token,
            CompletableFuture<Void> cancelled) {
        this.ticker = ticker;
        this.sender = sender;
        this.token = token;
        this.cancelled = cancelled;
    }

    /**
     * @param sender    delivers a notification to the client (null: nowhere to send, no progress)
     * @param cancelled completes when the client cancels the call, or null
     */
    static CallProgress of(ProgressTicker ticker, Consumer<McpSchema.ProgressNotification> sender,
            McpSchema.Request request, CompletableFuture<Void> cancelled) {
        Object token = sender == null ? null : request.progressToken();
        return token == null && cancelled == null ? NONE : new CallProgress(ticker, sender, token, cancelled);
    }

    /**
     * Reports on {@code session}, and lets a cancellation end the wait, until the returned watch is
     * closed; close it when the wait is over.
     */
    Watch watch(Session session) {
        Watch interrupt = cancelled == null ? () -> { } : WaitInterrupt.during(cancelled);
        if (token == null) {
            return interrupt;
        }
        Ticking ticking = new Ticking(session, session.log().end());
        ticking.future = ticker.every(TICK_MILLIS, ticking::tick);
        return () -> {
            ticking.close();
            interrupt.close();
        };
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
                sender.accept(new McpSchema.ProgressNotification(token, (double) received, null,
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
