package iristerm.process;

import java.util.List;
import java.util.Map;

/** How to start an OS process for a session. */
public record ProcessSpec(String command, List<String> args, String cwd, Map<String, String> env,
                          boolean pty, int cols, int rows) {
}
