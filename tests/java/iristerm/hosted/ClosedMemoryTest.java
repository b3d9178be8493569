package iristerm.hosted;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Check's line "process isolation" (engine review round 9, E9-1): making the JVM not dumpable closes only what is
 * opened afterwards, so the line is ok only where the kernel itself keeps a process's memory from the other
 * processes of its OS user (Yama's ptrace_scope 1 or more).
 */
class ClosedMemoryTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private JsonNode report(String scope, int dumpable) throws Exception {
        Path file = tmp.resolve("ptrace_scope");
        if (scope != null) {
            Files.writeString(file, scope + "\n");
        }
        return JSON.readTree(ClosedMemory.report(true, file, dumpable));
    }

    @Test
    void yamasRestrictionIsWhatMakesTheLineOk() throws Exception {
        for (String scope : new String[] {"1", "2", "3"}) {
            JsonNode line = report(scope, 0);
            assertTrue(line.path("ok").asBoolean(), line.toString());
            assertTrue(line.path("seen").asString().contains("ptrace_scope is " + scope + ":"), line.toString());
            assertEquals("", line.path("fix").asString());
        }
    }

    @Test
    void scopeZeroOrNoYamaFailsWithTheSysctlThatFixesIt() throws Exception {
        for (JsonNode line : new JsonNode[] {report("0", 0), report(null, 0)}) {
            assertFalse(line.path("ok").asBoolean(true), line.toString());
            assertTrue(line.path("seen").asString().contains("may open a starting JVM's memory"), line.toString());
            assertTrue(line.path("fix").asString().contains("sysctl -w kernel.yama.ptrace_scope=1"), line.toString());
        }
    }

    @Test
    void whetherThisJvmIsDumpableIsSaid() throws Exception {
        assertTrue(report("1", 0).path("seen").asString().endsWith("this JVM is not dumpable"));
        assertTrue(report("1", 1).path("seen").asString().contains("this JVM is still dumpable"));
    }

    @Test
    void elsewhereThanLinuxNothingIsRead() throws Exception {
        JsonNode line = JSON.readTree(ClosedMemory.report(false, tmp.resolve("absent"), -1));
        assertTrue(line.path("ok").asBoolean(), line.toString());
        assertTrue(line.path("seen").asString().startsWith("not Linux"), line.toString());
    }
}
