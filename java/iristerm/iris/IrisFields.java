package iristerm.iris;

import java.util.List;

/**
 * Field names of the Terminal.Session JSON contract (docs/iris-contract.md). {@link #FIELDS_READ}
 * is every field Java reads from an answer; a test checks that the ObjectScript produces each.
 */
public final class IrisFields {
    private IrisFields() {
    }

    public static final String FAULT = "fault";
    public static final String CODE = "code";
    public static final String MESSAGE = "message";
    public static final String SESSION = "session";
    public static final String NAME = "name";
    public static final String AGENT = "agent";
    public static final String NAMESPACE = "namespace";
    public static final String PID = "pid";
    public static final String STATE = "state";
    public static final String SEQ = "seq";
    public static final String DATA = "data";
    public static final String END = "end";
    public static final String EVENTS = "events";
    public static final String EV_NEXT = "ev_next";
    public static final String TLEVEL = "tlevel";
    public static final String TYPE = "type";
    public static final String OUT_START = "out_start";
    public static final String OUT_END = "out_end";
    public static final String ELAPSED_MS = "elapsed_ms";
    public static final String ERROR = "error";
    public static final String TEXT = "text";
    public static final String LOCATION = "location";
    public static final String SOURCE = "source";
    public static final String INFO = "info";
    public static final String AT = "at";
    public static final String SESSIONS = "sessions";
    public static final String COLUMNS = "columns";
    public static final String ROWS = "rows";
    public static final String ROW_COUNT = "row_count";
    public static final String TRUNCATED = "truncated";
    public static final String SQLCODE = "sqlcode";
    /** Ping: $USERNAME of the calling process */
    public static final String USER = "user";
    /** Ping: $ROLES of the calling process */
    public static final String ROLES = "roles";
    /** Ping with "check": Terminal.Store.Check()'s report {"ok","parts":[{"part","ok","detail"}]} */
    public static final String STORE = "store";
    public static final String OK = "ok";
    public static final String PARTS = "parts";
    public static final String PART = "part";
    public static final String DETAIL = "detail";
    public static final String OWNER = "owner";
    public static final String CREATED = "created";
    /** Open, List: the IRIS instance ($SYSTEM, "node:INSTANCE") that runs the session's job; List: this one */
    public static final String INSTANCE = "instance";
    /** sent only (Open): the MCP client's name, recorded and audited by IRIS */
    public static final String CLIENT = "client";

    public static final List<String> FIELDS_READ = List.of(FAULT, CODE, MESSAGE, SESSION, NAME, AGENT, NAMESPACE,
            PID, STATE, SEQ, DATA, END, EVENTS, EV_NEXT, TLEVEL, TYPE, OUT_START, OUT_END, ELAPSED_MS,
            ERROR, TEXT, LOCATION, SOURCE, INFO, AT, SESSIONS, COLUMNS, ROWS, ROW_COUNT, TRUNCATED,
            SQLCODE, USER, ROLES, STORE, OK, PARTS, PART, DETAIL, OWNER, CREATED, INSTANCE);
}
