package iristerm.session;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The on-disk copy of a session's output, byte for byte at the same offsets as the in-memory log,
 * except that text sent as {@code secret} is masked with '*' of the same length (a PTY echoes what
 * it is sent). To catch a secret split across two writes, the last bytes that could begin one are
 * held back until the next write or {@link #close()}.
 */
public final class Transcript implements AutoCloseable {
    private final Path file;
    private final FileChannel channel;
    /** the most log bytes the file takes; what comes later is not kept (--max-transcript-bytes) */
    private final long limit;
    /** the room all transcripts of the data directory share (--max-data-bytes) */
    private final DataBudget budget;
    private boolean full;
    private final List<byte[]> secrets = new ArrayList<>();
    private byte[] held = new byte[0];
    private long written;

    /** A transcript without a size limit. */
    public Transcript(Path file) {
        this(file, Long.MAX_VALUE, new DataBudget(Long.MAX_VALUE));
    }

    /** A transcript that keeps at most {@code limit} bytes, and only while {@code budget} has room for them. */
    public Transcript(Path file, long limit, DataBudget budget) {
        this.file = file;
        this.limit = limit;
        this.budget = budget;
        try {
            this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.READ);
            this.written = channel.size();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open transcript " + file, e);
        }
        budget.counted(written);
    }

    public Path file() {
        return file;
    }

    /** Bytes already in the file, i.e. the log offset where the next write lands once held bytes are out. */
    public synchronized long size() {
        return written;
    }

    /** Whether the limit was reached, so that output after {@link #size()} is not kept here. */
    public synchronized boolean full() {
        return full;
    }

    public synchronized void addSecret(String secret) {
        if (!secret.isEmpty()) {
            secrets.add(secret.getBytes(StandardCharsets.UTF_8));
        }
    }

    public synchronized void write(byte[] b, int off, int len) {
        if (secrets.isEmpty() && held.length == 0) {
            // written straight from the caller's buffer: the channel copies it, no copy of ours needed
            writeFully(b, off, len);
            return;
        }
        byte[] data = concat(held, b, off, len);
        mask(data);
        int keep = secrets.isEmpty() ? 0 : longestSecretPrefixSuffix(data);
        writeFully(data, 0, data.length - keep);
        held = Arrays.copyOfRange(data, data.length - keep, data.length);
    }

    /** Reads up to {@code max} bytes at {@code offset}; bytes still held back are not yet readable here. */
    public synchronized byte[] read(long offset, int max) {
        int n = (int) Math.max(0, Math.min(max, written - offset));
        ByteBuffer buf = ByteBuffer.allocate(n);
        // a closed transcript (an ended session) holds no descriptor: each read opens the file briefly
        try (FileChannel reading = channel.isOpen() ? null : FileChannel.open(file, StandardOpenOption.READ)) {
            FileChannel from = reading != null ? reading : channel;
            while (buf.hasRemaining()) {
                if (from.read(buf, offset + buf.position()) < 0) {
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read transcript " + file, e);
        }
        return Arrays.copyOf(buf.array(), buf.position());
    }

    /** Writes out bytes held back for secret masking: no more output will follow them. */
    private void flushHeld() {
        writeFully(held, 0, held.length);
        held = new byte[0];
    }

    @Override
    public synchronized void close() {
        if (!channel.isOpen()) {
            return;
        }
        flushHeld();
        try {
            channel.force(false);
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close transcript " + file, e);
        }
    }

    /**
     * Writes up to the limit and as far as the data directory's budget has room. At either bound the
     * file gets a closing note after the last kept byte; it is not counted in {@link #size()}, so reads
     * of this run never serve it as output, while the history of the session after a restart ends with it.
     */
    private void writeFully(byte[] data, int offset, int len) {
        if (len == 0 || full) {
            return;
        }
        int allowed = (int) Math.min(len, limit - written);
        int kept = (int) budget.take(allowed);
        try {
            ByteBuffer buf = ByteBuffer.wrap(data, offset, kept);
            while (buf.hasRemaining()) {
                written += channel.write(buf, written);
            }
            if (kept < len) {
                full = true;
                String why = kept < allowed
                        ? "the data directory's limit of " + budget.max() + " bytes for all transcripts was reached"
                        : "transcript limit of " + limit + " bytes reached";
                ByteBuffer note = ByteBuffer.wrap(("\n[iris-terminal-mcp: " + why + "; later output was not kept]\n")
                        .getBytes(StandardCharsets.UTF_8));
                for (long at = written; note.hasRemaining(); ) {
                    at += channel.write(note, at);
                }
                // counted although past the limit: the budget holds what the files take on disk
                budget.counted(note.limit());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write transcript " + file, e);
        }
    }

    private void mask(byte[] data) {
        for (byte[] secret : secrets) {
            for (int i = 0; i + secret.length <= data.length; i++) {
                if (regionMatches(data, i, secret, secret.length)) {
                    Arrays.fill(data, i, i + secret.length, (byte) '*');
                    i += secret.length - 1;
                }
            }
        }
    }

    private int longestSecretPrefixSuffix(byte[] data) {
        int best = 0;
        for (byte[] secret : secrets) {
            for (int k = Math.min(secret.length - 1, data.length); k > best; k--) {
                if (regionMatches(data, data.length - k, secret, k)) {
                    best = k;
                    break;
                }
            }
        }
        return best;
    }

    private static boolean regionMatches(byte[] data, int at, byte[] secret, int len) {
        for (int j = 0; j < len; j++) {
            if (data[at + j] != secret[j]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] concat(byte[] head, byte[] b, int off, int len) {
        byte[] out = Arrays.copyOf(head, head.length + len);
        System.arraycopy(b, off, out, head.length, len);
        return out;
    }
}
