package iristerm.security;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class OriginPolicyTest {

    private final OriginPolicy loopback = OriginPolicy.forListenHost("127.0.0.1", List.of("https://app.example.com"));

    @Test
    void loopbackListenerAnswersToLoopbackNamesOnly() {
        for (String host : List.of("127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080",
                "[0:0:0:0:0:0:0:1]:8080", "127.0.0.1")) {
            assertTrue(loopback.allowsHost(host), host);
        }
        for (String host : List.of("evil.example:8080", "evil.example", "localhost.evil.example:8080", "", "[::2]",
                "10.0.0.1:8080")) {
            assertFalse(loopback.allowsHost(host), host);
        }
        assertFalse(loopback.allowsHost(null));
    }

    @Test
    void originsMustBeLocalOnTheListenPortOrConfigured() {
        assertTrue(loopback.allowsOrigin(null, 8080), "non-browser clients send no Origin");
        assertTrue(loopback.allowsOrigin("http://localhost:8080", 8080));
        assertTrue(loopback.allowsOrigin("http://127.0.0.1:8080", 8080));
        assertTrue(loopback.allowsOrigin("http://[::1]:8080", 8080));
        assertTrue(loopback.allowsOrigin("https://app.example.com", 8080));
        assertTrue(loopback.allowsOrigin("https://APP.example.com:443", 8080));

        assertFalse(loopback.allowsOrigin("http://localhost:3000", 8080));
        assertFalse(loopback.allowsOrigin("https://localhost:8080", 8080));
        assertFalse(loopback.allowsOrigin("http://evil.example:8080", 8080));
        assertFalse(loopback.allowsOrigin("http://app.example.com", 8080));
        assertFalse(loopback.allowsOrigin("null", 8080));
        assertFalse(loopback.allowsOrigin("not a url", 8080));
    }

    @Test
    void wildcardListenerAlsoAnswersToLoopback() {
        OriginPolicy any = OriginPolicy.forListenHost("0.0.0.0", List.of());
        assertTrue(any.allowsHost("localhost:9000"));
        assertFalse(any.allowsHost("evil.example:9000"));
    }

    @Test
    void malformedExtraOriginsAreRefused() {
        for (String bad : List.of("*", "app.example.com", "https://app.example.com/path", "ftp://x.example")) {
            assertThrows(IllegalArgumentException.class, () -> OriginPolicy.forListenHost("127.0.0.1", List.of(bad)),
                    bad);
        }
    }
}
