package iristerm.process;

import iristerm.session.Delivery;
import iristerm.session.SessionException;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Writes one session's input on a thread of its own. A program that stops reading its input blocks
 * a write to its pipe or terminal for as long as it does not read, which no Java stream can bound or
 * interrupt: here that blocks only this thread, and a caller waits at most its bound for its input
 * to go in, then learns how much did. What was not taken stays queued, in order, and goes in as the
 * program reads; a new input that would take the queue past {@link #QUEUE_CAP} bytes is refused
 * whole. The thread starts with the first input and ends once the engine is closed and it is idle
 * or its write fails (the program's end closes its side, which fails a blocked write).
 */
final class InputWriter {
    /**
     * Bytes per write: at most PIPE_BUF, which a pipe takes whole or not at all, so what the queue
     * counts as written is what the program can read
     */
    static final int CHUNK = 4096;
    /** Input bytes a session holds for a program that is not reading (a paste into a busy program fits). */
    static final int QUEUE_CAP = 1 << 20;

    private final OutputStream out;
    private final String threadName;
    private final ArrayDeque<Input> queue = new ArrayDeque<>();
    private long queuedBytes;
    private IOException failure;
    private boolean closed;
    /** a write is on its way to the program: the program may have read it even if it ended since */
    private boolean writing;
    private Thread thread;

    /** One input: its bytes and how many of them the program has been given. Guarded by the writer. */
    private static final class Input {
        final byte[] bytes;
        int written;

        Input(byte[] bytes) {
            this.bytes = bytes;
        }
    }

    InputWriter(OutputStream out, String threadName) {
        this.out = out;
        this.threadName = threadName;
    }

    /**
     * Queues {@code bytes} behind earlier input and waits at most {@code waitMillis} for the program to
     * take them.
     *
     * @throws IOException      the program's input is closed (it ended), now or earlier
     * @throws SessionException earlier input still waits and this one would take the queue past its cap
     */
    synchronized Delivery write(byte[] bytes, long waitMillis) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (closed) {
            throw new IOException("the session's input is closed");
        }
        if (queuedBytes > 0 && queuedBytes + bytes.length > QUEUE_CAP) {
            throw new SessionException("the program has not read " + queuedBytes + " bytes of earlier input (it is "
                    + "busy, stopped, or waiting for something else), and this input would take what waits for it past "
                    + QUEUE_CAP + " bytes; nothing of it was written. Wait until the program reads (session_read "
                    + "shows what it does), interrupt it (session_signal INT), or close the session.");
        }
        Input input = new Input(bytes);
        queue.addLast(input);
        queuedBytes += bytes.length;
        if (thread == null) {
            thread = new Thread(this::run, threadName);
            thread.setDaemon(true);
            thread.start();
        }
        notifyAll();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        try {
            for (long left = waitMillis; input.written < bytes.length && failure == null && left > 0;
                 left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
                wait(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null && input.written < bytes.length) {
            throw failure;
        }
        return new Delivery(input.written, bytes.length);
    }

    /**
     * Ends the thread once it is idle; queued input the program never took is dropped, and its callers told.
     * A write on its way is not judged here: the program may have read it and then ended (a line that made it
     * exit), which the writer learns when the write returns.
     */
    synchronized void close() {
        closed = true;
        if (!writing) {
            dropQueued();
        }
        notifyAll();
    }

    /** Must hold the lock. What is queued will never be read: dropped, and its callers told. */
    private void dropQueued() {
        if (!queue.isEmpty() && failure == null) {
            failure = new IOException("the program ended before it read this input");
        }
        queue.clear();
        queuedBytes = 0;
    }

    private void run() {
        try {
            while (true) {
                Input input;
                int from;
                int len;
                synchronized (this) {
                    while (queue.isEmpty() && !closed) {
                        wait();
                    }
                    if (queue.isEmpty()) {
                        return;
                    }
                    input = queue.peekFirst();
                    from = input.written;
                    len = Math.min(CHUNK, input.bytes.length - from);
                    writing = true;
                }
                // outside the lock: this is the call that may block while the program does not read
                out.write(input.bytes, from, len);
                out.flush();
                synchronized (this) {
                    writing = false;
                    input.written += len;
                    queuedBytes -= len;
                    if (input.written == input.bytes.length) {
                        queue.removeFirst();
                    }
                    if (closed) {
                        // the engine closed while this went in: the rest will not be read
                        dropQueued();
                    }
                    notifyAll();
                }
            }
        } catch (IOException e) {
            synchronized (this) {
                writing = false;
                failure = e;
                queue.clear();
                queuedBytes = 0;
                notifyAll();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
