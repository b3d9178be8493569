package iristerm.cli;

import iristerm.mcp.Version;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Arrays;

/** Entry point of the jar: {@code stdio} (an MCP client spawns it) and the other modes as subcommands. */
@Command(name = "iris-terminal-mcp", mixinStandardHelpOptions = true, versionProvider = Main.VersionProvider.class,
        description = "MCP server giving AI agents persistent IRIS terminals and supervised PTY processes.",
        subcommands = {ServeCommand.class, StdioCommand.class, InstallCommand.class, DoctorCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        logToStderr();
        CommandLine serving = args.length > 0 ? servingMode(args[0]) : null;
        int code = serving != null
                ? configure(serving).execute(Arrays.copyOfRange(args, 1, args.length))
                : configure(new CommandLine(new Main())).execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Before anything logs: every library's log lines go to stderr. */
    static void logToStderr() {
        // stdout belongs to the MCP transport in stdio mode: nothing else may write there
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        // Undertow and XNIO log through JBoss Logging: send it to the same place
        System.setProperty("org.jboss.logging.provider", "slf4j");
    }

    /**
     * A serving mode ({@code stdio}, {@code serve}) is parsed as its own command: picocli instantiates
     * every subcommand it is given, and building the others would load classes (IRIS, HTTP, the
     * installer) that a start never uses. Its {@link StartPreparation} begins before picocli builds
     * its model, on a second thread. Null for anything else (help, version, install, doctor), which
     * goes through the full command tree.
     */
    private static CommandLine servingMode(String mode) {
        return switch (mode) {
            case "stdio" -> new CommandLine(new StdioCommand(StartPreparation.begin(StartPreparation.Mode.STDIO)))
                    .setCommandName("iris-terminal-mcp stdio");
            case "serve" -> new CommandLine(new ServeCommand(StartPreparation.begin(StartPreparation.Mode.SERVE)))
                    .setCommandName("iris-terminal-mcp serve");
            default -> null;
        };
    }

    static CommandLine configure(CommandLine cmd) {
        return cmd.setCaseInsensitiveEnumValuesAllowed(true).setExecutionExceptionHandler(Main::startupFailed);
    }

    /** Set (to anything but 0 or false) to see the stack trace behind a start-up error. */
    static final String DEBUG_ENV = "IRIS_TERMINAL_DEBUG";

    /**
     * A bad option value, a busy port or an unreachable IRIS is a one-line error, not a stack trace;
     * IRIS_TERMINAL_DEBUG=1 adds the trace for whoever has to dig deeper.
     */
    private static int startupFailed(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        String message = e instanceof StartupError ? e.getMessage() : StartupError.reason(e);
        System.err.println("iris-terminal-mcp: " + message);
        String debug = System.getenv(DEBUG_ENV);
        if (debug != null && !debug.isBlank() && !debug.equals("0") && !debug.equalsIgnoreCase("false")) {
            e.printStackTrace();
        }
        return 2;
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"iris-terminal-mcp " + Version.current()};
        }
    }
}
