package iristerm.bench;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * A process's CPU-time clock (clock_gettime(2) through JNA, which pty4j already ships): all its
 * threads, those that have ended included, in nanoseconds. /proc/PID/stat keeps the ended threads'
 * time too, but in 10 ms ticks, too coarse for a phase of a few hundred ms.
 */
final class ProcessClock {
    private interface LibC extends Library {
        /** {@code timespec} is a struct timespec: seconds and nanoseconds, two longs on 64-bit Linux */
        int clock_gettime(int clockId, long[] timespec);
    }

    private static final LibC LIBC = load();

    private ProcessClock() {
    }

    private static LibC load() {
        try {
            return Native.load("c", LibC.class);
        } catch (LinkageError | RuntimeException e) {
            return null;
        }
    }

    /** The CPU time process {@code pid} has used, or -1 (the process is gone; no C library; not Linux). */
    static long nanos(long pid) {
        if (LIBC == null) {
            return -1;
        }
        // Linux's clock id for a whole process's scheduler CPU time, as clock_getcpuclockid(3) makes it:
        // the pid's complement shifted by three, CPUCLOCK_SCHED (2) in the low bits
        int clock = (~(int) pid << 3) | 2;
        long[] timespec = new long[2];
        try {
            return LIBC.clock_gettime(clock, timespec) == 0 ? timespec[0] * 1_000_000_000L + timespec[1] : -1;
        } catch (LinkageError | RuntimeException e) {
            return -1;
        }
    }
}
