package iristerm.hosted;

import iristerm.session.SessionStore;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The hosted server's data directory: session metadata and the bridge's log ({@value #LOG_FILE}); no session
 * output (every agent's IRIS process is in the group that may read it, see docs/hosted.md). IRIS may start the External Java Server as different OS users: from an
 * administrator's terminal process (the installer's Check, possibly root) or for a web request (the
 * instance's own user). Every one of those JVMs runs in the instance's group (the group of its mgr
 * directory), so the directory belongs to that group, with the group's read, write and search
 * permission and nothing for others; whichever JVM comes first creates it that way, and each later
 * one accepts it. Logs nothing: it runs before the log file (inside it) can be opened.
 */
public final class DataDirectory {

    /** The log file the JVM arguments name (Terminal.Gateway.BridgeJVMArgs). */
    static final String LOG_FILE = "bridge.log";

    private static final Set<PosixFilePermission> SHARED_DIR = PosixFilePermissions.fromString("rwxrwx---");
    private static final Set<PosixFilePermission> SHARED_FILE = PosixFilePermissions.fromString("rw-rw----");
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private DataDirectory() {
    }

    /**
     * Creates {@code dir} (group: its parent's, mode rwxrwx---, with an empty log file rw-rw----), or
     * accepts an existing one this JVM can use that others cannot write. Others' read and search
     * permission is taken away where this JVM owns the directory. Where the file system has no POSIX
     * owner and modes (Windows) only existence is checked.
     *
     * @throws IllegalStateException saying what is wrong with the directory and how to fix it
     */
    static void prepare(Path dir, String jvmUser) {
        prepare(dir, jvmUser, jvmGroupIds());
    }

    /** As {@link #prepare(Path, String)}, for a JVM whose user is in the groups {@code jvmGroups} (numeric ids). */
    static void prepare(Path dir, String jvmUser, Set<Long> jvmGroups) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                create(dir);
                prepareSessions(dir);
                return;
            }
            if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir)) {
                throw refused(dir, "is not a directory (or is a symbolic link)", "remove it or set another path");
            }
            if (!Files.getFileStore(dir).supportsFileAttributeView("posix")) {
                return;
            }
            PosixFileAttributes attrs = attributes(dir);
            Set<PosixFilePermission> mode = attrs.permissions();
            String owner = attrs.owner().getName();
            String group = attrs.group().getName();
            if (mode.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw refused(dir, "is writable by everyone (" + PosixFilePermissions.toString(mode) + ")",
                        "chmod o-rwx " + dir);
            }
            boolean mine = owner.equals(jvmUser);
            // from the mode, not access(2), which answers yes to root for any directory
            boolean usable = mine ? mode.containsAll(EnumSet.of(PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE))
                    : jvmGroups.contains(groupId(dir)) && mode.containsAll(EnumSet.of(PosixFilePermission.GROUP_READ,
                            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE));
            if (!usable) {
                throw refused(dir, "belongs to OS user " + owner + " and group " + group + " ("
                        + PosixFilePermissions.toString(mode) + "), and " + jvmUser
                        + ", the user this External Java Server runs as, may not write it",
                        "chgrp <the group of the instance's mgr directory> " + dir + " && chmod 2770 " + dir);
            }
            if (mine && mode.stream().anyMatch(OTHERS::contains)) {
                Set<PosixFilePermission> fixed = EnumSet.copyOf(mode);
                fixed.removeAll(OTHERS);
                Files.setPosixFilePermissions(dir, fixed);
            }
            shareLog(dir.resolve(LOG_FILE), jvmUser);
            prepareSessions(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use the data directory " + dir + " (" + e.getMessage()
                    + "); set another with -D" + HostedConfig.DATA_DIR_PROPERTY + "=<dir>", e);
        }
    }

    /**
     * The directory as the next JVM IRIS starts will judge it, whichever OS user that is: a JSON object
     * {@code {"ok","seen","fix"}} for Terminal.Installer.Check's line "data directory" (called through
     * the gateway, so public). Ok when others may not write it, and it and its log file (when present)
     * belong to the group of its parent (the instance's mgr directory) with that group's read and write
     * permission (and search, for the directory).
     */
    public static String report(String path) {
        Path dir = Path.of(path);
        try {
            Path parent = dir.toAbsolutePath().getParent();
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                return notYetCreated(dir, parent);
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                return verdict(false, dir + " is not a directory (or is a symbolic link)",
                        "remove it: the bridge creates the directory at its first request");
            }
            if (!Files.getFileStore(dir).supportsFileAttributeView("posix")) {
                return verdict(true, dir + " exists (no POSIX owner and mode on this file system)", "");
            }
            String instanceGroup = attributes(parent).group().getName();
            PosixFileAttributes d = attributes(dir);
            StringBuilder seen = new StringBuilder(describe(dir, d)).append("; ").append(parent)
                    .append(" has group ").append(instanceGroup);
            String fix = "chgrp -R " + instanceGroup + " " + dir + " && chmod 2770 " + dir + " && chmod 660 "
                    + dir.resolve(LOG_FILE) + " (or remove the directory and restart the server: the bridge creates it so)";
            boolean ok = !d.permissions().contains(PosixFilePermission.OTHERS_WRITE)
                    && d.group().getName().equals(instanceGroup)
                    && d.permissions().containsAll(EnumSet.of(PosixFilePermission.GROUP_READ,
                            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE));
            Path log = dir.resolve(LOG_FILE);
            if (Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
                PosixFileAttributes l = attributes(log);
                seen.append("; ").append(describe(log, l));
                ok &= l.isRegularFile() && l.group().getName().equals(instanceGroup)
                        && l.permissions().containsAll(EnumSet.of(PosixFilePermission.GROUP_READ,
                                PosixFilePermission.GROUP_WRITE))
                        && !l.permissions().contains(PosixFilePermission.OTHERS_WRITE);
            }
            return verdict(ok, seen.toString(), ok ? "" : fix);
        } catch (IOException | RuntimeException e) {
            return verdict(false, "cannot read " + dir + ": " + e, "read it as the instance's OS user; set another "
                    + "directory with -D" + HostedConfig.DATA_DIR_PROPERTY + "=<dir> if it cannot be used");
        }
    }

    /**
     * A data directory no bridge has served from yet (it is made by the first request's JVM, not by the JVM a
     * Check starts): fine where that JVM, which runs in the group of the parent (the instance's mgr directory),
     * may create entries in the parent.
     */
    private static String notYetCreated(Path dir, Path parent) throws IOException {
        String seen = dir + " does not exist yet: the bridge creates it at its first request, in the group of " + parent;
        if (parent == null || !Files.isDirectory(parent)) {
            return verdict(false, dir + " does not exist, nor its parent directory",
                    "set -D" + HostedConfig.DATA_DIR_PROPERTY + "=<dir> under the instance's mgr directory: do ##class(Terminal.Gateway).Define()");
        }
        if (!Files.getFileStore(parent).supportsFileAttributeView("posix")) {
            return verdict(true, seen, "");
        }
        PosixFileAttributes p = attributes(parent);
        boolean groupMay = p.permissions().containsAll(EnumSet.of(PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_EXECUTE));
        return verdict(groupMay, seen + " (" + describe(parent, p) + ")",
                groupMay ? "" : "chmod g+wx " + parent + " (the JVM IRIS starts for a request runs in its group)");
    }

    /** slf4j-simple's setting for its log file, which Terminal.Gateway.BridgeJVMArgs points into this directory. */
    static final String LOG_FILE_PROPERTY = "org.slf4j.simpleLogger.logFile";

    /** the log file the JVM arguments named, once {@link #takeLog} has taken it from slf4j-simple */
    private static Path logFile;
    private static boolean logTaken;

    /**
     * Takes the log file the JVM arguments name away from slf4j-simple before any logger exists, and opens it
     * itself. By name, slf4j-simple would open it from its start, erasing the last JVM's log (a Check's JVM the one
     * that served agents), and follow a symbolic link an agent's process planted there (the directory is the
     * group's) whoever this JVM runs as. So at the first call slf4j-simple is pointed at System.err for good, and
     * the file is opened here: the last log kept as {@code <log>.1}, a link in its place removed, the file opened
     * for appending and never through a link (O_NOFOLLOW), so nothing planted later reaches it, and a new file
     * given the directory's group and rw-rw---- as {@link #prepare} makes it; System.err then writes to it. Where it
     * cannot be opened so (its directory does not exist yet: the first JVM calls this again after {@link #prepare};
     * or something else is in its place), the log goes to the JVM's standard error as it was. Called first by the
     * bridge's entry class, before anything logs.
     */
    static synchronized void takeLog() {
        if (logTaken) {
            return;
        }
        if (logFile == null) {
            String name = System.getProperty(LOG_FILE_PROPERTY);
            if (name == null || name.isBlank() || name.startsWith("System.")) {
                return;
            }
            logFile = Path.of(name);
            System.setProperty(LOG_FILE_PROPERTY, "System.err");
        }
        try {
            if (Files.isSymbolicLink(logFile)) {
                Files.delete(logFile);
            } else if (Files.isRegularFile(logFile, LinkOption.NOFOLLOW_LINKS) && Files.size(logFile) > 0) {
                Files.move(logFile, logFile.resolveSibling(logFile.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
            }
            boolean created = !Files.exists(logFile, LinkOption.NOFOLLOW_LINKS);
            OutputStream out = Files.newOutputStream(logFile, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    LinkOption.NOFOLLOW_LINKS);
            if (created && Files.getFileStore(logFile).supportsFileAttributeView("posix")) {
                shareLog(logFile, null);
            }
            System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
            logTaken = true;
        } catch (IOException | RuntimeException e) {
            // nothing to log to yet: the log stays on the JVM's standard error
        }
    }

    /** The numeric groups of this JVM's OS user (empty where they cannot be known, e.g. Windows). */
    static Set<Long> jvmGroupIds() {
        try {
            com.sun.security.auth.module.UnixSystem unix = new com.sun.security.auth.module.UnixSystem();
            Set<Long> ids = new java.util.HashSet<>();
            ids.add(unix.getGid());
            for (long g : unix.getGroups()) {
                ids.add(g);
            }
            return ids;
        } catch (RuntimeException | LinkageError notUnix) {
            return Set.of();
        }
    }

    /** The numeric group of {@code p} (-1 where the file system does not say). */
    static long groupId(Path p) {
        try {
            return ((Number) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS)).longValue();
        } catch (IOException | RuntimeException noUnixView) {
            return -1;
        }
    }

    private static String describe(Path file, PosixFileAttributes a) {
        return file + " owner " + a.owner().getName() + ", group " + a.group().getName() + ", mode "
                + PosixFilePermissions.toString(a.permissions());
    }

    private static String verdict(boolean ok, String seen, String fix) {
        return "{\"ok\":" + ok + ",\"seen\":\"" + escape(seen) + "\",\"fix\":\"" + escape(fix) + "\"}";
    }

    private static String escape(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static PosixFileAttributes attributes(Path p) throws IOException {
        return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    private static void create(Path dir) throws IOException {
        if (!createShared(dir)) {
            return;
        }
        Path log = dir.resolve(LOG_FILE);
        try {
            Files.createFile(log);
        } catch (FileAlreadyExistsException racing) {
            return;
        }
        shareLog(log, null);
    }

    /**
     * Creates {@code dir} with its parent's group, read, write and search for it and nothing for others; answers
     * false where the file system has no POSIX modes (nothing more to set).
     */
    private static boolean createShared(Path dir) throws IOException {
        Files.createDirectories(dir);
        if (!Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            return false;
        }
        // explicit modes: the umask applies to what createDirectories and createFile are given, not to these
        Files.setPosixFilePermissions(dir, EnumSet.copyOf(SHARED_DIR));
        GroupPrincipal group = attributes(dir.toAbsolutePath().getParent()).group();
        try {
            Files.getFileAttributeView(dir, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setGroup(group);
        } catch (IOException notAMember) {
            // this JVM's user is not in the parent's group: the directory keeps this user's group, which
            // Check's line "data directory" reports
        }
        return true;
    }

    /**
     * The session store's directory, made as the data directory is, so that whichever JVM builds the server first
     * (one an administrator's terminal started, say) leaves one every other JVM of the instance can write (hosted
     * review round 9, H9-2); a link in its place, which an agent's process could plant, is refused.
     */
    private static void prepareSessions(Path dir) throws IOException {
        Path sessions = dir.resolve(SessionStore.DIRECTORY);
        if (Files.isSymbolicLink(sessions)) {
            throw refused(sessions, "is a symbolic link", "remove it: the bridge creates the directory");
        }
        if (!Files.exists(sessions, LinkOption.NOFOLLOW_LINKS)) {
            createShared(sessions);
        }
    }

    /** Gives the log file the directory's group, read and write for it, where this JVM owns it. */
    private static void shareLog(Path log, String jvmUser) throws IOException {
        if (!Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        PosixFileAttributes a = attributes(log);
        if (jvmUser != null && !a.owner().getName().equals(jvmUser)) {
            return;
        }
        PosixFileAttributeView view = Files.getFileAttributeView(log, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        try {
            view.setGroup(attributes(log.getParent()).group());
        } catch (IOException notAMember) {
            // reported by Check's line "data directory"
        }
        view.setPermissions(EnumSet.copyOf(SHARED_FILE));
    }

    private static IllegalStateException refused(Path dir, String what, String fix) {
        return new IllegalStateException("the data directory " + dir + " " + what + "; what the bridge keeps there "
                + "must be changed only by the instance's processes. An administrator should fix it (" + fix
                + ") or set another directory with -D" + HostedConfig.DATA_DIR_PROPERTY
                + "=<dir> in the External Java Server's JVM arguments, then restart it");
    }
}
