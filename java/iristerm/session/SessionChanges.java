package iristerm.session;

/**
 * A counter of changes to the sessions a viewer may list (one opened, output written, one ended),
 * for watchers that wait for the next change instead of asking again and again: the manager bumps
 * it, a watcher waits (bounded) for it to move past the value it last saw.
 */
public final class SessionChanges {
    private long version;

    synchronized void changed() {
        version++;
        notifyAll();
    }

    public synchronized long version() {
        return version;
    }

    /** Waits at most {@code timeoutMillis} for the count to differ from {@code seen}; returns the count then. */
    public synchronized long awaitChange(long seen, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (version == seen) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                break;
            }
            wait(left);
        }
        return version;
    }
}
