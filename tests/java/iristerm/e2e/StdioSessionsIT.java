package iristerm.e2e;

/** The session scenarios over real stdio against the packaged jar. */
class StdioSessionsIT extends SessionScenarios {
    @Override
    protected ServerUnderTest.Launcher launcher() {
        return StdioServer::new;
    }
}
