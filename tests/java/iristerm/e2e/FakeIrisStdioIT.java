package iristerm.e2e;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;

/** The iris scenarios against the real server with the contract fake in place of IRIS. */
class FakeIrisStdioIT extends IrisScenarios {
    @Override
    protected ServerUnderTest start() throws Exception {
        List<String> launch = List.of("-cp", System.getProperty("java.class.path"),
                FakeIrisStdioMain.class.getName(), "--process", "off");
        return new StdioServer(Files.createTempDirectory("itm-fake-iris"), List.of(), launch, Map.of());
    }
}
