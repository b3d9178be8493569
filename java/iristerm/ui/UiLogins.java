package iristerm.ui;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who a browser is: one-time sign-in codes (printed at start, one per identity) and the cookie
 * logins they are exchanged for. A cookie login names an identity and lasts {@link #LOGIN_MILLIS};
 * it is honoured by the browser view's own routes only, never by {@code /mcp}.
 */
public final class UiLogins {
    public static final String COOKIE = "iristerm_ui";
    static final long LOGIN_MILLIS = 12L * 60 * 60 * 1000;
    /** logins kept at most; beyond, the one closest to expiry goes first */
    private static final int MAX_LOGINS = 1000;

    private record Login(String identity, long expiresAt) {
    }

    private final SecureRandom random = new SecureRandom();
    private final Map<String, String> codes = new ConcurrentHashMap<>();
    private final Map<String, Login> logins = new ConcurrentHashMap<>();

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

    /** Starts a login for {@code identity}; returns the cookie value that carries it. */
    synchronized String login(String identity) {
        long now = System.currentTimeMillis();
        logins.values().removeIf(l -> l.expiresAt() <= now);
        while (logins.size() >= MAX_LOGINS) {
            Iterator<Map.Entry<String, Login>> oldest = logins.entrySet().stream()
                    .sorted(Map.Entry.comparingByValue((a, b) -> Long.compare(a.expiresAt(), b.expiresAt())))
                    .iterator();
            logins.remove(oldest.next().getKey());
        }
        String cookie = secret();
        logins.put(cookie, new Login(identity, now + LOGIN_MILLIS));
        return cookie;
    }

    /** The identity a cookie value is logged in as, while its login lasts. */
    Optional<String> identityOf(String cookie) {
        Login l = cookie == null ? null : logins.get(cookie);
        if (l == null || l.expiresAt() <= System.currentTimeMillis()) {
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
