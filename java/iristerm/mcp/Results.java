package iristerm.mcp;

import iristerm.session.ReadResult;

import java.util.LinkedHashMap;
import java.util.Map;

/** Builds the structured maps tools answer with; null fields are left out. */
final class Results {
    private Results() {
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            if (kv[i + 1] != null) {
                m.put((String) kv[i], kv[i + 1]);
            }
        }
        return m;
    }

    static Map<String, Object> read(ReadResult r) {
        return map("data", r.data(), "bytes", r.bytes(), "cursor", r.cursor(), "available", r.available(),
                "reason", r.reason().name(), "state", r.state().name(), "exit_code", r.exitCode(),
                "signal", r.signal(), "file", r.file(), "hint", r.hint(),
                "left_out", r.leftOut() == null ? null : map("from", r.leftOut().from(), "to", r.leftOut().to(),
                        "bytes", r.leftOut().bytes()));
    }

    /**
     * The text an agent sees first: the output itself, then one line of status. The output is copied
     * once, into the answer's text, whose serialization escapes it once for both places it goes
     * (see iristerm.json.ReadAnswerSerializer).
     */
    static String readText(ReadResult r) {
        StringBuilder b = new StringBuilder();
        if (!r.data().isEmpty() && !r.data().endsWith("\n")) {
            b.append('\n');
        }
        b.append("[reason=").append(r.reason()).append(" state=").append(r.state())
                .append(" cursor=").append(r.cursor()).append(" available=").append(r.available());
        if (r.exitCode() != null) {
            b.append(" exit_code=").append(r.exitCode());
        }
        if (r.signal() != null) {
            b.append(" signal=").append(r.signal());
        }
        if (r.file() != null) {
            b.append(" file=").append(r.file());
        }
        b.append(']');
        if (r.hint() != null) {
            b.append('\n').append(r.hint());
        }
        return r.data().concat(b.toString());
    }

    /** JSON-schema properties of a read result, shared by every tool that answers with one. */
    static final String READ_PROPERTIES = """
            "data": {"type": "string", "description": "output (escape sequences removed unless strip_ansi is false)"},
            "bytes": {"type": "integer", "description": "raw bytes consumed by this read"},
            "cursor": {"type": "integer", "description": "the reader's offset after this read"},
            "available": {"type": "integer", "description": "bytes still pending for this reader"},
            "reason": {"type": "string", "enum": ["data", "pattern", "quiet", "prompt", "input", "exit", "timeout", "oversized", "screen"]},
            "state": {"type": "string", "enum": ["starting", "running", "waiting_input", "idle", "exited"]},
            "exit_code": {"type": "integer", "description": "once the process has exited, its exit code; at the shell's own prompt (reason prompt; bash in a pty), the exit status of the command that just ended there"},
            "signal": {"type": "string"},
            "file": {"type": "string", "description": "with to_file: where the output was written"},
            "hint": {"type": "string", "description": "what to do next, when there is something to do"},
            "left_out": {"type": "object", "description": "reason oversized: the output between these log offsets was consumed but not shown (data holds what came before and after it); session_read with cursor: from reads it", "properties": {
              "from": {"type": "integer"}, "to": {"type": "integer"}, "bytes": {"type": "integer"}}}
            """;

    /**
     * JSON-schema properties of the optional read in a call's input, shared likewise; the call's own
     * default wait and what a wait of 0 does.
     */
    static String readInputProperties(long defaultWaitMs, String waitZero) {
        return """
            "reader": {"type": "string", "description": "named cursor; each reader sees all output independently", "default": "default"},
            "wait_ms": {"type": "integer", "minimum": 0, "default": %d, "description": "wait up to this long for the until condition (0: %s)"},
            "until": {
              "description": "stop waiting early when any of these holds; or a shorthand string. Default (or the string done): the command is done: its prompt is back (reason prompt: for bash in a pty, the shell's own prompt, with the command's exit_code), the program waits for input from the terminal (input: asked of the kernel, pty sessions on Linux), the process exited (exit), or, where neither a prompt nor the kernel tells, its output has been quiet for 300 ms after it began (quiet). data true (or the string data): the first new byte",
              "anyOf": [
                {"type": "object", "properties": {
                  "data": {"type": "boolean", "description": "any new output (returns on the first byte)"},
                  "pattern": {"type": "string", "description": "Java regex searched in the pending output"},
                  "quiet_ms": {"type": "integer", "minimum": 1, "description": "no output for this long"},
                  "prompt": {"type": "boolean", "description": "a prompt or end of command appears"},
                  "exit": {"type": "boolean", "description": "the process exits"}},
                  "additionalProperties": false},
                {"type": "string", "enum": ["done", "data", "prompt", "exit"]}]},
            "max_bytes": {"type": "integer", "minimum": 1, "description": "most bytes to return (default 32768); when more came, the answer (reason oversized) holds the first and last part of it within this budget, says what was left out between (left_out), and the reader moves past all of it"},
            "force": {"type": "boolean", "description": "return max_bytes even if more is pending (paging)"},
            "strip_ansi": {"type": "boolean", "default": true, "description": "remove escape sequences and collapse \\r overwrites"}
            """.formatted(defaultWaitMs, waitZero);
    }
}
