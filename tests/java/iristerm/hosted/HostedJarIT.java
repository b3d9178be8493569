package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import org.junit.jupiter.api.Test;

/**
 * The packaged jars. IRIS starts its External Java Server as {@code java -classpath
 * <definition's ClassPath>:<IRIS's own jars> com.intersystems.gateway.JavaGateway}, so any
 * {@code com/intersystems/} class in the hosted jar would shadow the instance's own gateway.
 */
class HostedJarIT {

    private static Path jar(String property) {
        String path = System.getProperty(property);
        assertNotNull(path, "system property " + property + " is not set (failsafe sets it in pom.xml)");
        Path jar = Path.of(path);
        assertTrue(Files.isRegularFile(jar), jar + " was not built");
        return jar;
    }

    private static List<String> entries(Path jar) throws Exception {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().map(ZipEntry::getName).toList();
        }
    }

    @Test
    void theHostedJarCarriesTheBridgeButNoneOfIrissOwnClasses() throws Exception {
        List<String> entries = entries(jar("iristerm.hostedJar"));
        List<String> theirs = entries.stream().filter(e -> e.startsWith("com/intersystems/")).toList();
        assertTrue(theirs.isEmpty(), "the hosted jar holds IRIS's own classes: " + theirs.stream().limit(5).toList());
        assertTrue(entries.contains("iristerm/hosted/Bridge.class"), "the hosted jar lacks the bridge");
        // the MCP SDK and what it needs travel inside: the gateway's class path is this one jar
        assertTrue(entries.contains("io/modelcontextprotocol/server/McpServer.class"), "the hosted jar lacks the MCP SDK");
    }

    @Test
    void theStandaloneJarStillCarriesTheNativeApi() throws Exception {
        assertTrue(entries(jar("iristerm.jar")).contains("com/intersystems/jdbc/IRIS.class"),
                "the standalone jar needs the IRIS Native API to reach IRIS over the superserver");
    }
}
