package iristerm.cli;

import iristerm.json.Json;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The run that bin/iris-terminal-mcp starts once with {@code -XX:ArchiveClassesAtExit} to write the
 * class-data archive later starts map instead of loading classes from the jar one by one. It runs
 * both serving modes in this JVM the way a start does (each prepared ahead, {@link StartPreparation}):
 * stdio on pipes, spoken to the way a client's first calls do (initialize, the tool list, a PTY and a
 * pipe session each with one interaction, then the end of input), and serve on a loopback port,
 * answering one initialize over HTTP. Classes loaded here are archived; an archived class costs
 * nothing until a start uses it.
 *
 * <p>Usage: {@code java -XX:ArchiveClassesAtExit=FILE -cp iris-terminal-mcp.jar iristerm.cli.ArchiveTraining}.
 * Exits 0 when every stdio call was answered, 1 otherwise (the launcher then keeps no archive).
 */
public final class ArchiveTraining {
    /** the whole run, bounded: a training run that hangs must not hang the start that waits for it */
    private static final long LIMIT_MILLIS = 60_000;

    private static final String INITIALIZE_PARAMS = """
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "archive-training", "version": "1"}}""";

    private final OutputStream toServer;
    private final BufferedReader fromServer;
    private int nextId = 1;

    private ArchiveTraining(OutputStream toServer, BufferedReader fromServer) {
        this.toServer = toServer;
        this.fromServer = fromServer;
    }

    public static void main(String[] args) throws Exception {
        Main.logToStderr();
        Thread limit = new Thread(() -> {
            try {
                Thread.sleep(LIMIT_MILLIS);
                System.err.println("iris-terminal-mcp: the archive training run did not finish in "
                        + LIMIT_MILLIS / 1000 + " s");
                Runtime.getRuntime().halt(1);
            } catch (InterruptedException done) {
                Thread.currentThread().interrupt();
            }
        }, "training-limit");
        limit.setDaemon(true);
        limit.start();
        Path dataDir = Files.createTempDirectory("iris-terminal-mcp-training");
        Pipe requests = Pipe.open();
        Pipe answers = Pipe.open();
        int[] served = {-1};
        Thread server = new Thread(() -> served[0] = StdioCommand.run(
                new String[]{"--data-dir", dataDir.toString()}, StartPreparation.begin(StartPreparation.Mode.STDIO),
                Channels.newInputStream(requests.source()), Channels.newOutputStream(answers.sink())),
                "training-server");
        server.start();
        boolean ok;
        try (OutputStream out = Channels.newOutputStream(requests.sink())) {
            ArchiveTraining client = new ArchiveTraining(out, new BufferedReader(
                    new InputStreamReader(Channels.newInputStream(answers.source()), StandardCharsets.UTF_8)));
            ok = client.firstCalls();
        }
        server.join(LIMIT_MILLIS);
        ok &= served[0] == 0;
        if (ok) {
            serveOnce(dataDir);
        }
        deleteTree(dataDir);
        System.exit(ok ? 0 : 1);
    }

    /**
     * The serve part is a bonus, not a condition: where no loopback port can be opened (a sandbox) the
     * archive still holds the stdio start, rather than every start training again in vain.
     */
    private static void serveOnce(Path dataDir) {
        String failure;
        try {
            failure = serve(dataDir) ? null : "its initialize was not answered";
        } catch (IOException | RuntimeException e) {
            failure = StartupError.reason(e);
        }
        if (failure != null) {
            System.err.println("iris-terminal-mcp: the archive training could not run serve (" + failure
                    + "); the archive holds the stdio start only");
        }
    }

    /** Starts serve as a start does, answers one initialize over HTTP, and closes it; true when it answered. */
    private static boolean serve(Path dataDir) throws IOException {
        String token = UUID.randomUUID().toString();
        ServeCommand command = new ServeCommand(StartPreparation.begin(StartPreparation.Mode.SERVE));
        Main.configure(new CommandLine(command)).parseArgs("--listen", "127.0.0.1:0", "--token", token,
                "--data-dir", dataDir.toString());
        try (ServeCommand.Serving serving = command.start()) {
            return httpInitialize(serving.http.endpoint(), token);
        }
    }

    /**
     * One initialize request on its own connection; true on a 200 answer. Written by hand on a socket so
     * that the archive gets the classes of the server's side, not those of an HTTP client no start uses.
     */
    private static boolean httpInitialize(URI endpoint, String token) throws IOException {
        byte[] body = ("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": "
                + INITIALIZE_PARAMS + "}").getBytes(StandardCharsets.UTF_8);
        String authority = endpoint.getHost() + ":" + endpoint.getPort();
        try (Socket socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            socket.setSoTimeout((int) LIMIT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + endpoint.getPath() + " HTTP/1.1\r\nHost: " + authority
                    + "\r\nAuthorization: Bearer " + token
                    + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
                    + "\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return answer.startsWith("HTTP/1.1 200") && answer.contains("\"serverInfo\"");
        }
    }

    /** What a client does first; true when every call was answered without an error. */
    private boolean firstCalls() throws IOException {
        boolean ok = !call("initialize", INITIALIZE_PARAMS).has("error");
        notify("notifications/initialized");
        ok &= !call("tools/list", "{}").has("error");
        for (String mode : new String[]{"pty", "pipe"}) {
            JsonNode opened = tool("session_open", "{\"command\": \"sh\", \"mode\": \"" + mode + "\"}");
            String session = opened.path("result").path("structuredContent").path("session").asString("");
            ok &= !session.isEmpty();
            if (session.isEmpty()) {
                continue;
            }
            ok &= succeeded(tool("session_send", "{\"session\": \"" + session + "\", \"text\": \"echo $((6*7))\", "
                    + "\"wait_ms\": 10000, \"until\": {\"pattern\": \"42\"}}"));
            ok &= succeeded(tool("session_read", "{\"session\": \"" + session + "\", \"wait_ms\": 0}"));
            ok &= succeeded(tool("session_close", "{\"session\": \"" + session + "\"}"));
        }
        return ok;
    }

    private static boolean succeeded(JsonNode answer) {
        return !answer.has("error") && !answer.path("result").path("isError").asBoolean(false);
    }

    private JsonNode tool(String name, String arguments) throws IOException {
        return call("tools/call", "{\"name\": \"" + name + "\", \"arguments\": " + arguments + "}");
    }

    private JsonNode call(String method, String params) throws IOException {
        int id = nextId++;
        send("{\"jsonrpc\": \"2.0\", \"id\": " + id + ", \"method\": \"" + method + "\", \"params\": " + params + "}");
        String line;
        while ((line = fromServer.readLine()) != null) {
            JsonNode answer = Json.MAPPER.readTree(line);
            if (answer.path("id").asInt(-1) == id) {
                return answer;
            }
        }
        throw new IOException("the server ended before answering " + method);
    }

    private void notify(String method) throws IOException {
        send("{\"jsonrpc\": \"2.0\", \"method\": \"" + method + "\"}");
    }

    private void send(String line) throws IOException {
        toServer.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        toServer.flush();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
