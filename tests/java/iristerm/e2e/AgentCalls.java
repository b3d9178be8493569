package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The tool calls of one agent task, made as an agent makes them (the tools' defaults first) and
 * tallied: how many, and which of them waited out their bound while the program was already waiting
 * for input (the dead wait issue #24 forbids). An agent that got no output, or output of a program
 * still at work where it expected the program to be done, follows up once with a waiting read, as the
 * trial's agent did; that read is a call like any other.
 */
final class AgentCalls {
    /** What the program does once the call has what it asked for. */
    enum Then {
        /** waits for input (a prompt, a question, a pager, an editor) or has exited: a timeout is a dead wait */
        WAITS,
        /** is still at work (a server, a long job): a timeout is the call's bound doing its job */
        RUNS
    }

    /** the bound of an agent's follow-up read: what issue #24 proposes as the send's default wait */
    static final int FOLLOW_UP_WAIT_MS = 10_000;

    /** the reasons that say a wait ended with the program done with what it was given */
    private static final Set<String> DONE = Set.of("prompt", "input", "exit");

    /** the escape text an agent writes for a named key when the server takes no names */
    private static final Map<String, String> KEY_TEXT = Map.of("ctrl-c", "\u0003", "esc", "\u001b");

    /** one call's answer: its structured content (or error text), and how long it took */
    record Answer(Map<String, Object> result, String text, boolean error, long millis) {
        String data() {
            Object d = result.get("data");
            return d == null ? "" : (String) d;
        }

        String reason() {
            return (String) result.get("reason");
        }

        String state() {
            return (String) result.get("state");
        }

        /** the wait ended on the prompt, an input wait or the exit, or the state says so: either tells an agent */
        boolean programDone() {
            return reason() != null && DONE.contains(reason()) || "waiting_input".equals(state())
                    || "exited".equals(state());
        }

        Integer exitCode() {
            return result.get("exit_code") instanceof Number n ? n.intValue() : null;
        }

        Object get(String key) {
            return result.get(key);
        }

        /** the fields an agent judges an answer by, for a reason in the table */
        String summary() {
            String d = data();
            String tail = d.length() > 60 ? "…" + d.substring(d.length() - 60) : d;
            return "reason " + reason() + ", state " + state() + ", " + d.length() + " chars"
                    + (d.isEmpty() ? "" : " ending " + Tally.oneLine(tail));
        }
    }

    /** counts shared by every connection one task uses (a restart means a second client) */
    static final class Tally {
        /** each call as {@code tool: reason, state, time}, in order */
        final List<String> calls = new ArrayList<>();
        int deadWaits;
        long deadWaitMillis;
        final List<String> sessions = new ArrayList<>();

        static String oneLine(String s) {
            return s.replace("\r", "\\r").replace("\n", "\\n").replace("|", "\\|");
        }
    }

    private final McpSyncClient client;
    private final Tally tally;

    AgentCalls(McpSyncClient client) {
        this(client, new Tally());
    }

    private AgentCalls(McpSyncClient client, Tally tally) {
        this.client = client;
        this.tally = tally;
    }

    /** The same task going on over another connection (after a server restart). */
    AgentCalls on(McpSyncClient other) {
        return new AgentCalls(other, tally);
    }

    Tally tally() {
        return tally;
    }

    /** One counted call, as it comes back: a tool error is an answer too. */
    Answer call(Then then, String tool, Map<String, Object> args) {
        long start = System.nanoTime();
        Map<String, Object> result;
        String text;
        boolean error;
        try {
            McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest(tool, args));
            error = Boolean.TRUE.equals(r.isError());
            text = Mcp.text(r);
            result = structured(r);
        } catch (McpError e) {
            error = true;
            text = e.getMessage();
            result = Map.of();
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        Answer a = new Answer(result, text, error, millis);
        tally.calls.add(tool + ": " + (error ? "refused" : a.reason() + ", " + a.state()) + ", " + millis + " ms");
        if (then == Then.WAITS && "timeout".equals(a.reason())) {
            tally.deadWaits++;
            tally.deadWaitMillis += millis;
        }
        if (tool.equals("session_open") && result.get("session") instanceof String id) {
            tally.sessions.add(id);
        }
        return a;
    }

    /** tools/list, counted: what an agent looks at to learn what it can do */
    List<McpSchema.Tool> tools() {
        long start = System.nanoTime();
        List<McpSchema.Tool> tools = client.listTools().tools();
        tally.calls.add("tools/list: " + tools.size() + " tools, " + (System.nanoTime() - start) / 1_000_000 + " ms");
        return tools;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> structured(McpSchema.CallToolResult r) {
        return r.structuredContent() instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    /** A counted call that must succeed. */
    Answer ok(Then then, String tool, Object... kv) {
        Answer a = call(then, tool, Mcp.args(kv));
        if (a.error()) {
            fail(tool + " refused: " + Tally.oneLine(a.text()));
        }
        return a;
    }

    /** session_open with its defaults, followed up when it came back before the program was done. */
    Answer open(Then then, Object... kv) {
        Answer a = ok(then, "session_open", kv);
        return followUp(then, (String) a.get("session"), a);
    }

    /**
     * session_send with its defaults, followed up likewise. Named keys a server does not take are sent
     * again as the escape text an agent would write instead (one more call).
     */
    Answer send(Then then, String session, Object... kv) {
        Map<String, Object> args = Mcp.args("session", session);
        args.putAll(Mcp.args(kv));
        Answer a = call(then, "session_send", args);
        if (a.error() && args.get("keys") instanceof List<?> keys) {
            Map<String, Object> typed = new LinkedHashMap<>(args);
            StringBuilder text = new StringBuilder((String) args.getOrDefault("text", ""));
            keys.forEach(k -> text.append(KEY_TEXT.getOrDefault((String) k, "")));
            typed.remove("keys");
            typed.put("text", text.toString());
            typed.put("enter", false);
            a = call(then, "session_send", typed);
        }
        if (a.error()) {
            fail("session_send refused: " + Tally.oneLine(a.text()));
        }
        return followUp(then, session, a);
    }

    /** session_read as asked, with no follow-up: the agent reads for a reason of its own. */
    Answer read(Then then, String session, Object... kv) {
        Map<String, Object> args = Mcp.args("session", session);
        args.putAll(Mcp.args(kv));
        Answer a = call(then, "session_read", args);
        if (a.error()) {
            fail("session_read refused: " + Tally.oneLine(a.text()));
        }
        return a;
    }

    /**
     * What an agent does with an answer that holds no read (a send that only wrote) or ended before the
     * program was done where it expected it done (a quiet pause, the bound): one read that waits for the
     * command to be done.
     * The answer it judges by is both together.
     */
    private Answer followUp(Then then, String session, Answer first) {
        boolean unread = first.reason() == null;
        boolean unfinished = then == Then.WAITS && !first.programDone();
        if (session == null || !(unread || unfinished)) {
            return first;
        }
        Answer more = read(then, session, "wait_ms", FOLLOW_UP_WAIT_MS);
        Map<String, Object> both = new LinkedHashMap<>(first.result());
        both.putAll(more.result());
        both.put("data", first.data() + more.data());
        return new Answer(both, first.text() + more.text(), false, first.millis() + more.millis());
    }

    /** Closes what the task left open, outside the tally (tidying up is not the task). */
    void closeAll() {
        for (String id : tally.sessions) {
            try {
                client.callTool(new McpSchema.CallToolRequest("session_close", Mcp.args("session", id)));
            } catch (RuntimeException e) {
                // a session of a server that is gone, or one the task closed itself
            }
        }
    }
}
