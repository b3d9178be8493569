package iristerm.mcp;

import java.nio.file.Path;

/** Bounds on what one call may ask for; each is an option of the command line. */
public record Limits(int defaultReadBytes, int maxReadBytes, int maxInputBytes, long maxWaitMillis,
                     long defaultGraceMillis, Path filesRoot) {
}
