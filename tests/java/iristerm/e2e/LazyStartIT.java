package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stdio start does only what its answers need: through initialize and the tool list, nothing of
 * HTTP (Undertow, XNIO, and the JVM's management server a serve start prepares for it), the PTY
 * (pty4j, JNA), IRIS (its driver) or the JSON-schema validator (used from the first tool call on) is
 * loaded. Read from the JVM's own class-loading log.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LazyStartIT {
    /** class name prefixes a stdio server must not load before a session or IRIS needs them */
    private static final List<String> NOT_AT_START = List.of("io.undertow.", "org.xnio.", "org.jboss.",
            "com.pty4j.", "com.sun.jna.", "com.intersystems.", "iristerm.http.", "iristerm.iris.NativeIrisCalls",
            "iristerm.iris.ClassInstaller", "iristerm.hosted.", "iristerm.doctor.", "com.networknt.",
            "java.lang.management.", "javax.management.");

    @Test
    void stdioLoadsNoHttpPtyIrisOrSchemaClassesUntilTheyAreUsed() throws Exception {
        Path log = Files.createTempFile("itm-classes", ".log");
        StdioServer server = new StdioServer(Files.createTempDirectory("itm-lazy"), List.of(),
                List.of("-Xlog:class+load=info:file=" + log, "-jar", StdioServer.jar().toString(), "stdio"), Map.of());
        try {
            McpSyncClient c = server.connect(n -> { });
            assertTrue(c.listTools().tools().stream().anyMatch(t -> t.name().equals("session_open")));
        } finally {
            server.close();
        }
        List<String> classes = Files.readAllLines(log).stream()
                .filter(l -> l.contains("[class,load]"))
                .map(l -> l.replaceFirst(".*\\[class,load] (\\S+).*", "$1"))
                .toList();
        List<String> early = classes.stream().filter(c -> NOT_AT_START.stream().anyMatch(c::startsWith)).toList();
        assertEquals(List.of(), early, "loaded by a stdio start that used none of them (of " + classes.size() + " classes)");
        assertTrue(classes.contains("iristerm.stdio.StdioTransport"), "the log is not the server's: " + classes.size());
    }
}
