package iristerm.ui;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Who a browser is: one-time sign-in codes (printed at start, one per identity) and the cookie
 * logins they are exchanged for. A cookie login names an identity and lasts {@link #LOGIN_MILLIS};
 * it is honoured by the browser view's own routes only, never by {@code /mcp}.
 */
public final class UiLogins {
    public static final String COOKIE = "iristerm_ui";
    static final long LOGIN_MILLIS = 12L * 60 * 60 * 1000;
    /** logins one identity keeps at most; beyond, its own one closest to expiry goes first */
    static final int MAX_LOGINS_PER_IDENTITY = 100;
    /** sign-ins one identity may make at once, and then one per interval */
    static final int SIGN_IN_BURST = 10;
    static final long SIGN_IN_INTERVAL_MILLIS = 6_000;

    /** {@code order}: when it began among all logins, since many begin within one millisecond */
    private record Login(String identity, long expiresAt, long order) {
    }

    private final LongSupplier clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, String> codes = new ConcurrentHashMap<>();
    private final Map<String, Login> logins = new ConcurrentHashMap<>();
    private long begun;
    private final Map<String, RateLimit> signIns = new ConcurrentHashMap<>();
    /** refused sign-ins (a wrong token or a spent code), all together: they name no identity to charge */
    private final RateLimit refusals = new RateLimit(20, 1_000);

    public UiLogins() {
        this(System::currentTimeMillis);
    }

    /** @param clock epoch millis */
    UiLogins(LongSupplier clock) {
        this.clock = clock;
    }

    /** The time logins are measured by (epoch millis): the view's streams end by it too. */
    long now() {
        return clock.getAsLong();
    }

    /** A new one-time code that signs a browser in as {@code identity}. */
    public String issueCode(String identity) {
        String code = secret();
        codes.put(code, identity);
        return code;
    }

    /** The identity of a code, which is spent by this call; empty for an unknown or spent code. */
    Optional<String> redeem(String code) {
        return code == null ? Optional.empty() : Optional.ofNullable(codes.remove(code));
    }

    /** Seconds until {@code identity} may sign in again (0: now): sign-ins are rate-limited per identity. */
    long signInWait(String identity) {
        return signIns.computeIfAbsent(identity, k -> new RateLimit(SIGN_IN_BURST, SIGN_IN_INTERVAL_MILLIS)).take();
    }

    /** Seconds until another refused sign-in is answered (0: now). */
    long refusalWait() {
        return refusals.take();
    }

    /**
     * Starts a login for {@code identity}; returns the cookie value that carries it. An identity holding its
     * most logins loses its own oldest, never another identity's.
     */
    synchronized String login(String identity) {
        long now = clock.getAsLong();
        logins.values().removeIf(l -> l.expiresAt() <= now);
        while (logins.values().stream().filter(l -> l.identity().equals(identity)).count() >= MAX_LOGINS_PER_IDENTITY) {
            Iterator<Map.Entry<String, Login>> oldest = logins.entrySet().stream()
                    .filter(e -> e.getValue().identity().equals(identity))
                    .sorted(Map.Entry.comparingByValue((a, b) -> Long.compare(a.order(), b.order())))
                    .iterator();
            logins.remove(oldest.next().getKey());
        }
        String cookie = secret();
        logins.put(cookie, new Login(identity, now + LOGIN_MILLIS, begun++));
        return cookie;
    }

    /** The identity a cookie value is logged in as, while its login lasts. */
    Optional<String> identityOf(String cookie) {
        Login l = cookie == null ? null : logins.get(cookie);
        if (l == null || l.expiresAt() <= clock.getAsLong()) {
            return Optional.empty();
        }
        return Optional.of(l.identity());
    }

    /** When the login a cookie value carries ends (epoch millis); 0 when it carries none. */
    long expiresAt(String cookie) {
        Login l = cookie == null ? null : logins.get(cookie);
        return l == null ? 0 : l.expiresAt();
    }

    void logout(String cookie) {
        if (cookie != null) {
            logins.remove(cookie);
        }
    }

    private String secret() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
