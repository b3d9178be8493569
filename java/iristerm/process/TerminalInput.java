package iristerm.process;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * Whether the program in a pseudo-terminal's foreground waits for input from it, asked of the Linux kernel
 * instead of guessed from its output. It does when every process of the terminal's foreground process group
 * is asleep in a read of the terminal, or in a poll/select/epoll wait while holding no network socket (vi,
 * top, a shell at its prompt), and the terminal holds no input they have not read yet. Anything else —
 * running, sleeping in a timer, waiting for a child, a socket or a disk — is not an input wait.
 *
 * <p>{@link #waiting} answers null where the kernel cannot be asked (another OS or architecture, /proc or the
 * terminal unreadable); callers then fall back to prompt patterns.
 */
final class TerminalInput {
    private interface LibC extends Library {
        int open(String path, int flags);

        int ioctl(int fd, long request, IntByReference arg);

        int close(int fd);
    }

    private static final int O_RDONLY_NOCTTY_NONBLOCK = 0 | 0400 | 04000;
    private static final long FIONREAD = 0x541B;

    /** The system calls, by number, that mean "reading the terminal" and "waiting on descriptors". */
    private record Calls(Set<Integer> reads, Set<Integer> waits) {
    }

    // x86_64: read, readv, pread64 / poll, select, pselect6, ppoll, epoll_wait, epoll_pwait, epoll_pwait2
    private static final Calls X86_64 = new Calls(Set.of(0, 19, 17), Set.of(7, 23, 270, 271, 232, 281, 441));
    // aarch64 (no poll, select or epoll_wait): read, readv, pread64 / pselect6, ppoll, epoll_pwait, epoll_pwait2
    private static final Calls AARCH64 = new Calls(Set.of(63, 65, 67), Set.of(72, 73, 22, 441));

    /** This machine's detector, or null where the kernel cannot be asked. */
    static final TerminalInput HERE = forThisMachine();

    private final Calls calls;
    private final LibC libc;

    private TerminalInput(Calls calls, LibC libc) {
        this.calls = calls;
        this.libc = libc;
    }

    private static TerminalInput forThisMachine() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        Calls calls = arch.equals("amd64") || arch.equals("x86_64") ? X86_64 : arch.equals("aarch64") ? AARCH64 : null;
        if (!os.contains("linux") || calls == null || !Files.isReadable(Path.of("/proc/self/syscall"))) {
            return null;
        }
        try {
            return new TerminalInput(calls, Native.load("c", LibC.class));
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
    }

    /**
     * Whether the foreground of the terminal that process {@code leader} (the session's program) has as its
     * own waits for input; null when the kernel does not say.
     */
    Boolean waiting(long leader) {
        String[] lead = stat(leader);
        if (lead == null) {
            return null;
        }
        long foreground = Long.parseLong(lead[5]);
        if (foreground <= 0) {
            return null;
        }
        boolean any = false;
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), p -> isNumber(p.getFileName().toString()))) {
            for (Path p : proc) {
                long pid = Long.parseLong(p.getFileName().toString());
                String[] st = stat(pid);
                if (st == null || Long.parseLong(st[2]) != foreground || st[0].equals("Z") || st[0].equals("X")) {
                    continue;
                }
                Boolean blocked = blockedOnInput(pid, st[0]);
                if (blocked == null || !blocked) {
                    return blocked;
                }
                any = true;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (!any) {
            return null;
        }
        Integer unread = unreadInput(leader);
        return unread == null ? null : unread == 0;
    }

    /** One process of the foreground group: asleep in a read of a terminal, or in a wait with no socket. */
    private Boolean blockedOnInput(long pid, String state) {
        if (!state.equals("S")) {
            return false;
        }
        String call = read(Path.of("/proc", Long.toString(pid), "syscall"));
        if (call == null) {
            return null;
        }
        String[] f = call.strip().split(" ");
        if (!isNumber(f[0])) {
            // "running" or "-1 …" (not in a system call)
            return false;
        }
        int nr = Integer.parseInt(f[0]);
        if (calls.reads().contains(nr) && f.length > 1) {
            String target = link(Path.of("/proc", Long.toString(pid), "fd", Long.toString(Long.decode(f[1]))));
            return target != null && isTerminal(target);
        }
        if (calls.waits().contains(nr)) {
            return !holdsSocket(pid);
        }
        return false;
    }

    /** Bytes typed into the terminal (the leader's standard input) that nobody has read yet, or null. */
    private Integer unreadInput(long leader) {
        String tty = link(Path.of("/proc", Long.toString(leader), "fd", "0"));
        if (tty == null || !isTerminal(tty)) {
            return null;
        }
        int fd = libc.open(tty, O_RDONLY_NOCTTY_NONBLOCK);
        if (fd < 0) {
            return null;
        }
        try {
            IntByReference n = new IntByReference();
            return libc.ioctl(fd, FIONREAD, n) == 0 ? n.getValue() : null;
        } finally {
            libc.close(fd);
        }
    }

    private static boolean holdsSocket(long pid) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                String target = link(fd);
                if (target != null && target.startsWith("socket:")) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            // cannot look: say it might, which counts as "not waiting for input"
            return true;
        }
    }

    private static boolean isTerminal(String path) {
        return path.startsWith("/dev/pts/") || path.startsWith("/dev/tty") || path.equals("/dev/console");
    }

    /** The fields of /proc/PID/stat after the command name (state first), or null. */
    private static String[] stat(long pid) {
        String s = read(Path.of("/proc", Long.toString(pid), "stat"));
        if (s == null || s.lastIndexOf(')') < 0) {
            return null;
        }
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return f.length > 5 ? f : null;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String link(Path p) {
        try {
            return Files.readSymbolicLink(p).toString();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
