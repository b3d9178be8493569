package iristerm.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.jsonrpc.ControlCalls;

/**
 * The threads the standalone server runs MCP requests on. Each identity has lanes of its own, so
 * one identity's calls that wait long (reads of up to {@code --max-wait-ms}, many at once) never
 * hold up another identity's; and within an identity, the calls that stop or end a session
 * ({@link ControlCalls#TOOLS}) have a lane of their own, so they get through whatever that identity's
 * other calls wait for. A lane's threads are made as needed, up to {@link #THREADS}, and end after
 * a minute without work; identities come from the token list, so the lanes are few.
 */
final class CallLanes implements AutoCloseable {
    /** Threads per lane: what the SDK's shared pool had for all identities together (10 per core). */
    static final int THREADS = 10 * Runtime.getRuntime().availableProcessors();
    private static final long IDLE_SECONDS = 60;

    private record Lanes(ThreadPoolExecutor calls, ThreadPoolExecutor control) {
    }

    private final Map<String, Lanes> byIdentity = new ConcurrentHashMap<>();
    private final AtomicInteger threadNumber = new AtomicInteger();
    private volatile boolean closed;

    /**
     * Where {@code identity}'s {@code request} runs.
     *
     * @throws RejectedExecutionException once closed (as the executors then do)
     */
    Executor laneFor(String identity, McpSchema.JSONRPCRequest request) {
        if (closed) {
            throw new RejectedExecutionException("the server is shutting down");
        }
        Lanes lanes = byIdentity.computeIfAbsent(identity, id -> new Lanes(lane(id, "calls"), lane(id, "control")));
        return ControlCalls.isControl(request) ? lanes.control() : lanes.calls();
    }

    private ThreadPoolExecutor lane(String identity, String kind) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, IDLE_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), task -> {
                    Thread t = new Thread(task, "mcp-" + kind + "-" + LogText.brief(identity) + "-"
                            + threadNumber.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Refuses new work; calls still running finish on their threads (shutdown answers them first). */
    @Override
    public void close() {
        closed = true;
        byIdentity.values().forEach(l -> {
            l.calls().shutdown();
            l.control().shutdown();
        });
    }
}
