package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        assertTrue(out.contains("\"status\":503"), out);
        assertTrue(Files.isRegularFile(logFile), "no log file; the JVM wrote: " + out);
        assertTrue(Files.readString(logFile).contains("could not ask IRIS who is calling"), Files.readString(logFile));
        // shared with the instance's group (the parent's), closed to others: any JVM IRIS starts can use it
        assertEquals("rwxrwx---", PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir)));
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(logFile)));
    }
}
