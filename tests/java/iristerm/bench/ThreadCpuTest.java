package iristerm.bench;

import iristerm.bench.ThreadCpu.Group;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The benchmark's CPU breakdown: thread names to groups, a process's reading, and what a start's figures say. */
class ThreadCpuTest {
    @Test
    void threadNamesAsTheKernelKeepsThemFallIntoTheirGroups() {
        Map<String, Group> expected = Map.ofEntries(
                Map.entry("java", Group.MAIN),
                Map.entry("start-preparati", Group.START_PREPARATION),
                Map.entry("C1 CompilerThre", Group.JIT),
                Map.entry("C2 CompilerThre", Group.JIT),
                Map.entry("GC Thread#0", Group.GC),
                Map.entry("G1 Conc#0", Group.GC),
                Map.entry("VM Thread", Group.VM),
                Map.entry("VM Periodic Tas", Group.VM),
                Map.entry("stdio-request-1", Group.REQUESTS),
                Map.entry("XNIO-1 I/O-1", Group.REQUESTS),
                Map.entry("session-bash-ou", Group.SESSIONS),
                Map.entry("sessions-timer", Group.SESSIONS),
                Map.entry("Sweeper thread", Group.OTHER),
                Map.entry("javac", Group.OTHER));
        expected.forEach((comm, group) -> assertEquals(group, ThreadCpu.group(comm), comm));
    }

    @Test
    void aPhaseIsTheDifferenceOfItsReadingsAndMediansAreTakenPerGroup() {
        ThreadCpu a = cpu(Group.MAIN, 100, Group.JIT, 50);
        ThreadCpu b = cpu(Group.MAIN, 130, Group.JIT, 110);
        ThreadCpu c = cpu(Group.MAIN, 400, Group.JIT, 70);
        ThreadCpu phase = ThreadCpu.between(a, b);
        assertEquals(30 * MS, phase.of(Group.MAIN));
        assertEquals(60 * MS, phase.of(Group.JIT));
        assertEquals(90 * MS, phase.total());
        assertEquals("0.450 ms per interaction, JIT compiler 0.300 of it (67%)", phase.perCall(200));
        assertEquals(null, ThreadCpu.between(null, b));
        ThreadCpu m = ThreadCpu.medians(List.of(a, b, c));
        assertEquals(130 * MS, m.of(Group.MAIN));
        assertEquals(70 * MS, m.of(Group.JIT));
        assertEquals("main 130, JIT compiler 70", m.largest());
    }

    @Test
    void aBusyStartIsCpuBoundAndItsLimitNamesTheLargestGroups() {
        ThreadCpu groups = cpu(Group.JIT, 330, Group.MAIN, 200, Group.ENDED, 230, Group.GC, 5);
        // 765 ms of CPU in 450 ms on 2 cores: the server alone kept them 85% busy
        StartCpu bound = new StartCpu(450, 765, groups, Double.NaN, 2);
        assertTrue(bound.cpuBound());
        assertEquals("limited by CPU: 765 ms to it on 2 cores, the cores 85% busy with the server "
                + "(JIT compiler 330, ended threads 230, main 200)", bound.limit());
        // the same server CPU over twice the wall: half the cores idle, unless others kept them busy
        assertFalse(new StartCpu(900, 765, groups, Double.NaN, 2).cpuBound());
        assertFalse(new StartCpu(900, 765, groups, 0.50, 2).cpuBound());
        StartCpu shared = new StartCpu(900, 765, groups, 0.97, 2);
        assertTrue(shared.cpuBound());
        assertTrue(shared.reading().startsWith("CPU-bound: 765 ms CPU over 2 cores needs >= 383 ms of the 900 ms "
                + "(the cores 97% busy, 43% with the server)"), shared.reading());
    }

    @Test
    void withoutAReadingThereIsNoBreakdown() {
        // a process that is gone (as every process where there is no /proc): no reading, never a failure
        assertEquals(null, Servers.threadCpu(Long.MAX_VALUE));
        List<ColdStart.Reached> starts = List.of(new ColdStart.Reached(450 * MS, cpu(Group.MAIN, 100), 0.9, 0),
                new ColdStart.Reached(460 * MS, null, Double.NaN, 0));
        assertEquals(null, StartCpu.of(starts, 2));
        assertEquals(null, StartCpu.of(List.of(), 2));
    }

    /** A live process: a thread's CPU shows under its group while it runs, and under "ended threads" after it ended. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aReadingOfThisJvmCountsAThreadByItsNameAndStillAfterItEnded() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "no /proc here");
        long pid = ProcessHandle.current().pid();
        ThreadCpu before = Servers.threadCpu(pid);
        assertNotNull(before);
        CountDownLatch burnt = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread burner = new Thread(() -> {
            burn(BURN_NANOS);
            burnt.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "stdio-request-test");
        burner.start();
        assertTrue(burnt.await(30, TimeUnit.SECONDS));
        ThreadCpu during = Servers.threadCpu(pid);
        release.countDown();
        burner.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(burner.isAlive());
        // join() returns before the kernel drops the thread from /proc/self/task (review N1-2)
        assertTrue(awaitNoTaskNamed("stdio-request-t", TimeUnit.SECONDS.toNanos(10)), "the ended thread is still listed");
        ThreadCpu after = Servers.threadCpu(pid);
        assertNotNull(during);
        assertNotNull(after);
        assertTrue(ThreadCpu.between(before, during).of(Group.REQUESTS) >= BURN_NANOS, () -> "during: " + during.all());
        assertTrue(before.of(Group.MAIN) > 0, before.all());
        // gone from the task list, its time stays in the process's CPU clock; the clock is read after the
        // threads, so a reading made in this very process is ahead by its own CPU (ms when still interpreted).
        // (Other tests of this JVM may have request threads of their own, so the request group's own change
        // is not asserted here.)
        assertTrue(ThreadCpu.between(during, after).of(Group.ENDED) >= BURN_NANOS - 20 * MS,
                () -> "ended between: " + ThreadCpu.between(during, after).all());
        long groups = 0;
        for (Group g : Group.values()) {
            groups += after.of(g);
        }
        assertEquals(groups, after.total());
    }

    /** Waits, at most {@code boundNanos}, until no thread of this process has the kernel name {@code comm}. */
    private static boolean awaitNoTaskNamed(String comm, long boundNanos) throws Exception {
        long deadline = System.nanoTime() + boundNanos;
        while (System.nanoTime() < deadline) {
            boolean listed = false;
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        listed |= Files.readString(task.resolve("comm")).strip().equals(comm);
                    } catch (java.io.IOException gone) {
                        // a thread that ended between the listing and the read
                    }
                }
            }
            if (!listed) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    private static final long MS = 1_000_000;
    private static final long BURN_NANOS = 100 * MS;

    /** Spins until this thread has used {@code nanos} of CPU (bounded: 20 s of wall time). */
    private static void burn(long nanos) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (threads.getCurrentThreadCpuTime() - start < nanos && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    private static ThreadCpu cpu(Object... groupMs) {
        Map<Group, Long> m = new EnumMap<>(Group.class);
        for (int i = 0; i < groupMs.length; i += 2) {
            m.put((Group) groupMs[i], ((Integer) groupMs[i + 1]) * MS);
        }
        return new ThreadCpu(m);
    }
}
