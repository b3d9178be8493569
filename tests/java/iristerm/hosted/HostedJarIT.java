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

    /**
     * Review J3: the hosted jar leaves out what only the standalone server runs (Undertow and what it pulls
     * in), and none of the classes it carries links it: a class that named Undertow would fail to load in
     * IRIS's JVM. pty4j stays, for the process engine an administrator may enable in hosted mode.
     */
    @Test
    void theHostedJarCarriesNoUndertowAndNothingThatLinksIt() throws Exception {
        Path hosted = jar("iristerm.hostedJar");
        List<String> entries = entries(hosted);
        for (String prefix : List.of("io/undertow/", "org/xnio/", "org/jboss/", "org/wildfly/", "io/smallrye/")) {
            assertTrue(entries.stream().noneMatch(e -> e.startsWith(prefix)), "the hosted jar carries " + prefix);
        }
        byte[] undertow = "io/undertow/".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (JarFile file = new JarFile(hosted.toFile())) {
            List<String> linking = file.stream().filter(e -> e.getName().startsWith("iristerm/") && e.getName().endsWith(".class"))
                    .filter(e -> {
                        try (var in = file.getInputStream(e)) {
                            return contains(in.readAllBytes(), undertow);
                        } catch (java.io.IOException io) {
                            throw new java.io.UncheckedIOException(io);
                        }
                    }).map(ZipEntry::getName).toList();
            assertTrue(linking.isEmpty(), "classes in the hosted jar that name Undertow (exclude them in pom.xml, execution hosted): " + linking);
        }
        assertTrue(entries.contains("iristerm/http/Reply.class"), "the bridge's answer type went with Undertow");
        assertTrue(entries.contains("com/pty4j/PtyProcess.class"), "the process engine needs pty4j");
        assertTrue(Files.size(hosted) < 17_000_000L, "the hosted jar grew to " + Files.size(hosted) + " bytes");
        try (JarFile file = new JarFile(hosted.toFile())) {
            var main = file.getManifest().getMainAttributes();
            assertTrue(main.getValue("Main-Class") == null, "the hosted jar names a Main-Class it does not carry: " + main.getValue("Main-Class"));
            assertTrue("true".equals(main.getValue("Multi-Release")), "the hosted jar must stay Multi-Release");
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Test
    void theStandaloneJarStillCarriesTheNativeApi() throws Exception {
        assertTrue(entries(jar("iristerm.jar")).contains("com/intersystems/jdbc/IRIS.class"),
                "the standalone jar needs the IRIS Native API to reach IRIS over the superserver");
    }
}
