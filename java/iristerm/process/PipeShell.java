package iristerm.process;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * bash on pipes is not interactive, so it shows no prompt and a waiting read could not tell when a
 * command is done. Started as an interactive shell on pipes instead ({@code -i}; {@code --noediting}
 * so that it does not echo the input back), it prints its prompt (to stderr, which a pipe session
 * merges into its output) after every command. A bash that runs a script or {@code -c} is left as given.
 */
final class PipeShell {
    private PipeShell() {
    }

    /** The arguments to start {@code executable} with on pipes. */
    static List<String> args(String executable, List<String> args) {
        if (!Path.of(executable).getFileName().toString().equals("bash") || runsScript(args)) {
            return args;
        }
        // bash takes its long options before any single-letter one
        List<String> interactive = new ArrayList<>();
        interactive.add("--noediting");
        interactive.addAll(args);
        interactive.add("-i");
        return interactive;
    }

    /** Whether bash is given a command string, a script file or its own -i (anything not a plain option). */
    private static boolean runsScript(List<String> args) {
        for (String a : args) {
            if (a.equals("-c") || a.equals("-i") || !(a.startsWith("-") || a.startsWith("+"))) {
                return true;
            }
        }
        return false;
    }
}
