package iristerm.e2e;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import iristerm.iris.Interrupts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static iristerm.e2e.Mcp.error;
import static iristerm.e2e.Mcp.num;
import static iristerm.e2e.Mcp.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an agent does in an IRIS terminal, through the SDK's client over stdio. The ObjectScript
 * used is plain enough to run both on the contract fake and on a live instance.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class IrisScenarios {
    protected abstract ServerUnderTest start() throws Exception;

    ServerUnderTest server;
    McpSyncClient client;

    @BeforeAll
    void startServer() throws Exception {
        server = start();
        client = server.connect(n -> { });
    }

    @AfterAll
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    Map<String, Object> exec(String session, String code) {
        return session == null ? ok(client, "iris_execute", "code", code)
                : ok(client, "iris_execute", "code", code, "session", session);
    }

    String newSession() {
        Map<String, Object> opened = ok(client, "session_open", "kind", "iris");
        // an iris session prints nothing at start (no banner, no prompt text): its answer says so
        assertEquals("", opened.get("data"), opened::toString);
        return (String) opened.get("session");
    }

    /** With IRIS configured its tools are listed and the instructions teach them. */
    @Test
    void irisToolsAreListedAndTaught() {
        List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
        assertTrue(names.containsAll(List.of("iris_execute", "iris_sql", "session_open")), names::toString);
        assertTrue(client.getServerInstructions().contains("iris_execute"), client::getServerInstructions);
    }

    @Test
    void writeComesBackAsOutputWithNamespaceAndLevel() {
        Map<String, Object> r = exec(null, "write \"hello\",!,\"world\"");
        assertEquals("ok", r.get("status"), r::toString);
        assertEquals("hello\nworld", r.get("output"));
        assertEquals("USER", r.get("namespace"));
        assertEquals(0L, num(r, "tlevel"));
        assertTrue(r.containsKey("session"));
    }

    @Test
    void defaultSessionKeepsVariables() {
        String first = (String) exec(null, "set greeting=\"hi there\"").get("session");
        Map<String, Object> r = exec(null, "write greeting");
        assertEquals(first, r.get("session"));
        assertEquals("hi there", r.get("output"));
    }

    @Test
    void errorsAreDecomposed() {
        String s = newSession();
        Map<String, Object> r = exec(s, "write nosuchvariable");
        assertEquals("error", r.get("status"), r::toString);
        @SuppressWarnings("unchecked")
        Map<String, Object> e = (Map<String, Object>) r.get("error");
        assertEquals("<UNDEFINED>", e.get("code"));
        assertEquals("*nosuchvariable", e.get("info"));
        assertTrue(((String) e.get("location")).contains("^"), e::toString);
        assertTrue(((String) e.get("text")).startsWith("<UNDEFINED>"));
    }

    @Test
    void readStopsAndIsAnsweredBySessionSend() {
        String s = newSession();
        Map<String, Object> r = exec(s, "write \"Name? \" read name");
        assertEquals("reading", r.get("status"), r::toString);
        assertTrue(((String) r.get("output")).contains("Name? "), r::toString);
        Map<String, Object> answered = ok(client, "session_send", "session", s, "text", "Ada", "wait_ms", 10000,
                "until", Map.of("prompt", true));
        assertEquals("prompt", answered.get("reason"), answered::toString);
        assertEquals("idle", answered.get("state"));
        assertEquals("Ada", exec(s, "write name").get("output"));
    }

    @Test
    void longCommandRunsOnAndIsInterrupted() {
        String s = newSession();
        Map<String, Object> r = ok(client, "iris_execute", "session", s, "code", "hang 30", "timeout_ms", 300);
        assertEquals("running", r.get("status"), r::toString);
        assertTrue(error(client, "iris_execute", "session", s, "code", "write 1").contains("still running"));
        ok(client, "session_signal", "session", s, "signal", "INT");
        Map<String, Object> after = ok(client, "session_read", "session", s, "wait_ms", 10000,
                "until", Map.of("prompt", true));
        assertEquals("prompt", after.get("reason"), after::toString);
        assertTrue(Interrupts.shownIn((String) after.get("data")), after::toString);
        assertEquals("ok", exec(s, "write 2").get("status"));
    }

    @Test
    void namespaceAndTransactionLevelAreTracked() {
        String s = newSession();
        assertEquals("%SYS", exec(s, "zn \"%SYS\"").get("namespace"));
        assertEquals("%SYS", exec(s, "write 1").get("namespace"));
        Map<String, Object> t = exec(s, "tstart");
        assertEquals(1L, num(t, "tlevel"));
        assertEquals(0L, num(exec(s, "trollback"), "tlevel"));
        Map<String, Object> in = ok(client, "iris_execute", "session", s, "code", "write $namespace", "namespace", "USER");
        assertEquals("USER", in.get("output"));
    }

    @Test
    void haltEndsTheSessionAndTheNextCallGetsANewOne() {
        String before = (String) exec(null, "write 1").get("session");
        Map<String, Object> h = exec(before, "halt");
        assertTrue(((String) h.get("hint")).contains("ended"), h::toString);
        Map<String, Object> listed = ok(client, "session_list", "session", before);
        @SuppressWarnings("unchecked")
        Map<String, Object> row = ((List<Map<String, Object>>) listed.get("sessions")).get(0);
        assertEquals("exited", row.get("state"));
        assertNotEquals(before, exec(null, "write 2").get("session"));
    }

    @Test
    void sessionToolsWorkOnIrisSessions() {
        String s = newSession();
        Map<String, Object> sent = ok(client, "session_send", "session", s, "text", "write \"forty\"_\"two\"", "wait_ms", 10000,
                "until", Map.of("prompt", true));
        assertEquals("prompt", sent.get("reason"), sent::toString);
        assertTrue(((String) sent.get("data")).contains("\nfortytwo"), sent::toString);
        @SuppressWarnings("unchecked")
        Map<String, Object> row = ((List<Map<String, Object>>) ok(client, "session_list", "session", s)
                .get("sessions")).get(0);
        assertEquals("iris", row.get("kind"));
        assertEquals("USER", row.get("namespace"));
        // the instance that runs it: $SYSTEM, "node:INSTANCE"
        assertTrue(String.valueOf(row.get("instance")).contains(":"), row::toString);
        assertTrue(error(client, "session_resize", "session", s, "cols", 80, "rows", 24).contains("no terminal size"));
        Map<String, Object> closed = ok(client, "session_close", "session", s);
        assertEquals("exited", closed.get("state"));
        assertTrue(error(client, "iris_execute", "session", s, "code", "write 1").contains("exited"));
    }

    @Test
    void sqlAnswersColumnsRowsAndErrors() {
        Map<String, Object> one = ok(client, "iris_sql", "query", "SELECT 1 AS one");
        assertEquals(0L, num(one, "sqlcode"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> cols = (List<Map<String, Object>>) one.get("columns");
        assertEquals("one", String.valueOf(cols.get(0).get("name")).toLowerCase());
        assertEquals(1L, num(one, "row_count"));

        Map<String, Object> capped = ok(client, "iris_sql", "query", "SELECT ID, Name FROM Sample.Person WHERE ID > ?",
                "params", List.of(0), "max_rows", 1);
        assertEquals(Boolean.TRUE, capped.get("truncated"), capped::toString);
        assertEquals(1, ((List<?>) capped.get("rows")).size());

        // names nothing: run by an administrator (LiveIrisIT), a table name could resolve to one an agent defined
        String bad = error(client, "iris_sql", "query", "SELECT * FROM");
        assertTrue(bad.contains("SQLCODE -"), bad);
    }

    @Test
    void sqlRunsInTheGivenSessionOnlyAtItsPromptAndInItsNamespace() {
        String s = newSession();
        exec(s, "zn \"%SYS\"");
        // Sample.Person exists in USER and SAMPLES only: the statement runs where the session is
        String elsewhere = error(client, "iris_sql", "session", s, "query", "SELECT ID FROM Sample.Person");
        assertTrue(elsewhere.contains("SQLCODE -30"), elsewhere);
        Map<String, Object> there = ok(client, "iris_sql", "session", s, "namespace", "USER",
                "query", "SELECT ? AS v", "params", List.of("Bob"));
        assertEquals(List.of(List.of("Bob")), there.get("rows"), there::toString);
        ok(client, "iris_execute", "session", s, "code", "hang 30", "timeout_ms", 200);
        String busy = error(client, "iris_sql", "session", s, "query", "SELECT 1 AS one");
        assertTrue(busy.contains("cannot run the statement now") && busy.contains("still running"), busy);
        ok(client, "session_signal", "session", s, "signal", "INT");
    }

    @Test
    void aSecretAnswerToAReadIsNotEchoed() {
        String s = newSession();
        assertEquals("reading", exec(s, "read pw").get("status"));
        Map<String, Object> answered = ok(client, "session_send", "session", s, "text", "hunter2", "secret", true,
                "wait_ms", 10000, "until", Map.of("prompt", true));
        assertEquals("prompt", answered.get("reason"), answered::toString);
        assertTrue(!((String) answered.get("data")).contains("hunter2"), answered::toString);
        // the READ got it (7 characters between the brackets), and printed back it is masked like any echo
        assertEquals("<*******>", exec(s, "write \"<\"_pw_\">\"").get("output"));
    }

    @Test
    void aSecretCommandThatReadsAtOnceAnswersReadingWithoutWaitingOutItsTimeout() {
        String s = newSession();
        // nothing is written before the READ (no echo, no output): its read mark alone ends the wait
        Map<String, Object> r = ok(client, "iris_execute", "session", s, "code", "read x", "secret", true,
                "timeout_ms", 20000);
        assertEquals("reading", r.get("status"), r::toString);
        assertTrue(num(r, "elapsed_ms") < 10_000, r::toString);
        ok(client, "session_send", "session", s, "text", "done", "wait_ms", 10000, "until", Map.of("prompt", true));
    }
}
