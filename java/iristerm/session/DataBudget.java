package iristerm.session;

/**
 * The bytes all transcripts of a data directory may take together ({@code --max-data-bytes}), so that
 * one client's output cannot fill the disk for every identity and the host. A transcript takes room
 * before it writes; when there is none, the oldest ended sessions are removed first (the reclaimer),
 * and a transcript that still finds none keeps no more output (its session's memory tail still has it).
 */
public final class DataBudget {

    /** Removes what the oldest ended session keeps on disk, giving its bytes back; false when there is none. */
    @FunctionalInterface
    public interface Reclaimer {
        boolean reclaimOldest();
    }

    private final long max;
    private Reclaimer reclaimer = () -> false;
    private long used;

    /** @param max bytes all transcripts may take (Long.MAX_VALUE: no limit) */
    public DataBudget(long max) {
        if (max < 1) {
            throw new IllegalArgumentException("the data directory's budget must be positive");
        }
        this.max = max;
    }

    public long max() {
        return max;
    }

    public synchronized long used() {
        return used;
    }

    synchronized void reclaimWith(Reclaimer reclaimer) {
        this.reclaimer = reclaimer;
    }

    /** Counts bytes a transcript already holds (one found at start). */
    synchronized void counted(long bytes) {
        used += bytes;
    }

    /** Gives back the bytes of a transcript that was removed. */
    synchronized void give(long bytes) {
        used -= bytes;
    }

    /** Takes room for up to {@code wanted} bytes, removing ended sessions' files if needed; returns how much it got. */
    synchronized long take(long wanted) {
        while (used + wanted > max && reclaimer.reclaimOldest()) {
            // each round removed one ended session's files and gave their bytes back
        }
        long granted = Math.max(0, Math.min(wanted, max - used));
        used += granted;
        return granted;
    }
}
