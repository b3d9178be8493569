package iristerm.session;

import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Every byte a session writes, addressed by a monotonically increasing offset. Memory keeps a
 * bounded tail in a ring; older bytes are served from the transcript. The log's lock and condition
 * are also the session's: whoever changes what a waiting reader looks at (new output, exit, an
 * engine event) calls {@link #wakeAll()}, and readers wait on {@link #awaitNanos(long)} — the
 * producer releases them, nobody polls.
 */
public final class OutputLog {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final int maxTail;
    private byte[] ring;
    private final Transcript transcript;
    private long end;
    /** bumped by every change a waiting reader may care about, so a waiter can tell it missed none */
    private long version;
    /** offset of the first byte the ring ever received: earlier bytes exist only in the transcript */
    private final long ringStart;
    private boolean released;
    private boolean transcriptFailed;
    private long lastOutputNanos = System.nanoTime();
    /** text sent as secret, masked in what is read from here on (see {@link #addSecret}) */
    private final List<Secret> secrets = new ArrayList<>();
    private int longestSecret;
    private long firstSecretSince;

    /**
     * @param maxTail the most bytes memory keeps; the ring starts small and grows to it, so an idle
     *                session costs little
     */
    public OutputLog(int maxTail, Transcript transcript) {
        this.maxTail = maxTail;
        this.ring = new byte[Math.min(maxTail, INITIAL_TAIL)];
        this.transcript = transcript;
        this.end = transcript == null ? 0 : transcript.size();
        this.ringStart = end;
    }

    public ReentrantLock lock() {
        return lock;
    }

    public void append(byte[] b, int off, int len) {
        if (len == 0) {
            return;
        }
        lock.lock();
        try {
            if (transcript != null && !transcriptFailed) {
                try {
                    transcript.write(b, off, len);
                } catch (RuntimeException e) {
                    // disk full or closed: keep serving from memory; older output is lost, and says so
                    transcriptFailed = true;
                    LoggerFactory.getLogger(OutputLog.class).warn("transcript stopped: {}", e.getMessage());
                }
            }
            grow(len);
            int skip = Math.max(0, len - ring.length);
            long at = end + skip;
            int remaining = len - skip;
            int src = off + skip;
            while (remaining > 0) {
                int pos = (int) (at % ring.length);
                int n = Math.min(remaining, ring.length - pos);
                System.arraycopy(b, src, ring, pos, n);
                at += n;
                src += n;
                remaining -= n;
            }
            end += len;
            lastOutputNanos = System.nanoTime();
            version++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static final int INITIAL_TAIL = 16 * 1024;

    private void grow(int incoming) {
        long held = end - tail();
        if (ring.length >= maxTail || held + incoming <= ring.length) {
            return;
        }
        int size = ring.length;
        while (size < held + incoming && size < maxTail) {
            size = (int) Math.min(maxTail, (long) size * 2);
        }
        byte[] bigger = new byte[size];
        // copy the held bytes in order (at most two runs in the old ring) to their places in the new one
        long at = end - held;
        while (at < end) {
            int from = (int) (at % ring.length);
            int to = (int) (at % size);
            int n = (int) Math.min(end - at, Math.min(ring.length - from, size - to));
            System.arraycopy(ring, from, bigger, to, n);
            at += n;
        }
        ring = bigger;
    }

    /**
     * Once nobody will write again: closes the transcript, which then holds no descriptor between
     * reads, and drops the memory tail when the transcript holds every byte (reads then come from it).
     */
    public void retire() {
        lock.lock();
        try {
            if (transcript != null && !transcriptFailed) {
                transcript.close();
                if (!transcript.full()) {
                    ring = new byte[1];
                    released = true;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    public long end() {
        lock.lock();
        try {
            return end;
        } finally {
            lock.unlock();
        }
    }

    /** First offset still held in memory. */
    public long tailStart() {
        lock.lock();
        try {
            return tail();
        } finally {
            lock.unlock();
        }
    }

    public long lastOutputNanos() {
        lock.lock();
        try {
            return lastOutputNanos;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Up to {@code max} bytes starting at {@code from}. Bytes that left memory come from the
     * transcript; bytes no longer anywhere (no transcript) are skipped, so the result may start later
     * than asked: {@link Slice#from()} says where it does start. Secrets are masked (see {@link #addSecret}):
     * every way out of the session (reads, files, the screen, the transcript resource) comes through here.
     */
    public Slice read(long from, int max) {
        lock.lock();
        try {
            Slice s = held(from, max);
            return secrets.isEmpty() ? s : masked(s);
        } finally {
            lock.unlock();
        }
    }

    /** Must hold the lock. The bytes as the program wrote them. */
    private Slice held(long from, int max) {
        long start = Math.max(0, Math.min(from, end));
        long tail = tail();
        byte[] old = new byte[0];
        if (start < tail) {
            if (transcript != null) {
                old = transcript.read(start, (int) Math.min(max, tail - start));
            }
            if (old.length == 0) {
                start = tail;
            } else if (start + old.length < tail || old.length == max) {
                return new Slice(start, old);
            }
        }
        // the rest comes from memory, right after what the transcript gave
        long at = start + old.length;
        int n = (int) Math.min(max - old.length, end - at);
        byte[] out = Arrays.copyOf(old, old.length + n);
        int dst = old.length;
        while (dst < out.length) {
            int pos = (int) (at % ring.length);
            int k = Math.min(out.length - dst, ring.length - pos);
            System.arraycopy(ring, pos, out, dst, k);
            at += k;
            dst += k;
        }
        return new Slice(start, out);
    }

    /**
     * Must hold the lock. {@code s} with each occurrence of a secret written after it was sent replaced by
     * '*' of the same length (offsets stay those of the output, as in the transcript). An occurrence that
     * crosses the slice's edges is found in the bytes around it; one that the log's end cuts short (an echo
     * whose rest has not come yet) is masked as far as it goes.
     */
    private Slice masked(Slice s) {
        byte[] b = s.bytes();
        if (b.length == 0 || s.next() <= firstSecretSince) {
            return s;
        }
        int pad = longestSecret - 1;
        Slice before = held(Math.max(0, s.from() - pad), (int) Math.min(pad, s.from()));
        int lead = before.next() == s.from() ? before.bytes().length : 0;
        Slice after = held(s.next(), pad);
        int trail = after.from() == s.next() ? after.bytes().length : 0;
        byte[] around = new byte[lead + b.length + trail];
        System.arraycopy(before.bytes(), before.bytes().length - lead, around, 0, lead);
        System.arraycopy(b, 0, around, lead, b.length);
        System.arraycopy(after.bytes(), 0, around, lead + b.length, trail);
        long at = s.from() - lead;
        boolean toEnd = at + around.length == end;
        for (Secret secret : secrets) {
            mask(around, at, toEnd, secret);
        }
        return new Slice(s.from(), Arrays.copyOfRange(around, lead, lead + b.length));
    }

    private static void mask(byte[] data, long at, boolean toEnd, Secret secret) {
        byte[] p = secret.bytes();
        for (int i = (int) Math.max(0, Math.min(data.length, secret.since() - at)); i < data.length; i++) {
            int n = Math.min(p.length, data.length - i);
            if (n < p.length && !toEnd) {
                return;
            }
            if (Arrays.equals(data, i, i + n, p, 0, n)) {
                Arrays.fill(data, i, i + n, (byte) '*');
                i += n - 1;
            }
        }
    }

    private long tail() {
        return released ? end : Math.max(ringStart, end - ring.length);
    }

    /** Wakes every waiting reader so it re-checks its condition. */
    public void wakeAll() {
        lock.lock();
        try {
            version++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Must hold {@link #lock()}: changes so far (output, exit, engine events), to compare after a gap. */
    public long version() {
        return version;
    }

    /** Must hold {@link #lock()}. Returns the nanoseconds left, as {@link Condition#awaitNanos}. */
    public long awaitNanos(long nanos) throws InterruptedException {
        return changed.awaitNanos(nanos);
    }

    public void closeTranscript() {
        lock.lock();
        try {
            if (transcript != null) {
                transcript.close();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Text sent as secret at log offset {@code since}: from there on, every occurrence of each of its lines (a
     * terminal echoes a line break as \r\n) is masked wherever output leaves the session, the transcript included.
     */
    public void addSecret(String secret, long since) {
        lock.lock();
        try {
            for (String line : secret.split("\r\n|\r|\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
                firstSecretSince = secrets.isEmpty() ? since : Math.min(firstSecretSince, since);
                secrets.add(new Secret(bytes, since));
                longestSecret = Math.max(longestSecret, bytes.length);
                if (transcript != null) {
                    transcript.addSecret(line);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private record Secret(byte[] bytes, long since) {
    }

    public record Slice(long from, byte[] bytes) {
        public long next() {
            return from + bytes.length;
        }
    }

}
