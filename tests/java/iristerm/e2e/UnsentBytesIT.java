package iristerm.e2e;

import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.modelcontextprotocol.client.McpSyncClient;
import iristerm.json.Json;

/**
 * What the server holds for a client that stops reading counts against the one memory budget
 * (--max-held-bytes): a client that asks for large answers on many connections and reads none of
 * them is dropped, connection by connection, once the answers it leaves unread pass the budget;
 * a client that reads gets every answer whole, the same large ones included.
 */
@Timeout(180)
class UnsentBytesIT {
    /**
     * The reading client's answer is held twice while it is written (in its MCP session's resumable events and
     * queued on its connection), about 12 MB: under the budget, so that however slowly a loaded machine writes
     * it, that answer is never what the budget takes.
     */
    private static final int BUDGET = 16 << 20;
    /** the session's output: each answer holds it twice (data and text), about 6 MB */
    private static final int OUTPUT = 3_000_000;
    /** connections of the client that stops reading; the kernel takes up some 3 MB of each, the rest (~24 MB) is held */
    private static final int UNREAD = 8;

    @TempDir
    Path dir;

    @Test
    void aClientThatStopsReadingIsDroppedAndOneThatReadsIsNot() throws Exception {
        CountDownLatch dropped = new CountDownLatch(1);
        try (HttpServer server = new HttpServer(dir, List.of("--max-held-bytes", String.valueOf(BUDGET)), line -> {
            if (line.contains("Dropping SSE stream") && line.contains("--max-held-bytes")) {
                dropped.countDown();
            }
        })) {
            McpSyncClient reader = server.connect(n -> { }, p -> { });
            String session = (String) ok(reader, "session_open", "command", "sh", "args", List.of("-c",
                    "head -c " + OUTPUT + " /dev/zero | tr '\\0' x; echo; echo done-$((6*7)); exec cat"), "mode", "pipe",
                    "wait_ms", 0).get("session");
            Map<String, Object> all = ok(reader, "session_read", "session", session, "wait_ms", 50000,
                    "until", Map.of("pattern", "done-42"), "max_bytes", 2 * OUTPUT);
            assertEquals("pattern", all.get("reason"), () -> "" + all.get("reason"));

            List<Socket> unread = new ArrayList<>();
            try {
                for (int i = 0; i < UNREAD; i++) {
                    unread.add(askAndStopReading(server.endpoint(), session, i));
                }
                assertTrue(dropped.await(60, TimeUnit.SECONDS), "no connection of the client that stopped reading "
                        + "was dropped");
                // the reading client gets the same large answers whole
                for (int i = 0; i < 3; i++) {
                    Map<String, Object> again = ok(reader, "session_read", "session", session, "all", true,
                            "max_bytes", 2 * OUTPUT);
                    assertTrue(((String) again.get("data")).length() > OUTPUT, "read " + i + " came back cut");
                }
                int whole = 0;
                for (Socket s : unread) {
                    whole += answeredWhole(s) ? 1 : 0;
                }
                assertTrue(whole < UNREAD, "every unread answer was kept until it was read");
            } finally {
                for (Socket s : unread) {
                    s.close();
                }
            }
        }
    }

    /**
     * A connection that asks for the whole transcript (MCP 2026-07-28, its answer on an event stream)
     * with a receive buffer of a few KB, and then reads nothing.
     */
    private static Socket askAndStopReading(URI mcp, String session, int id) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress(mcp.getHost(), mcp.getPort()));
        String body = Json.MAPPER.writeValueAsString(Map.of("jsonrpc", "2.0", "id", id, "method", "tools/call",
                "params", Map.of("name", "session_read", "arguments", Map.of("session", session, "all", true,
                        "max_bytes", 2 * OUTPUT), "_meta", Map.of("io.modelcontextprotocol/protocolVersion", "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities", Map.of()))));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /mcp HTTP/1.1\r\nHost: " + mcp.getAuthority() + "\r\nAuthorization: Bearer " + HttpServer.TOKEN
                + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                + "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: session_read\r\n"
                + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        return socket;
    }

    /** Reads what the server sent on the connection: whether its answer came whole (its result) before the end. */
    private static boolean answeredWhole(Socket socket) throws IOException {
        socket.setSoTimeout(30_000);
        InputStream in = socket.getInputStream();
        byte[] buf = new byte[1 << 16];
        StringBuilder tail = new StringBuilder();
        try {
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                tail.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                if (tail.length() > 4096) {
                    tail.delete(0, tail.length() - 4096);
                }
                int result = tail.indexOf("\"isError\"");
                if (result >= 0 && tail.indexOf("\n\n", result) >= 0) {
                    return true;
                }
            }
        } catch (IOException reset) {
            return false;
        }
        return false;
    }
}
