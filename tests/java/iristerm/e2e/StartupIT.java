package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a start leaves behind and what a failed start says: the jar as a user runs it. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StartupIT {

    @Test
    void aBusyPortIsOneLineNamingTheAddressAndAWayOut() throws Exception {
        try (HttpServer first = new HttpServer(Files.createTempDirectory("itm-first"), List.of())) {
            String address = first.endpoint().getAuthority();
            Process second = new ProcessBuilder(ServeProcess.java(), "-jar", StdioServer.jar().toString(), "serve",
                    "--listen", address, "--data-dir", Files.createTempDirectory("itm-second").toString(),
                    "--token", HttpServer.TOKEN)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertTrue(second.waitFor(60, TimeUnit.SECONDS), "the second server did not give up");
            String stderr = new String(second.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertNotEquals(0, second.exitValue(), stderr);
            List<String> errors = stderr.lines().filter(l -> l.startsWith("iris-terminal-mcp:")).toList();
            assertEquals(1, errors.size(), stderr);
            assertTrue(errors.get(0).contains(address) && errors.get(0).contains("in use")
                    && errors.get(0).contains("--listen 127.0.0.1:0"), errors.get(0));
            assertFalse(stderr.contains("\tat ") || stderr.contains("Exception"), "a stack trace: " + stderr);
        }
    }

    @Test
    void twoStartsLeaveNothingInTheTemporaryFolder() throws Exception {
        Path tmp = Files.createTempDirectory("itm-tmp");
        Path data = Files.createTempDirectory("itm-native");
        for (int start = 0; start < 2; start++) {
            StdioServer server = new StdioServer(data, List.of(),
                    List.of("-Djava.io.tmpdir=" + tmp, "-jar", StdioServer.jar().toString(), "stdio"), Map.of());
            try {
                McpSyncClient c = server.connect(n -> { });
                // a pty session makes pty4j load its native library
                String s = (String) ok(c, "session_open", "command", "cat", "mode", "pty").get("session");
                ok(c, "session_close", "session", s);
            } finally {
                server.close();
            }
        }
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "residue in the temporary folder");
        }
        try (Stream<Path> natives = Files.list(data.resolve("native"))) {
            assertEquals(1, natives.count(), "one folder for the native library, reused by every start");
        }
    }
}
