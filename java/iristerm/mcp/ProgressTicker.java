package iristerm.mcp;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that sends every call's progress notifications, owned by the server assembly and
 * stopped with it. A daemon, so a server that is never closed (a test, a failed start) still exits.
 */
final class ProgressTicker implements AutoCloseable {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "progress");
        t.setDaemon(true);
        return t;
    });

    ScheduledFuture<?> every(long millis, Runnable tick) {
        return scheduler.scheduleAtFixedRate(tick, millis, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
