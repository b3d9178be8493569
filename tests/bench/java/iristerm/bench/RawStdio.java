package iristerm.bench;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A minimal MCP client over stdio written here: one JSON-RPC line out, lines in until the answer.
 * A diagnostic next to the SDK client, to tell the server's own cost from the client library's.
 */
final class RawStdio implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Process process;
    private final OutputStream in;
    private final BufferedReader out;
    private final AutoCloseable watchdog;
    private int nextId = 1;

    RawStdio(List<String> launch, Path dataDir, List<String> options, Duration limit) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Servers.java());
        cmd.addAll(launch);
        cmd.addAll(List.of("--data-dir", dataDir.toString()));
        cmd.addAll(options);
        process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        watchdog = Servers.watchdog(limit, process::destroyForcibly);
        in = process.getOutputStream();
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8), 1 << 16);
        request("initialize", Map.of("protocolVersion", "2025-06-18", "capabilities", Map.of(),
                "clientInfo", Map.of("name", "bench-raw", "version", "1")));
        send(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
    }

    /** A tool call's structured content; a tool error throws. */
    JsonNode call(String tool, Object... kv) throws IOException {
        JsonNode result = request("tools/call", Map.of("name", tool, "arguments", Servers.args(kv)));
        if (result.path("isError").asBoolean(false)) {
            throw new Servers.CallFailed(tool + " failed: " + result.path("content"));
        }
        return result.path("structuredContent");
    }

    private JsonNode request(String method, Object params) throws IOException {
        int id = nextId++;
        send(Map.of("jsonrpc", "2.0", "id", id, "method", method, "params", params));
        String line;
        while ((line = out.readLine()) != null) {
            JsonNode n = JSON.readTree(line);
            if (n.path("id").asInt(-1) == id) {
                if (n.has("error")) {
                    throw new IOException(method + " failed: " + n.path("error"));
                }
                return n.path("result");
            }
        }
        throw new IOException("the server closed stdout before answering " + method);
    }

    private void send(Object message) throws IOException {
        byte[] b = JSON.writeValueAsBytes(message);
        in.write(b);
        in.write('\n');
        in.flush();
    }

    @Override
    public void close() throws Exception {
        try {
            in.close();
        } catch (IOException e) {
            // ending anyway
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        watchdog.close();
    }
}
