package iristerm.process;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * kill(2) through JNA (pty4j already ships it): Java's Process can only send TERM and KILL, and
 * only to one process, while a terminal signals process groups.
 */
final class PosixSignals {
    private interface LibC extends Library {
        int kill(int pid, int sig);
    }

    private static final LibC LIBC = Native.load("c", LibC.class);

    private PosixSignals() {
    }

    private static final int ESRCH = 3;

    /** Signals a process group; false when there is no such group (yet, or any more). */
    static boolean killGroup(long pgid, int signal) throws IOException {
        return kill(-pgid, signal);
    }

    /** Signals one process; false when there is no such process. */
    static boolean killProcess(long pid, int signal) throws IOException {
        return kill(pid, signal);
    }

    private static boolean kill(long target, int signal) throws IOException {
        if (Math.abs(target) <= 1) {
            throw new IOException("no process to signal");
        }
        if (LIBC.kill((int) target, signal) == 0) {
            return true;
        }
        int errno = Native.getLastError();
        if (errno == ESRCH) {
            return false;
        }
        throw new IOException("kill(" + target + ", " + signal + ") failed, errno " + errno);
    }

    /**
     * The foreground process group of the terminal {@code pid} is attached to (the job a shell is
     * running, e.g. {@code sleep 100} under bash), or -1 when unknown (no terminal, not Linux).
     */
    static long foregroundGroup(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // fields after the parenthesised command name: state ppid pgrp session tty_nr tpgid
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[5]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
