package iristerm.e2e;

import iristerm.cli.StdioCommand;
import iristerm.iris.FakeIrisCalls;

/** The real stdio server, with IRIS replaced by the contract fake: what the iris scenarios drive. */
public final class FakeIrisStdioMain {
    private FakeIrisStdioMain() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        FakeIrisCalls iris = new FakeIrisCalls("_SYSTEM");
        int code = StdioCommand.run(args, iris);
        iris.shutdown();
        System.exit(code);
    }
}
