package iristerm.mcp;

import iristerm.session.BoundedRegex;
import iristerm.session.ReadRequest;
import iristerm.session.SessionException;
import iristerm.session.Until;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Turns the read fields of session_read / session_send into a {@link ReadRequest}, checking each. */
final class ReadOptions {
    private ReadOptions() {
    }

    static ReadRequest parse(Args a, Limits limits, long mark) {
        String reader = a.string("reader", ReadRequest.DEFAULT_READER);
        if (reader.isBlank() || reader.length() > 64) {
            throw new SessionException("'reader' must be a name of 1 to 64 characters; got '" + reader + "'");
        }
        long wait = a.integer("wait_ms", 0, 0, limits.maxWaitMillis());
        int max = (int) a.integer("max_bytes", limits.defaultReadBytes(), 1, limits.maxReadBytes());
        String toFile = a.string("to_file");
        return new ReadRequest(reader, wait, until(a, wait), max, a.bool("force", false), a.bool("strip_ansi", true),
                a.bool("all", false), toFile == null ? null : filePath(toFile, limits.filesRoot()), mark);
    }

    /**
     * No until: with a wait, the command is done (Until.DONE); without one, whatever is there. "data"
     * or {"data": true}: the first new byte (null).
     */
    private static Until until(Args a, long wait) {
        Object raw = a.raw("until");
        if (raw == null) {
            return wait > 0 ? Until.DONE : null;
        }
        if (raw instanceof String s) {
            return switch (s) {
                case "data" -> null;
                case "prompt" -> new Until(null, null, true, false);
                case "exit" -> new Until(null, null, false, true);
                case "done" -> Until.DONE;
                default -> throw new SessionException("'until' as a string must be done, data, prompt or exit; got '" + s
                        + "' (use {\"pattern\": \"…\"} or {\"quiet_ms\": N} for the others)");
            };
        }
        Args u = a.object("until");
        if (u.bool("data", false)) {
            return null;
        }
        String p = u.string("pattern");
        Pattern pattern = null;
        if (p != null) {
            try {
                pattern = BoundedRegex.compile(p, Pattern.MULTILINE);
            } catch (PatternSyntaxException e) {
                throw new SessionException("'until.pattern' is not a valid regular expression: "
                        + e.getDescription() + " near index " + e.getIndex() + " of " + p);
            }
        }
        Long quiet = u.has("quiet_ms") ? u.integer("quiet_ms", 0, 1, 600_000) : null;
        return new Until(pattern, quiet, u.bool("prompt", false), u.bool("exit", false));
    }

    /** A {@code to_file} path resolved under the files root; anything that leaves the root is refused. */
    static Path filePath(String given, Path root) {
        if (root == null) {
            throw new SessionException("'to_file' is not available on this server: it is IRIS-hosted, and every agent's "
                    + "IRIS process runs as the OS user the bridge writes files as, so other users could read them. Read "
                    + "the output in pages instead (session_read with force: true and max_bytes), or raise max_bytes");
        }
        if (given.isBlank() || given.indexOf('\0') >= 0) {
            throw new SessionException("'to_file' must be a file name under the files root " + root);
        }
        try {
            Files.createDirectories(root);
            Path realRoot = root.toRealPath();
            Path p = realRoot.resolve(given).normalize();
            if (!p.startsWith(realRoot) || p.equals(realRoot)) {
                throw outside(given, realRoot);
            }
            Files.createDirectories(p.getParent());
            // a link inside the root could still point out of it
            Path realParent = p.getParent().toRealPath();
            if (!realParent.startsWith(realRoot) || (Files.isSymbolicLink(p))) {
                throw outside(given, realRoot);
            }
            Path file = realParent.resolve(p.getFileName());
            // another name of the same file (a hard link) may lie outside the root: replacing this one is
            // safe (the output goes to a new file), but the caller likely meant that file, so say so
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)
                    && (Integer) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS) > 1) {
                throw new SessionException("'to_file' " + given + " names a file that has other names (hard links), "
                        + "which are not replaced; give a new name, or remove the other links first");
            }
            return file;
        } catch (IOException e) {
            throw new SessionException("cannot prepare 'to_file' " + given + ": " + e.getMessage());
        }
    }

    private static SessionException outside(String given, Path root) {
        return new SessionException("'to_file' " + given + " is outside the files root " + root
                + "; give a relative name such as \"out/build.log\"");
    }
}
