package iristerm.e2e;

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import java.nio.file.Files;
import java.util.List;

/**
 * The iris scenarios against a live IRIS, when IRIS_HOSTNAME (and IRIS_PORT, IRIS_NAMESPACE,
 * IRIS_USERNAME, IRIS_PASSWORD) are set and the Terminal classes are installed there
 * (java -jar target/iris-terminal-mcp.jar install). Reports itself skipped otherwise.
 */
@EnabledIfEnvironmentVariable(named = "IRIS_HOSTNAME", matches = ".+",
        disabledReason = "IRIS_HOSTNAME is not set: no live IRIS to test against")
class LiveIrisIT extends IrisScenarios {
    @Override
    protected ServerUnderTest start() throws Exception {
        return new StdioServer(Files.createTempDirectory("itm-live-iris"), List.of());
    }
}
