package iristerm.iris;

import iristerm.session.SessionException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static iristerm.iris.IrisFields.CODE;
import static iristerm.iris.IrisFields.FAULT;
import static iristerm.iris.IrisFields.MESSAGE;

/**
 * Calls Terminal.Session with JSON built and read here, turning an API fault into a
 * {@link SessionException} whose message IRIS wrote for the caller.
 */
public final class IrisApi {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final IrisCalls calls;

    public IrisApi(IrisCalls calls) {
        this.calls = calls;
    }

    public IrisCalls calls() {
        return calls;
    }

    public static ObjectNode request() {
        return JSON.createObjectNode();
    }

    public JsonNode call(IrisMethod method, ObjectNode request) {
        String answer = calls.call(method, JSON.writeValueAsString(request));
        JsonNode node;
        try {
            node = JSON.readTree(answer);
        } catch (RuntimeException e) {
            throw new SessionException("IRIS answered " + method.method() + " with something that is not JSON ("
                    + abbreviate(answer) + "); check that the Terminal classes in IRIS match this server's version");
        }
        JsonNode fault = node.get(FAULT);
        if (fault != null && !fault.isNull()) {
            throw new Fault(fault.path(CODE).asString(""), fault.path(MESSAGE).asString("IRIS refused the call"));
        }
        return node;
    }

    /** A refusal by the Terminal.Session API (not an error of the user's ObjectScript). */
    public static final class Fault extends SessionException {
        /**
         * The session's job runs on another IRIS instance than the one this call reached (a registry
         * shared by ECP application servers or a mirror); IRIS's message names both.
         */
        public static final String WRONG_INSTANCE = "WRONG_INSTANCE";

        private final String code;

        Fault(String code, String message) {
            super(message + advice(code) + (code.isEmpty() ? "" : " [" + code + "]"));
            this.code = code;
        }

        /** What to do on this server's side; IRIS knows the instances, not how this server reaches them. */
        private static String advice(String code) {
            return WRONG_INSTANCE.equals(code)
                    ? ". This server's IRIS connection reaches an instance other than the one that runs the"
                    + " session: give --iris-host the address of that instance itself, not a load-balanced one"
                    + " (hosted behind a load balancer: client affinity by Mcp-Session-Id), or open a new"
                    + " session; the old one ends there by its idle timeout"
                    : "";
        }

        public String code() {
            return code;
        }

        /** The session no longer exists in IRIS (closed, ended, removed). */
        public boolean gone() {
            return code.equals("NOT_FOUND") || code.equals("CLOSED");
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "null" : s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
