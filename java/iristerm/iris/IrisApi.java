package iristerm.iris;

import iristerm.session.SessionException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.util.function.Supplier;

import static iristerm.iris.IrisFields.CODE;
import static iristerm.iris.IrisFields.FAULT;
import static iristerm.iris.IrisFields.MESSAGE;

/**
 * Calls Terminal.Session with JSON built and read here, turning an API fault into a
 * {@link SessionException} whose message IRIS wrote for the caller.
 */
public final class IrisApi {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** set while this thread serves a request (hosted: the gateway thread IRIS called in on) */
    private static final ThreadLocal<Boolean> SERVING = new ThreadLocal<>();

    private final IrisCalls calls;
    private final String sessionNamespace;

    public IrisApi(IrisCalls calls) {
        this(calls, null);
    }

    /**
     * @param sessionNamespace where a session starts when its caller names no namespace; null: where the
     *                         Terminal classes are reached (Terminal.Session.Open's own default)
     */
    public IrisApi(IrisCalls calls, String sessionNamespace) {
        this.calls = calls;
        this.sessionNamespace = sessionNamespace;
    }

    public IrisCalls calls() {
        return calls;
    }

    /** The namespace a session starts in when its caller names none, or null for Terminal.Session.Open's default. */
    public String sessionNamespace() {
        return sessionNamespace;
    }

    /** Runs {@code work} as a request's own work: IRIS may be called from this thread meanwhile. */
    public static <T> T serving(Supplier<T> work) {
        Boolean before = SERVING.get();
        SERVING.set(Boolean.TRUE);
        try {
            return work.get();
        } finally {
            SERVING.set(before);
        }
    }

    /**
     * Whether IRIS may be called from this thread: always over the Native API; hosted only on the
     * thread of a request ({@link #serving}), never on a server thread of its own (idle timeout, shutdown).
     */
    public boolean callableHere() {
        return calls.anyThread() || Boolean.TRUE.equals(SERVING.get());
    }

    /**
     * The IRIS user that {@code identity}'s session job and calls must run as: the identity itself where
     * IRIS runs calls as the caller (hosted); null where no user is to be compared (standalone).
     */
    public String ownerUser(String identity) {
        return calls.runsAsCaller() ? identity : null;
    }

    /**
     * Whether {@code user}, the IRIS user something ran as, is not {@code owner} (IRIS user names are
     * case-insensitive); false when there is no owner to compare with or IRIS named no user.
     */
    public static boolean otherUser(String owner, String user) {
        return owner != null && user != null && !user.equalsIgnoreCase(owner);
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
        /** Signal: no such process (the job has ended) */
        public static final String GONE = "GONE";

        private final String code;

        Fault(String code, String message) {
            super(message + (code.isEmpty() ? "" : " [" + code + "]"));
            this.code = code;
        }

        public String code() {
            return code;
        }

        public boolean gone() {
            return code.equals(GONE);
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "null" : s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
