package iristerm.cli;

import iristerm.mcp.Limits;
import iristerm.session.SessionManager;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;

/** Options every serving mode shares; each has an environment variable of the same meaning. */
final class CommonOptions {
    enum ProcessPolicy { auto, on, off }

    @Option(names = "--data-dir", paramLabel = "DIR",
            defaultValue = "${env:IRIS_TERMINAL_DATA_DIR:-${env:XDG_DATA_HOME:-${sys:user.home}/.local/share}/iris-terminal-mcp}",
            description = "Session metadata and transcripts (env IRIS_TERMINAL_DATA_DIR; default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--files-root", paramLabel = "DIR", defaultValue = "${env:IRIS_TERMINAL_FILES_ROOT}",
            description = "The only place to_file may write (env IRIS_TERMINAL_FILES_ROOT; default: <data-dir>/files).")
    Path filesRoot;

    @Option(names = "--process", paramLabel = "auto|on|off", defaultValue = "${env:IRIS_TERMINAL_PROCESS:-auto}",
            description = "Process engine policy (env IRIS_TERMINAL_PROCESS; default: ${DEFAULT-VALUE}): auto is on "
                    + "for stdio and for a loopback server without IRIS, off otherwise.")
    ProcessPolicy process;

    @Option(names = "--max-sessions", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_SESSIONS:-64}",
            description = "Open sessions per owner (env IRIS_TERMINAL_MAX_SESSIONS; default: ${DEFAULT-VALUE}).")
    int maxSessions;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS", defaultValue = "${env:IRIS_TERMINAL_IDLE_TIMEOUT:-1800}",
            description = "Close sessions untouched for this long (env IRIS_TERMINAL_IDLE_TIMEOUT; default: ${DEFAULT-VALUE}).")
    long idleTimeoutSeconds;

    @Option(names = "--tail-bytes", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_TAIL_BYTES:-8388608}",
            description = "Output kept in memory per session; older output is read from the transcript "
                    + "(env IRIS_TERMINAL_TAIL_BYTES; default: ${DEFAULT-VALUE}).")
    int tailBytes;

    @Option(names = "--max-transcript-bytes", paramLabel = "N",
            defaultValue = "${env:IRIS_TERMINAL_MAX_TRANSCRIPT_BYTES:-67108864}",
            description = "Output a session's transcript keeps; later output is held in memory only (--tail-bytes) "
                    + "and the transcript ends with a note. 0: no limit (env IRIS_TERMINAL_MAX_TRANSCRIPT_BYTES; "
                    + "default: ${DEFAULT-VALUE}).")
    long maxTranscriptBytes;

    @Option(names = "--max-data-bytes", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_DATA_BYTES:-1073741824}",
            description = "Output all transcripts in the data directory keep together; past it the oldest ended "
                    + "sessions are removed, and when only live ones are left, their later output is held in memory "
                    + "only. 0: no limit (env IRIS_TERMINAL_MAX_DATA_BYTES; default: ${DEFAULT-VALUE}).")
    long maxDataBytes;

    @Option(names = "--max-input-bytes", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_INPUT_BYTES:-1048576}",
            description = "Largest text one session_send may carry (env IRIS_TERMINAL_MAX_INPUT_BYTES; default: ${DEFAULT-VALUE}).")
    int maxInputBytes;

    @Option(names = "--max-read-bytes", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_READ_BYTES:-16777216}",
            description = "Largest max_bytes a read may ask for (env IRIS_TERMINAL_MAX_READ_BYTES; default: ${DEFAULT-VALUE}).")
    int maxReadBytes;

    @Option(names = "--max-wait-ms", paramLabel = "MS", defaultValue = "${env:IRIS_TERMINAL_MAX_WAIT_MS:-55000}",
            description = "Longest wait_ms a call may ask for; keep it under the clients' 60 s request limit "
                    + "(env IRIS_TERMINAL_MAX_WAIT_MS; default: ${DEFAULT-VALUE}).")
    long maxWaitMs;

    @Option(names = "--max-history", paramLabel = "N", defaultValue = "${env:IRIS_TERMINAL_MAX_HISTORY:-200}",
            description = "Ended sessions kept on disk; older ones are deleted at start (env IRIS_TERMINAL_MAX_HISTORY; default: ${DEFAULT-VALUE}).")
    int maxHistory;

    @Option(names = "--identity", paramLabel = "NAME", defaultValue = "${env:IRIS_TERMINAL_IDENTITY:-local}",
            description = "Owner of sessions opened over stdio (env IRIS_TERMINAL_IDENTITY; default: ${DEFAULT-VALUE}).")
    String identity;

    static final long GRACE_MILLIS = 2000;
    static final int DEFAULT_READ_BYTES = 32 * 1024;

    SessionManager sessionManager() {
        require(maxSessions >= 1, "--max-sessions must be at least 1");
        require(idleTimeoutSeconds >= 1, "--idle-timeout must be at least 1 second");
        require(tailBytes >= 4096, "--tail-bytes must be at least 4096");
        require(maxHistory >= 0, "--max-history must not be negative");
        require(maxTranscriptBytes >= 0, "--max-transcript-bytes must not be negative (0: no limit)");
        require(maxDataBytes >= 0, "--max-data-bytes must not be negative (0: no limit)");
        return new SessionManager(new SessionManager.Config(dataDir, tailBytes, maxSessions,
                Duration.ofSeconds(idleTimeoutSeconds), maxHistory, GRACE_MILLIS,
                maxTranscriptBytes == 0 ? Long.MAX_VALUE : maxTranscriptBytes,
                maxDataBytes == 0 ? Long.MAX_VALUE : maxDataBytes, true));
    }

    Limits limits() {
        require(maxInputBytes >= 1, "--max-input-bytes must be at least 1");
        require(maxReadBytes >= DEFAULT_READ_BYTES, "--max-read-bytes must be at least " + DEFAULT_READ_BYTES);
        require(maxWaitMs >= 0, "--max-wait-ms must not be negative");
        return new Limits(DEFAULT_READ_BYTES, maxReadBytes, maxInputBytes, maxWaitMs, GRACE_MILLIS,
                filesRoot != null ? filesRoot : dataDir.resolve("files"));
    }

    /** Refuses a bad option value with a message that names the option and what it must be. */
    static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
