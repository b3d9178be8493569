package iristerm.hosted;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The hosted server's data directory: session metadata, transcripts, spilled output and the bridge's
 * log. Transcripts hold whatever a user typed or saw, so the directory must be the JVM user's alone.
 * Logs nothing: it runs before the log file (inside it) can be opened.
 */
final class DataDirectory {

    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private DataDirectory() {
    }

    /**
     * Creates {@code dir} for {@code jvmUser} alone, or accepts an existing one that is a real
     * directory owned by {@code jvmUser} and writable by nobody else (then also made unreadable to
     * others). Where the file system has no POSIX owner and modes (Windows) only existence is checked.
     *
     * @throws IllegalStateException saying what is wrong with the directory and how to fix it
     */
    static void prepare(Path dir, String jvmUser) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                create(dir);
                return;
            }
            if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir)) {
                throw refused(dir, "is not a directory (or is a symbolic link)", "remove it or set another path");
            }
            if (!Files.getFileStore(dir).supportsFileAttributeView("posix")) {
                return;
            }
            String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
            if (!owner.equals(jvmUser)) {
                throw refused(dir, "belongs to OS user " + owner + ", not to " + jvmUser
                        + ", the user the External Java Server runs as", "chown " + jvmUser + " " + dir);
            }
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw refused(dir, "is writable by its group or by everyone (" + PosixFilePermissions.toString(mode) + ")",
                        "chmod 700 " + dir);
            }
            if (!PRIVATE.containsAll(mode)) {
                Files.setPosixFilePermissions(dir, EnumSet.copyOf(PRIVATE));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use the data directory " + dir + " (" + e.getMessage()
                    + "); set another with -D" + HostedConfig.DATA_DIR_PROPERTY + "=<dir>", e);
        }
    }

    private static void create(Path dir) throws IOException {
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
        } catch (UnsupportedOperationException notPosix) {
            Files.createDirectories(dir);
        }
    }

    private static IllegalStateException refused(Path dir, String what, String fix) {
        return new IllegalStateException("the data directory " + dir + " " + what + "; transcripts there must be "
                + "private to the bridge. An administrator should fix it (" + fix + ") or set another directory with -D"
                + HostedConfig.DATA_DIR_PROPERTY + "=<dir> in the External Java Server's JVM arguments, then restart it");
    }
}
