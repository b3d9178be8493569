package iristerm.mcp;

import java.util.concurrent.CompletableFuture;

/**
 * Ends a tool's wait on a session when the client cancels the call (MCP 2026-07-28: a closed
 * stream is a cancellation): the waiting thread is interrupted, so the wait ends with an error
 * nobody receives, and the session itself goes on. Only while the wait is on: an interrupt that
 * arrives as the wait ends is cleared when the watch closes, so it never reaches later work of the
 * call (an interrupted thread would close a file channel it writes to). The same for IRIS sessions:
 * their wait is on the session's log, which the job's link reader fills; the waiting thread makes no
 * call to IRIS while it waits, so an interrupt cuts no connection.
 */
final class WaitInterrupt implements CallProgress.Watch {
    private final Thread waiter = Thread.currentThread();
    private boolean waiting = true;

    private WaitInterrupt() {
    }

    static CallProgress.Watch during(CompletableFuture<Void> cancelled) {
        WaitInterrupt w = new WaitInterrupt();
        cancelled.thenRun(w::interrupt);
        return w;
    }

    private synchronized void interrupt() {
        if (waiting) {
            waiter.interrupt();
        }
    }

    @Override
    public synchronized void close() {
        waiting = false;
        // an interrupt sent before this point is for the wait that just ended
        Thread.interrupted();
    }
}
