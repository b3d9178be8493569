package iristerm.hosted;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import iristerm.iris.FakeIrisCalls;
import iristerm.iris.IrisCalls;
import iristerm.iris.IrisMethod;
import iristerm.iris.IrisUnavailableException;

/**
 * The External Java Server as the bridge meets it, simulated over {@link FakeIrisCalls}: IRIS calls
 * in on a new gateway thread per request, and a call back into IRIS works only on that thread, as
 * that request's user (GatewayContext's connection is a ThreadLocal). Anything the bridge did off
 * the calling thread would fail here as it would in IRIS.
 */
final class FakeGateway implements IrisCalls, IrisPrivileges {

    private final FakeIrisCalls instance;
    private final ThreadLocal<FakeIrisCalls> connection = new ThreadLocal<>();
    /** Users holding %IRISTerminal_OS:USE. */
    final Set<String> osUsers = ConcurrentHashMap.newKeySet();
    /** Users holding %Admin_Secure:USE. */
    final Set<String> admins = ConcurrentHashMap.newKeySet();
    /** Every thread IRIS was called back on, in order. */
    final List<Thread> callbacks = new CopyOnWriteArrayList<>();
    /** How often a privilege was checked. */
    final AtomicInteger privilegeChecks = new AtomicInteger();
    /** The request JSON of every Audit, in order. */
    final List<String> audits = new CopyOnWriteArrayList<>();

    FakeGateway(FakeIrisCalls instance) {
        this.instance = instance;
    }

    /** Runs {@code request} as IRIS calling into the JVM as {@code user}, on a new gateway thread. */
    String call(String user, Request request) throws InterruptedException {
        AtomicReference<String> answer = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread gateway = new Thread(() -> {
            connection.set(instance.asUser(user));
            try {
                answer.set(request.run(Thread.currentThread()));
            } catch (Throwable t) {
                failure.set(t);
            } finally {
                connection.remove();
            }
        }, "gateway-" + user);
        gateway.start();
        gateway.join(60_000);
        if (gateway.isAlive()) {
            throw new AssertionError("the bridge call did not return within 60 s");
        }
        if (failure.get() != null) {
            throw new AssertionError("the bridge call threw", failure.get());
        }
        return answer.get();
    }

    /** A bridge call made on the gateway thread it is given. */
    interface Request {
        String run(Thread gateway) throws Exception;
    }

    private FakeIrisCalls here() {
        FakeIrisCalls c = connection.get();
        if (c == null) {
            throw new IrisUnavailableException("called back into IRIS on " + Thread.currentThread().getName()
                    + ", which is not a gateway thread IRIS called in on", null);
        }
        callbacks.add(Thread.currentThread());
        return c;
    }

    @Override
    public String call(IrisMethod method, String requestJson) {
        FakeIrisCalls connection = here();
        if (method == IrisMethod.AUDIT) {
            audits.add(requestJson);
        }
        return connection.call(method, requestJson);
    }

    /** As the reentrant calls it stands for: IRIS only on a gateway thread. */
    @Override
    public boolean anyThread() {
        return false;
    }

    /** As the reentrant calls: every call runs as the user of the request it came in on. */
    @Override
    public boolean runsAsCaller() {
        return true;
    }

    @Override
    public String describe() {
        return "fake gateway";
    }

    @Override
    public boolean holds(String resource, String permission) {
        FakeIrisCalls c = here();
        privilegeChecks.incrementAndGet();
        Set<String> holders = HostedProcessPolicy.RESOURCE.equals(resource) ? osUsers
                : "%Admin_Secure".equals(resource) ? admins : Set.of();
        return "USE".equals(permission) && holders.contains(c.user());
    }
}
