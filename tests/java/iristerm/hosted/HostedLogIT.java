package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge in a fresh JVM started the way Terminal.Gateway.Define configures the External Java
 * Server: the hosted jar, then IRIS's own jar, on the class path (so the hosted jar alone must carry
 * everything a request needs), the data directory and the log file inside it as JVM arguments. The directory does not
 * exist when the JVM starts; the log must still land in it, not on a stderr nobody reads.
 */
class HostedLogIT {

    @TempDir
    Path tmp;

    @Test
    void theLogGoesToAFileInTheDataDirectoryTheBridgeCreatesPrivately() throws Exception {
        Path dataDir = tmp.resolve("mgr").resolve("iris-terminal-mcp");
        Path logFile = dataDir.resolve("bridge.log");
        String out = runBridge(dataDir, logFile);
        assertTrue(out.contains("\"status\":503"), out);
        // engine review round 8, E8-1: the kernel says the bridge's JVM is not dumpable (its memory closed to the
        // other processes of its OS user, agents' session jobs among them)
        assertTrue(out.contains("dumpable=0"), out);
        assertTrue(Files.isRegularFile(logFile), "no log file; the JVM wrote: " + out);
        assertTrue(Files.readString(logFile).contains("could not ask IRIS who is calling"), Files.readString(logFile));
        // shared with the instance's group (the parent's), closed to others: any JVM IRIS starts can use it
        assertEquals("rwxrwx---", PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir)));
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(logFile)));

        // hosted review round 4, R4-8: the next JVM (a Check's, say) keeps this one's log instead of erasing it
        Files.writeString(logFile, "the log of the JVM that served agents\n", StandardOpenOption.APPEND);
        String first = Files.readString(logFile);
        runBridge(dataDir, logFile);
        assertEquals(first, Files.readString(dataDir.resolve("bridge.log.1")), "the earlier JVM's log, whole");
        assertTrue(Files.readString(logFile).contains("could not ask IRIS who is calling"), "the new JVM logs anew");
        assertFalse(Files.readString(logFile).contains("served agents"));
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(logFile)));

        // a link an agent's process planted in its place is removed, never followed
        Path elsewhere = Files.writeString(tmp.resolve("elsewhere"), "not the bridge's\n");
        Files.delete(logFile);
        Files.createSymbolicLink(logFile, elsewhere);
        runBridge(dataDir, logFile);
        assertEquals("not the bridge's\n", Files.readString(elsewhere));
        assertFalse(Files.isSymbolicLink(logFile));

        // something it cannot open in its place (hosted review round 6, R6-3): the log goes to the JVM's standard
        // error, never to the file by name later (which would follow a link swapped in meanwhile)
        Files.delete(logFile);
        Files.createDirectory(logFile);
        String stderr = runBridge(dataDir, logFile);
        assertTrue(stderr.contains("could not ask IRIS who is calling"), "the log went to standard error: " + stderr);
    }

    /** One bridge request in a fresh JVM, as IRIS starts it for a request; answers what the JVM printed. */
    private static String runBridge(Path dataDir, Path logFile) throws Exception {
        String classPath = String.join(java.io.File.pathSeparator, Path.of("target", "test-classes").toString(),
                System.getProperty("iristerm.hostedJar"), System.getProperty("iristerm.irisJdbcJar"));
        Process jvm = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-D" + HostedConfig.DATA_DIR_PROPERTY + "=" + dataDir,
                "-Dorg.slf4j.simpleLogger.logFile=" + logFile,
                // as IRIS starts it for a request: the instance's user, never root (the bridge serves none as root)
                "-Duser.name=irisusr-of-this-test",
                "-cp", classPath, BridgeLogMain.class.getName()))
                .redirectErrorStream(true).start();
        assertTrue(jvm.waitFor(60, TimeUnit.SECONDS), "the bridge JVM did not end within 60 s");
        String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jvm.exitValue(), out);
        return out;
    }
}
