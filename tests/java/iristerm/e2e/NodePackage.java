package iristerm.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A pinned npm package under tests/ (package.json and package-lock.json, with the Node 22 it
 * runs on as a dependency), installed into target/ with {@code npm ci}, and the programs run from it.
 */
record NodePackage(Path dir) {
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration VERSION_TIMEOUT = Duration.ofMinutes(1);

    /** Installs tests/{@code name} into target/{@code name}; fails the caller's tests if npm or Node 22 is missing. */
    static NodePackage install(String name) throws Exception {
        Path source = Path.of("tests", name).toAbsolutePath();
        Path into = Path.of("target", name).toAbsolutePath();
        Files.createDirectories(into);
        try (var files = Files.list(source)) {
            for (Path file : files.filter(f -> Files.isRegularFile(f)).toList()) {
                Files.copy(file, into.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Run npm;
        try {
            npm = Run.of(into, into.resolve("npm-ci.log"), INSTALL_TIMEOUT, "npm", "ci", "--no-audit", "--no-fund");
        } catch (IOException e) {
            throw new AssertionError("the tests install tests/" + name + " with npm; install Node.js 20 or later with "
                    + "npm (the Node 22 they run on comes from tests/" + name + "): " + e.getMessage(), e);
        }
        assertEquals(0, npm.exit(), "npm ci failed:\n" + npm.output());
        NodePackage p = new NodePackage(into);
        Run version = Run.of(into, into.resolve("node-version.log"), VERSION_TIMEOUT, p.node(), "--version");
        assertTrue(version.output().strip().startsWith("v22."), "the pinned Node is not 22: " + version.output());
        return p;
    }

    /** The package's own Node. */
    String node() {
        return dir.resolve("node_modules/.bin/node").toString();
    }
}
