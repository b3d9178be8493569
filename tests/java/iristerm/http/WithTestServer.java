package iristerm.http;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A fresh {@link TestServer} for each test of a subclass, closed after it. */
abstract class WithTestServer {

    TestServer test;

    @BeforeEach
    void startServer(@TempDir Path dir) throws Exception {
        test = TestServer.start(dir);
    }

    @AfterEach
    void stopServer() {
        test.close();
    }
}
