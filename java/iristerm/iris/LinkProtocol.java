package iristerm.iris;

import java.util.List;

import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The vocabulary of the link between a session job and this server (docs/iris-contract.md, "The
 * link"), in one place so that a test can hold it against cls/Terminal/Engine.cls.
 */
public final class LinkProtocol {
    private LinkProtocol() {
    }

    /**
     * Reads what a job writes (hellos, marks, SQL answers): JSON from IRIS's %ToJSON, taking also a number written
     * the ObjectScript way, with no digit before its decimal point (.5), should a version write one.
     */
    public static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_LEADING_DECIMAL_POINT_FOR_NUMBERS).build();

    /** A mark: ESC ] 7715 ; &lt;mark&gt; ; &lt;json&gt; BEL. */
    public static final String MARK_INTRO = "\u001b]7715;";

    // ---- job → Java: mark events ("e")
    public static final String PROMPT = "prompt";
    public static final String START = "start";
    public static final String DONE = "done";
    public static final String READ = "read";
    public static final String READEND = "readend";
    public static final String SQL = "sql";
    public static final String BYE = "bye";
    public static final List<String> EVENTS = List.of(PROMPT, START, DONE, READ, READEND, SQL, BYE);

    // ---- Java → job: line types ("t")
    public static final String EXECUTE = "x";
    public static final String ANSWER = "a";
    public static final String QUERY = "q";
    public static final String END = "bye";
    public static final List<String> INBOUND = List.of(EXECUTE, ANSWER, QUERY, END);

    /** the hello's fields Java reads */
    public static final List<String> HELLO_FIELDS = List.of("ticket", "pid", "user", "roles", "mark", "refused",
            "namespace", "iris", "instance");
    /** the marks' fields Java reads ("e" and, per event, what IrisEngine follows) */
    public static final List<String> MARK_FIELDS = List.of("e", "n", "ns", "tl", "ms", "error", "r", "timeout",
            "result");

    /** the longest first line a connecting job may send */
    public static final int MAX_HELLO_BYTES = 64 * 1024;
    /** how long a ticket is good for: the Open's bound, from minting the ticket to the job's hello */
    public static final long HELLO_MILLIS = 10_000;
    /**
     * how long a connection may take, from its connect, to send its whole hello: a job sends it in the same
     * breath as it connects, so only a connection that holds a place in the queue without being a job waits longer
     */
    public static final long HELLO_READ_MILLIS = 2_000;
}
