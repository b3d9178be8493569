package iristerm.e2e;

/** The session scenarios again, over Streamable HTTP against the packaged jar's `serve`. */
class HttpSessionsIT extends SessionScenarios {
    @Override
    protected ServerUnderTest.Launcher launcher() {
        return HttpServer::new;
    }
}
