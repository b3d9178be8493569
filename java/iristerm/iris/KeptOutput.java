package iristerm.iris;

import iristerm.session.EngineSink;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A sink that keeps everything an engine delivers and wakes whoever waits on it: for driving an
 * {@link IrisEngine} without a session (the doctor's probe, the benchmark's floor, tests).
 */
public final class KeptOutput implements EngineSink {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private boolean exited;

    @Override
    public synchronized void output(byte[] bytes, int offset, int length) {
        out.write(bytes, offset, length);
        notifyAll();
    }

    @Override
    public synchronized void exited(Integer exitCode, String signal) {
        exited = true;
        notifyAll();
    }

    @Override
    public synchronized long end() {
        return out.size();
    }

    @Override
    public synchronized void changed() {
        notifyAll();
    }

    /** An IRIS engine starts no process here, so nothing carries a marker. */
    @Override
    public String marker() {
        return "";
    }

    public synchronized String text() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The output from byte {@code from} to byte {@code to}, or null when that is not within what was kept. */
    public synchronized String text(long from, long to) {
        if (from < 0 || to < from || to > out.size()) {
            return null;
        }
        return new String(out.toByteArray(), (int) from, (int) (to - from), StandardCharsets.UTF_8);
    }

    public synchronized boolean exited() {
        return exited;
    }

    /** Waits until {@code done} holds, at most {@code millis}; whether it does. */
    public synchronized boolean await(BooleanSupplier done, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!done.getAsBoolean()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }
}
