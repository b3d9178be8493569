package iristerm.bench;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.ToLongFunction;

/**
 * The CPU time a server process has used, in nanoseconds, by group of its threads (one reading of
 * /proc/PID/task, see {@link Servers#threadCpu}): what a missed start or first-call target spent
 * its CPU on.
 */
record ThreadCpu(Map<Group, Long> nanos) {

    /** Thread groups, in the order they are printed. */
    enum Group {
        MAIN("main"),
        START_PREPARATION("start-preparation"),
        JIT("JIT compiler"),
        GC("GC"),
        VM("VM"),
        REQUESTS("request threads"),
        SESSIONS("session threads"),
        /** threads gone before the reading: /proc/PID/task no longer lists them, the process's CPU clock still counts them */
        ENDED("ended threads"),
        OTHER("other");

        final String label;

        Group(String label) {
            this.label = label;
        }
    }

    /** How the parts say what "ended threads" are. */
    static final String ENDED_NOTE = "a thread that ended before a reading is no longer listed there: its CPU counts as "
            + "'ended threads', the process's CPU clock (clock_gettime) less the live threads'";

    /** What the parts print where there is no reading. */
    static final String NOT_HERE = "n/a (no /proc/PID/task or process CPU clock on this system)";

    ThreadCpu {
        nanos = Map.copyOf(nanos);
    }

    /**
     * The group of a thread by its name as the kernel keeps it (/proc/…/comm: the first 15 bytes of
     * the Java thread's name). The JVM's main thread and its primordial thread (which only waits) are
     * both "java". The VM thread runs safepoint operations, GC pauses' coordination among them, so it
     * is a group of its own rather than GC's.
     */
    static Group group(String comm) {
        if (comm.equals("java")) {
            return Group.MAIN;
        }
        if (comm.startsWith("start-preparati")) {
            return Group.START_PREPARATION;
        }
        if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
            return Group.JIT;
        }
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
            return Group.GC;
        }
        if (comm.startsWith("VM Thread") || comm.startsWith("VM Periodic")) {
            return Group.VM;
        }
        if (comm.startsWith("stdio-request") || comm.startsWith("XNIO") || comm.startsWith("undertow")) {
            return Group.REQUESTS;
        }
        if (comm.startsWith("session") || comm.startsWith("mcp-session")) {
            return Group.SESSIONS;
        }
        return Group.OTHER;
    }

    long of(Group g) {
        return nanos.getOrDefault(g, 0L);
    }

    long total() {
        long sum = 0;
        for (long n : nanos.values()) {
            sum += n;
        }
        return sum;
    }

    /** What was used between {@code earlier} and {@code later}; null if either reading is missing. */
    static ThreadCpu between(ThreadCpu earlier, ThreadCpu later) {
        if (earlier == null || later == null) {
            return null;
        }
        Map<Group, Long> d = new EnumMap<>(Group.class);
        for (Group g : Group.values()) {
            d.put(g, later.of(g) - earlier.of(g));
        }
        return new ThreadCpu(d);
    }

    /** Each group's median over several readings (none missing); they need not add up to the median total. */
    static ThreadCpu medians(Collection<ThreadCpu> readings) {
        Map<Group, Long> m = new EnumMap<>(Group.class);
        for (Group g : Group.values()) {
            m.put(g, median(readings, r -> r.of(g)));
        }
        return new ThreadCpu(m);
    }

    static long median(Collection<ThreadCpu> readings, ToLongFunction<ThreadCpu> figure) {
        return Stats.median(readings.stream().mapToLong(figure).toArray());
    }

    /** Groups below this are left out of {@link #largest}: noise beside the hundreds of ms of a start. */
    private static final double LARGE_MS = 10;

    /** The groups that used at least {@link #LARGE_MS}, largest first, as "JIT compiler 330, main 200" (ms). */
    String largest() {
        StringJoiner j = new StringJoiner(", ");
        nanos.entrySet().stream()
                .filter(e -> Stats.ms(e.getValue()) >= LARGE_MS)
                .sorted(Map.Entry.<Group, Long>comparingByValue().reversed())
                .forEach(e -> j.add(String.format(Locale.ROOT, "%s %.0f", e.getKey().label, Stats.ms(e.getValue()))));
        return j.toString();
    }

    /** Every group's milliseconds in {@link Group} order, as "main 200, start-preparation 0, JIT compiler 330". */
    String all() {
        StringJoiner j = new StringJoiner(", ");
        for (Group g : Group.values()) {
            j.add(String.format(Locale.ROOT, "%s %.0f", g.label, Stats.ms(of(g))));
        }
        return j.toString();
    }

    /** Per call over {@code calls} calls: "3.650 ms per interaction, JIT compiler 2.400 of it (66%)". */
    String perCall(int calls) {
        long total = total();
        return String.format(Locale.ROOT, "%.3f ms per interaction, JIT compiler %.3f of it (%.0f%%)",
                Stats.ms(total) / calls, Stats.ms(of(Group.JIT)) / calls, total > 0 ? 100.0 * of(Group.JIT) / total : 0);
    }
}
