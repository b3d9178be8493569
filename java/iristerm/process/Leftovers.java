package iristerm.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Finds the processes a session started, including those its program left running when it exited
 * (background jobs) and those that left its process group or session (setsid, double fork).
 *
 * <p>How: every process a session starts carries {@link #VARIABLE} in its environment, with a value
 * unique to the session, and children inherit it. {@code /proc/<pid>/environ} shows the
 * environment a process was started with and is readable for one's own processes, so a scan of
 * /proc finds them wherever they moved. Members of the leader's process group or terminal session
 * count too (a child that replaced its environment but stayed). The alternatives were weighed:
 * making the JVM a child subreaper (prctl PR_SET_CHILD_SUBREAPER) changes the whole JVM — in
 * hosted mode that is IRIS's External Java Server — and obliges it to reap orphans by pid without
 * racing the JDK's and pty4j's own waitpid on their children, and it still cannot tell which
 * session an orphan came from, so session_close could not end one session's leftovers; cgroups need
 * a delegated hierarchy most hosts do not give. What this misses: a descendant that both leaves the
 * group and session and clears its environment (e.g. {@code setsid env -i prog}). Without /proc
 * (not Linux) nothing is found and only the group signals of {@link ProcessEngine} apply.
 */
final class Leftovers {
    /** the environment variable that marks a session's processes */
    static final String VARIABLE = "IRIS_TERMINAL_SESSION";
    private static final Path PROC = Path.of("/proc");
    private static final long SELF = ProcessHandle.current().pid();

    private final byte[] entry;
    private final long leader;

    /** @param value this session's marker value; {@code leader} its first process (group and session leader) */
    Leftovers(String value, long leader) {
        this.entry = (VARIABLE + "=" + value).getBytes(StandardCharsets.UTF_8);
        this.leader = leader;
    }

    /**
     * Live processes of the session (zombies are already dead and are left to their parents).
     * {@code leaderIsOurs}: the leader has not been reaped, so its pid still names its group and
     * session; once it has, a live process with that pid would be a stranger that reused it, and then
     * group and session ids prove nothing and only the marker counts. (Linux does not reuse a pid
     * while a process group or session of that id still has a member.)
     */
    List<Long> find(boolean leaderIsOurs) {
        List<Long> found = new ArrayList<>();
        if (!Files.isDirectory(PROC)) {
            return found;
        }
        boolean byGroup = leaderIsOurs || !Files.exists(PROC.resolve(Long.toString(leader)));
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, Leftovers::isPid)) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid != SELF && belongs(dir, byGroup)) {
                    found.add(pid);
                }
            }
        } catch (IOException e) {
            // /proc is there but could not be listed: nothing more can be found this way
        }
        return found;
    }

    /**
     * Live processes that carry any of {@code values} as their marker, found by the marker alone (for
     * sessions of an earlier run, whose leaders' pids may name strangers by now).
     */
    static List<Long> carrying(Collection<String> values) {
        List<byte[]> entries = values.stream().map(v -> (VARIABLE + "=" + v).getBytes(StandardCharsets.UTF_8)).toList();
        List<Long> found = new ArrayList<>();
        if (entries.isEmpty() || !Files.isDirectory(PROC)) {
            return found;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, Leftovers::isPid)) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid != SELF && live(dir) && carriesAny(dir, entries)) {
                    found.add(pid);
                }
            }
        } catch (IOException e) {
            // /proc is there but could not be listed: nothing more can be found this way
        }
        return found;
    }

    private static boolean carriesAny(Path dir, List<byte[]> entries) {
        try {
            byte[] env = Files.readAllBytes(dir.resolve("environ"));
            return entries.stream().anyMatch(e -> contains(env, e));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean live(Path dir) {
        try {
            String stat = Files.readString(dir.resolve("stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean isPid(Path p) {
        String name = p.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }

    private boolean belongs(Path dir, boolean byGroup) {
        try {
            String stat = Files.readString(dir.resolve("stat"));
            // after the parenthesised command (which may contain anything): state ppid pgrp session ...
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            if (f[0].equals("Z") || f[0].equals("X")) {
                return false;
            }
            if (byGroup && (Long.parseLong(f[2]) == leader || Long.parseLong(f[3]) == leader)) {
                return true;
            }
            return contains(Files.readAllBytes(dir.resolve("environ")), entry);
        } catch (IOException | RuntimeException e) {
            // gone meanwhile, or another user's process whose environment we may not read: not ours
            return false;
        }
    }

    /** Whether {@code env} (NUL-separated entries) holds {@code entry} as a whole entry. */
    static boolean contains(byte[] env, byte[] entry) {
        outer:
        for (int i = 0; i + entry.length <= env.length; i++) {
            if (i > 0 && env[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < entry.length; j++) {
                if (env[i + j] != entry[j]) {
                    continue outer;
                }
            }
            int after = i + entry.length;
            if (after == env.length || env[after] == 0) {
                return true;
            }
        }
        return false;
    }
}
