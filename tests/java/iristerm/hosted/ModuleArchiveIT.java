package iristerm.hosted;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The IPM package {@code mvn package} writes (target/iris-terminal-mcp-&lt;version&gt;.tgz) against module.xml:
 * module.xml at its root, and every resource module.xml names at the path it names it by, so that
 * {@code zpm "load"} of the unpacked folder (or a package published from it) finds each one; the jar
 * is the hosted jar this build made.
 */
class ModuleArchiveIT {

    /** The archive's files by path (a tar.gz read with the JDK: ustar headers, pax names honoured). */
    static Map<String, byte[]> read(Path tgz) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(tgz))) {
            String paxPath = null;
            while (true) {
                byte[] header = in.readNBytes(512);
                if (header.length < 512 || header[0] == 0) {
                    break;
                }
                String name = field(header, 0, 100);
                String prefix = field(header, 345, 155);
                long size = Long.parseLong(field(header, 124, 12).trim().isEmpty() ? "0" : field(header, 124, 12).trim(), 8);
                char type = (char) header[156];
                byte[] data = in.readNBytes((int) size);
                in.readNBytes((int) ((512 - size % 512) % 512));
                if (type == 'x') {
                    for (String record : new String(data, StandardCharsets.UTF_8).split("\n")) {
                        int eq = record.indexOf(" path=");
                        if (eq > 0) {
                            paxPath = record.substring(eq + 6);
                        }
                    }
                    continue;
                }
                String path = paxPath != null ? paxPath : prefix.isEmpty() ? name : prefix + "/" + name;
                paxPath = null;
                if (type == '0' || type == 0) {
                    files.put(path.startsWith("./") ? path.substring(2) : path, data);
                }
            }
        }
        return files;
    }

    private static String field(byte[] header, int at, int length) {
        int end = at;
        while (end < at + length && header[end] != 0) {
            end++;
        }
        return new String(header, at, end - at, StandardCharsets.UTF_8);
    }

    private static List<Element> all(Element module, String tag) {
        NodeList nodes = module.getElementsByTagName(tag);
        return java.util.stream.IntStream.range(0, nodes.getLength()).mapToObj(i -> (Element) nodes.item(i)).toList();
    }

    @Test
    void theArchiveCarriesEveryResourceModuleXmlNames() throws Exception {
        String packagePath = System.getProperty("iristerm.ipmPackage");
        assertNotNull(packagePath, "system property iristerm.ipmPackage is not set (failsafe sets it in pom.xml)");
        Path tgz = Path.of(packagePath);
        assertTrue(Files.isRegularFile(tgz), tgz + " was not built by mvn package");
        Map<String, byte[]> files = read(tgz);

        assertArrayEquals(Files.readAllBytes(Path.of("module.xml")), files.get("module.xml"), "module.xml at the archive's root");
        Element module = (Element) DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(Path.of("module.xml").toFile()).getElementsByTagName("Module").item(0);

        for (Element copy : all(module, "FileCopy")) {
            String name = copy.getAttribute("Name");
            assertTrue(files.containsKey(name), "the archive lacks " + name + ", which module.xml's FileCopy copies");
            assertArrayEquals(Files.readAllBytes(Path.of(System.getProperty("iristerm.hostedJar"))), files.get(name),
                    name + " in the archive is not the hosted jar of this build");
        }
        for (Element resource : all(module, "Resource")) {
            String dir = resource.getAttribute("Directory").isEmpty() ? "cls" : resource.getAttribute("Directory");
            String name = resource.getAttribute("Name");
            String path = name.substring(0, name.length() - 4).replace('.', '/');
            if (name.endsWith(".CLS")) {
                String file = dir + "/" + path + ".cls";
                assertArrayEquals(Files.readAllBytes(Path.of(file)), files.get(file), "the archive lacks the class resource " + file);
            } else {
                assertSameClasses(files, Path.of(dir, path));
            }
        }
        // an Invoke's file argument (the code database's bootstrap, loaded before any resource); not the root itself
        for (Element arg : all(module, "Arg")) {
            String text = arg.getTextContent().trim();
            if (text.startsWith("${root}") && !text.equals("${root}")) {
                String name = text.substring("${root}".length());
                assertArrayEquals(Files.readAllBytes(Path.of(name)), files.get(name), "the archive lacks " + name
                        + ", which an Invoke of module.xml loads");
            }
        }
        for (Element test : all(module, "UnitTest")) {
            String dir = test.getAttribute("Name").replaceFirst("^/", "");
            assertSameClasses(files, Path.of(dir, test.getAttribute("Package").replace('.', '/')));
        }
        assertFalse(files.keySet().stream().anyMatch(p -> p.startsWith("java/") || p.endsWith(".java")),
                "the IPM package carries no Java sources");
    }

    /** Every .cls under {@code dir} in the repository is in the archive at that path, with the same bytes. */
    private static void assertSameClasses(Map<String, byte[]> files, Path dir) throws IOException {
        List<Path> classes;
        try (Stream<Path> walk = Files.walk(dir)) {
            classes = walk.filter(p -> p.toString().endsWith(".cls")).toList();
        }
        assertFalse(classes.isEmpty(), dir + " holds no classes");
        for (Path cls : classes) {
            String entry = cls.toString().replace('\\', '/');
            assertTrue(files.containsKey(entry), "the archive lacks " + entry);
            assertEquals(new String(Files.readAllBytes(cls), StandardCharsets.UTF_8),
                    new String(files.get(entry), StandardCharsets.UTF_8), entry + " differs in the archive");
        }
    }

    @Test
    void theTarReaderReadsWhatItIsGiven() throws Exception {
        // a test of the test: one ustar entry written by hand must come back whole
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        byte[] header = new byte[512];
        byte[] name = "cls/Terminal/X.cls".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(name, 0, header, 0, name.length);
        byte[] size = String.format("%011o", 5).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(size, 0, header, 124, size.length);
        header[156] = '0';
        raw.write(header);
        byte[] body = new byte[512];
        System.arraycopy("hello".getBytes(StandardCharsets.US_ASCII), 0, body, 0, 5);
        raw.write(body);
        raw.write(new byte[1024]);
        Path tgz = Files.createTempFile("archive", ".tgz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(tgz))) {
            out.write(raw.toByteArray());
        }
        try {
            assertEquals("hello", new String(read(tgz).get("cls/Terminal/X.cls"), StandardCharsets.US_ASCII));
        } finally {
            Files.delete(tgz);
        }
    }
}
