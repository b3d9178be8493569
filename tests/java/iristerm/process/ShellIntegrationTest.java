package iristerm.process;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which programs get shell integration, and how their arguments and environment change for it. */
class ShellIntegrationTest {
    private static ShellIntegration.Setup apply(String exe, boolean pty, Map<String, String> env, String... args) {
        return ShellIntegration.apply(exe, List.of(args), pty, env);
    }

    @Test
    void onlyAnInteractiveBashInAPtyIsSetUp() {
        for (List<String> args : List.of(List.of("-c", "echo hi"), List.of("script.sh"), List.of("-s"),
                List.of("--rcfile"), List.of("-x"))) {
            Map<String, String> env = new HashMap<>();
            ShellIntegration.Setup s = ShellIntegration.apply("/usr/bin/bash", args, true, env);
            assertFalse(s.marks(), args::toString);
            assertEquals(args, s.args());
            assertEquals(Map.of(), env, "nothing set for " + args);
        }
        assertFalse(apply("bash", false, new HashMap<>()).marks(), "pipe mode is left as given");
        assertFalse(apply("/bin/dash", true, new HashMap<>()).marks());
        for (List<String> args : List.of(List.of("-c", "echo hi"), List.of("script.zsh"), List.of("-f"), List.of("--no-rcs"))) {
            Map<String, String> env = new HashMap<>();
            assertFalse(ShellIntegration.apply("/usr/bin/zsh", args, true, env).marks(), args::toString);
            assertEquals(Map.of(), env, "nothing set for zsh " + args);
        }
        assertFalse(apply("zsh", false, new HashMap<>()).marks(), "pipe mode is left as given");
    }

    @Test
    void zshReadsTheServersZshenvFirstWhichPutsTheUsersZdotdirBack() throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("ZDOTDIR", "/home/u/.config/zsh"));
        ShellIntegration.Setup s = apply("/usr/bin/zsh", true, env, "-l");
        assertTrue(s.marks());
        assertEquals(List.of("-l"), s.args(), "zsh's arguments stay as given");
        assertEquals("/home/u/.config/zsh", env.get(ShellIntegration.USER_ZDOTDIR));
        Path zshenv = Path.of(env.get("ZDOTDIR"), ".zshenv");
        String text = Files.readString(zshenv);
        assertTrue(text.contains("ZDOTDIR=$" + ShellIntegration.USER_ZDOTDIR) && text.contains("133;D;%s"), text);
        Map<String, String> none = new HashMap<>();
        apply("zsh", true, none);
        assertFalse(none.containsKey(ShellIntegration.USER_ZDOTDIR), "no ZDOTDIR of the user's: none is put back");
    }

    @Test
    void theUsersOwnPromptCommandAndPs0RunAfterTheMarks() {
        Map<String, String> env = new HashMap<>(Map.of("PROMPT_COMMAND", "history -a", "PS0", "> "));
        ShellIntegration.Setup s = apply("bash", true, env, "--norc", "--noprofile");
        assertTrue(s.marks());
        assertEquals(List.of("--norc", "--noprofile"), s.args(), "--norc: no startup file of the server's either");
        assertEquals(ShellIntegration.PROMPT_COMMAND + ";history -a", env.get("PROMPT_COMMAND"));
        assertEquals(ShellIntegration.PS0 + "> ", env.get("PS0"));
    }

    @Test
    void aLoginShellKeepsItsProfilesAndGetsTheMarksFromTheEnvironment() {
        Map<String, String> env = new HashMap<>();
        ShellIntegration.Setup s = apply("bash", true, env, "-l");
        assertTrue(s.marks());
        assertEquals(List.of("-l"), s.args());
        assertEquals(ShellIntegration.PROMPT_COMMAND, env.get("PROMPT_COMMAND"));
    }

    @Test
    void theServersStartupFileReadsTheOneTheUserGaveAndIsValidBash() throws Exception {
        Map<String, String> env = new HashMap<>();
        ShellIntegration.Setup s = apply("bash", true, env, "--rcfile", "/home/u/my.rc", "-i");
        assertTrue(s.marks());
        assertEquals("--rcfile", s.args().get(0));
        assertEquals(List.of("-i"), s.args().subList(2, s.args().size()));
        assertEquals("/home/u/my.rc", env.get(ShellIntegration.USER_RC));
        Process check = new ProcessBuilder("bash", "-n", Path.of(s.args().get(1)).toString()).redirectErrorStream(true).start();
        try {
            assertTrue(check.waitFor(10, TimeUnit.SECONDS));
            String said = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, check.exitValue(), said);
        } finally {
            check.destroyForcibly();
        }
    }
}
