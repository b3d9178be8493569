package iristerm.bench;

import java.util.List;
import java.util.Locale;

/**
 * What limits a start: its median wall time beside the median CPU the server used by then, by thread
 * group, and how busy this machine's cores were meanwhile. A start during which the cores are mostly
 * busy is CPU-bound: only less work (or more cores, or fewer other processes on them) makes it faster.
 *
 * @param wallMs      median process start to the point reached
 * @param cpuMs       median CPU of the server by then (all its threads)
 * @param groups      each thread group's median
 * @param machineBusy median busy share of all the cores over the start, the server's and others' work; NaN if unknown
 */
record StartCpu(double wallMs, double cpuMs, ThreadCpu groups, double machineBusy, int cores) {
    /**
     * Busy share of the cores from which a start counts as CPU-bound: the rest of its wall time is too
     * little to be the limit (class loading from the page cache and pipe hand-offs wait a little too).
     */
    static final double CPU_BOUND = 0.75;

    /** The medians of several starts; null if any start has no reading (no /proc) or there are none. */
    static StartCpu of(List<ColdStart.Reached> starts, int cores) {
        if (starts.isEmpty() || starts.stream().anyMatch(s -> s.cpu() == null)) {
            return null;
        }
        List<ThreadCpu> readings = starts.stream().map(ColdStart.Reached::cpu).toList();
        double[] busy = starts.stream().mapToDouble(ColdStart.Reached::machineBusy).sorted().toArray();
        return new StartCpu(Stats.of(starts.stream().mapToLong(ColdStart.Reached::nanos).toArray()).medianMs(),
                Stats.ms(ThreadCpu.median(readings, ThreadCpu::total)), ThreadCpu.medians(readings),
                starts.stream().anyMatch(s -> Double.isNaN(s.machineBusy())) ? Double.NaN : busy[(busy.length - 1) / 2],
                cores);
    }

    /** The least wall time this CPU needs, spread perfectly over the cores. */
    double leastWallMs() {
        return cpuMs / cores;
    }

    /** The share of the cores' time over the wall time that the server used. */
    double serverBusy() {
        return leastWallMs() / wallMs;
    }

    /** By how busy the cores were with everything; by the server's own share where the machine's is unknown. */
    boolean cpuBound() {
        return (Double.isNaN(machineBusy) ? serverBusy() : machineBusy) >= CPU_BOUND;
    }

    /** "the cores 93% busy, 87% with the server" */
    private String busy() {
        return Double.isNaN(machineBusy)
                ? String.format(Locale.ROOT, "the cores %.0f%% busy with the server", serverBusy() * 100)
                : String.format(Locale.ROOT, "the cores %.0f%% busy, %.0f%% with the server", machineBusy * 100,
                        serverBusy() * 100);
    }

    /** One line for the part's breakdown. */
    String reading() {
        return String.format(Locale.ROOT, "%s: %.0f ms CPU over %d cores needs >= %.0f ms of the %.0f ms (%s); "
                        + "of it %s", cpuBound() ? "CPU-bound" : "not CPU-bound", cpuMs, cores, leastWallMs(), wallMs,
                busy(), groups.largest());
    }

    /** Why a missed target was missed, for the Targets summary. */
    String limit() {
        return cpuBound()
                ? String.format(Locale.ROOT, "limited by CPU: %.0f ms to it on %d cores, %s (%s)", cpuMs, cores, busy(),
                        groups.largest())
                : String.format(Locale.ROOT, "not limited by CPU alone: %.0f ms to it on %d cores, %s", cpuMs, cores,
                        busy());
    }
}
