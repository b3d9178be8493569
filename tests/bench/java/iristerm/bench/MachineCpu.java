package iristerm.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole machine's CPU time so far, all cores together, in clock ticks (the "cpu" line of
 * /proc/stat): how busy the cores were over an interval, with the server and everything else on
 * them, so a start that waited for cores other processes held reads as CPU-bound too.
 */
record MachineCpu(long busyTicks, long allTicks) {

    /** Now; null if /proc/stat cannot tell (not Linux). */
    static MachineCpu now() {
        try {
            String first = Files.readString(Path.of("/proc/stat")).lines().findFirst().orElse("");
            String[] f = first.trim().split("\\s+");
            if (!f[0].equals("cpu")) {
                return null;
            }
            // user nice system idle iowait irq softirq steal: idle and iowait are the cores doing nothing
            long all = 0;
            for (int i = 1; i <= 8 && i < f.length; i++) {
                all += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new MachineCpu(all - idle, all);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The busy share of the cores from {@code earlier} to {@code later}; NaN if either is unknown or no tick passed. */
    static double busy(MachineCpu earlier, MachineCpu later) {
        if (earlier == null || later == null || later.allTicks <= earlier.allTicks) {
            return Double.NaN;
        }
        return (double) (later.busyTicks - earlier.busyTicks) / (later.allTicks - earlier.allTicks);
    }
}
