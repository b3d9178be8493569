package iristerm.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The browser view's logins: each identity's table is its own. */
class UiLoginsTest {

    @Test
    void anIdentityOverItsLoginCapLosesItsOwnOldestNeverAnothersLogin() {
        UiLogins logins = new UiLogins();
        String bob = logins.login("bob");
        List<String> alices = new ArrayList<>();
        for (int i = 0; i < UiLogins.MAX_LOGINS_PER_IDENTITY + 5; i++) {
            alices.add(logins.login("alice"));
        }
        assertEquals(Optional.of("bob"), logins.identityOf(bob));
        assertEquals(Optional.of("alice"), logins.identityOf(alices.get(alices.size() - 1)));
        assertTrue(logins.identityOf(alices.get(0)).isEmpty(), "alice's oldest login is still held");
        long held = alices.stream().filter(c -> logins.identityOf(c).isPresent()).count();
        assertEquals(UiLogins.MAX_LOGINS_PER_IDENTITY, held);
    }
}
