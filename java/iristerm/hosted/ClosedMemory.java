package iristerm.hosted;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * Keeps this JVM's memory from the other processes of its OS user. Agents' session jobs are IRIS processes of
 * the same OS user as the External Java Server, and IRIS checks no file OPEN: where the kernel lets a process read
 * (and write) the memory of another of its user ({@code kernel.yama.ptrace_scope} 0, or no Yama), an agent could
 * open {@code /proc/<jvm>/mem} and read every user's input and output, or write code into the bridge (engine
 * review round 8, E8-1). A process that is not dumpable ({@code prctl(PR_SET_DUMPABLE, 0)}, prctl(2)) has its
 * {@code /proc/<pid>} files owned by root and refuses ptrace to processes without CAP_SYS_PTRACE (proc(5)).
 * That closes only what is opened after it, and the JVM has started and run IRIS's own code before the bridge
 * loads (engine review round 9, E9-1): what keeps that moment closed is the kernel's rule, ptrace_scope 1 or more,
 * which Check's line "process isolation" requires. Neither hides {@code /proc/<pid>/cmdline}, which every process may read
 * (LC-PASSPHRASE).
 */
final class ClosedMemory {
    private static final Logger LOG = LoggerFactory.getLogger(ClosedMemory.class);
    private static final int PR_GET_DUMPABLE = 3;
    private static final int PR_SET_DUMPABLE = 4;

    private interface LibC extends Library {
        int prctl(int option, long arg2, long arg3, long arg4, long arg5);
    }

    private ClosedMemory() {
    }

    /** Makes this process not dumpable, and says so in the log when it could not. Linux only. */
    static void close() {
        try {
            if (!Platform.isLinux()) {
                return;
            }
            LibC libc = Native.load("c", LibC.class);
            libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
            if (libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) {
                LOG.warn("this JVM is still dumpable after prctl(PR_SET_DUMPABLE, 0): processes of its OS user, "
                        + "agents' session jobs among them, may read its memory where kernel.yama.ptrace_scope is 0");
            }
        } catch (LinkageError e) {
            LOG.warn("could not make this JVM not dumpable ({}): processes of its OS user, agents' session jobs "
                    + "among them, may read its memory where kernel.yama.ptrace_scope is 0", e.toString());
        }
    }

    /** What the kernel says of this process: 0 not dumpable, 1 dumpable, -1 not Linux or not asked. */
    static int dumpable() {
        try {
            return Platform.isLinux() ? Native.load("c", LibC.class).prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) : -1;
        } catch (LinkageError e) {
            return -1;
        }
    }
}
