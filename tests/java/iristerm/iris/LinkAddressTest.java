package iristerm.iris;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where a standalone server listens for its jobs' links: loopback by default, elsewhere only when told. */
class LinkAddressTest {
    private static IrisConfig config(String host, String link) {
        return new IrisConfig(host, 1972, "USER", "_SYSTEM", "", 1, link);
    }

    @Test
    void anIrisOnThisMachineIsReachedOverLoopbackOnAnyFreePort() {
        InetSocketAddress a = NativeIrisCalls.linkAddress(config("127.0.0.1", null));
        assertTrue(a.getAddress().isLoopbackAddress(), a.toString());
        assertEquals(0, a.getPort());
    }

    @Test
    void anIrisOnAnotherMachineNeedsAnExplicitLinkAddress() {
        // TEST-NET-1: never this machine; with or without a route to it there is no silent default
        IrisUnavailableException e = assertThrows(IrisUnavailableException.class,
                () -> NativeIrisCalls.linkAddress(config("192.0.2.1", null)));
        assertTrue(e.getMessage().contains("--iris-link HOST[:PORT]"), e.getMessage());
        InetSocketAddress given = NativeIrisCalls.linkAddress(config("192.0.2.1", "10.1.2.3:7000"));
        assertEquals("10.1.2.3", given.getHostString());
        assertEquals(7000, given.getPort());
    }

    @Test
    void theLinkOptionIsHostWithAnOptionalPort() {
        assertEquals(0, NativeIrisCalls.parseLink("iris-gw.example").getPort());
        assertEquals("::1", NativeIrisCalls.parseLink("[::1]:9000").getHostString());
        assertEquals(9000, NativeIrisCalls.parseLink("[::1]:9000").getPort());
        assertThrows(IllegalArgumentException.class, () -> NativeIrisCalls.parseLink("host:http"));
        assertThrows(IllegalArgumentException.class, () -> NativeIrisCalls.parseLink(":7000"));
    }
}
