package iristerm.iris;

import com.intersystems.jdbc.IRIS;
import com.intersystems.jdbc.IRISObject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Loads the Terminal classes shipped inside the jar into an IRIS namespace over the Native API —
 * each UDL source through %Compiler.UDL.TextServices.SetTextFromStream, then one compile of all —
 * so a standalone server can set up its IRIS without files on the IRIS host. Nothing else: a session
 * keeps no run data in IRIS (docs/iris-contract.md), so there is no store to set up. Loading the same
 * sources again replaces them, so it is safe to repeat.
 */
public final class ClassInstaller {
    /** A class's name and UDL text. */
    public record Source(String className, String udl) {
    }

    /** What happened: the classes loaded and compiled, or the first step that failed. */
    public record Report(List<String> loaded, boolean compiled, String failure) {
    }

    private ClassInstaller() {
    }

    /** The .cls sources bundled in the jar (or on the class path) under cls/Terminal. */
    public static List<Source> bundled() {
        URL root = ClassInstaller.class.getResource("/cls/Terminal");
        if (root == null) {
            throw new IllegalStateException("no cls/Terminal in this build; build the jar with mvn package");
        }
        try {
            URI uri = root.toURI();
            if (uri.getScheme().equals("jar")) {
                FileSystem fs;
                try {
                    fs = FileSystems.getFileSystem(uri);
                } catch (FileSystemNotFoundException e) {
                    fs = FileSystems.newFileSystem(uri, Map.of());
                }
                return read(fs.provider().getPath(uri));
            }
            return read(Path.of(uri));
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot read the bundled classes: " + e.getMessage(), e);
        }
    }

    private static List<Source> read(Path dir) throws IOException {
        List<Source> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.sorted().toList()) {
                String file = p.getFileName().toString();
                if (file.endsWith(".cls")) {
                    out.add(new Source("Terminal." + file.substring(0, file.length() - 4),
                            Files.readString(p, StandardCharsets.UTF_8)));
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return out;
    }

    public static Report install(IRIS iris, String namespace, List<Source> sources) {
        List<String> loaded = new ArrayList<>();
        for (Source s : sources) {
            try {
                IRISObject stream = (IRISObject) iris.classMethodObject("%Stream.TmpCharacter", "%New");
                stream.invoke("Write", s.udl());
                iris.classMethodStatusCode("%Compiler.UDL.TextServices", "SetTextFromStream", namespace,
                        s.className(), stream);
                loaded.add(s.className());
            } catch (RuntimeException e) {
                return new Report(loaded, false, "loading " + s.className() + " failed: " + e.getMessage());
            }
        }
        try {
            iris.classMethodStatusCode("%SYSTEM.OBJ", "Compile", String.join(",", loaded), "ck-d");
        } catch (RuntimeException e) {
            return new Report(loaded, false, "compiling failed: " + e.getMessage());
        }
        return new Report(loaded, true, null);
    }
}
