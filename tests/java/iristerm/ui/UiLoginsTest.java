package iristerm.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The browser view's logins: each identity's table is its own; a sign-in link lasts until its grace after first use. */
class UiLoginsTest {

    @Test
    void anIdentityOverItsLoginCapLosesItsOwnOldestNeverAnothersLogin() {
        UiLogins logins = new UiLogins();
        String bob = logins.login("bob", null);
        List<String> alices = new ArrayList<>();
        for (int i = 0; i < UiLogins.MAX_LOGINS_PER_IDENTITY + 5; i++) {
            alices.add(logins.login("alice", null));
        }
        assertEquals(Optional.of("bob"), logins.identityOf(bob));
        assertEquals(Optional.of("alice"), logins.identityOf(alices.get(alices.size() - 1)));
        assertTrue(logins.identityOf(alices.get(0)).isEmpty(), "alice's oldest login is still held");
        long held = alices.stream().filter(c -> logins.identityOf(c).isPresent()).count();
        assertEquals(UiLogins.MAX_LOGINS_PER_IDENTITY, held);
    }

    @Test
    void aLinkIsSpentOnlyWhenItsLoginComesBackAndThenLastsItsGrace() {
        AtomicLong now = new AtomicLong(1_000_000);
        UiLogins logins = new UiLogins(now::get);
        String code = logins.issueCode("alice");
        // opened by a previewer (a login made, never presented), an hour apart: the link still signs in
        for (int i = 0; i < 3; i++) {
            assertEquals("alice", logins.redeem(code).identity());
            logins.login("alice", code);
            now.addAndGet(3_600_000);
        }
        String browser = logins.login("alice", code);
        assertEquals(Optional.of("alice"), logins.identityOf(browser), "the browser loads the view: the link is spent");
        now.addAndGet(UiLogins.LINK_GRACE_MILLIS - 1);
        assertEquals("alice", logins.redeem(code).identity(), "within its grace the link signs in again");
        assertEquals(Optional.of("alice"), logins.identityOf(logins.login("alice", code)), "and that starts no new grace");
        now.addAndGet(1);
        UiLogins.Redemption used = logins.redeem(code);
        assertNull(used.identity());
        assertTrue(used.refusal().startsWith("This sign-in link was already used"), used.refusal());
        assertTrue(logins.redeem("made-up").refusal().contains("not one this server knows"));
        assertTrue(logins.redeem(null).refusal().contains("has no code"));
    }
}
