package iristerm.mcp;

import java.nio.file.Path;

/**
 * Bounds on what one call may ask for; each is an option of the command line. {@code filesRoot} is where
 * {@code to_file} writes, or null where it is refused (IRIS-hosted: other users' code can read those files).
 */
public record Limits(int defaultReadBytes, int maxReadBytes, int maxInputBytes, long maxWaitMillis,
                     long defaultGraceMillis, Path filesRoot) {
}
