package iristerm.ui;

import java.io.PrintStream;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Who a browser is: sign-in codes (printed at start, one per identity) and the cookie logins they are
 * exchanged for. A cookie login names an identity and lasts {@link #LOGIN_MILLIS}; it is honoured by the
 * browser view's own routes only, never by {@code /mcp}.
 * <p>
 * A code is spent not when it is opened but when a browser signed in with it first comes back with its login
 * (loads the view): a link previewer that fetches the link without following it, or a first load that fails
 * before the view, leaves the link as it was. From that first return the link keeps working for
 * {@link #LINK_GRACE_MILLIS} (a second tab, a reload of the sign-in), then it is refused as used. Until then
 * it works as long as the server runs.
 */
public final class UiLogins {
    public static final String COOKIE = "iristerm_ui";
    static final long LOGIN_MILLIS = 12L * 60 * 60 * 1000;
    /** logins one identity keeps at most; beyond, its own one closest to expiry goes first */
    static final int MAX_LOGINS_PER_IDENTITY = 100;
    /** sign-ins one identity may make at once, and then one per interval */
    static final int SIGN_IN_BURST = 10;
    static final long SIGN_IN_INTERVAL_MILLIS = 6_000;
    /** how long a sign-in link keeps working after a browser signed in with it first loaded the view */
    public static final long LINK_GRACE_MILLIS = 5L * 60 * 1000;

    /**
     * {@code order}: when it began among all logins, since many begin within one millisecond; {@code code}: the
     * sign-in code it was made with until its browser came back with it (then null), or null for a token's
     */
    private record Login(String identity, long expiresAt, long order, String code) {
    }

    /** {@code spentAt}: when a login made with it first came back (epoch millis), 0 before */
    private record Code(String identity, long spentAt) {
    }

    /** A code's identity, or why it signs no one in. */
    record Redemption(String identity, String refusal) {
    }

    private final LongSupplier clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Code> codes = new ConcurrentHashMap<>();
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

    /** A new code that signs a browser in as {@code identity} (see the class comment for how long). */
    public String issueCode(String identity) {
        String code = secret();
        codes.put(code, new Code(identity, 0));
        return code;
    }

    /**
     * Prints the browser view's address and a sign-in link for each identity, with how long a link works.
     *
     * @param how how else one signs in there, e.g. "sign in there with a token, or with a link below"
     */
    public void announce(PrintStream err, String page, List<String> identities, String how) {
        err.println("Browser view: " + page + " (" + how + ")");
        for (String identity : identities) {
            err.println("  sign in as " + identity + ": " + page + "signin?code=" + issueCode(identity));
        }
        err.println("  (a link works until " + LINK_GRACE_MILLIS / 60_000 + " minutes after a browser signed in with it "
                + "first opened the view, and until then for as long as this server runs)");
    }

    /** The identity {@code code} signs in as now, or the refusal in words a person acts on. */
    Redemption redeem(String code) {
        Code c = code == null ? null : codes.get(code);
        if (c == null) {
            return new Redemption(null, code == null || code.isEmpty()
                    ? "This sign-in link has no code: copy the whole link the server printed, up to its end."
                    : "This sign-in link is not one this server knows: it was printed by an earlier start of the "
                    + "server (a link lasts only as long as the server that printed it), or it was cut short when "
                    + "copied. Use the link the server printed at its latest start.");
        }
        if (c.spentAt() != 0 && clock.getAsLong() >= c.spentAt() + LINK_GRACE_MILLIS) {
            return new Redemption(null, "This sign-in link was already used: a link stops working "
                    + LINK_GRACE_MILLIS / 60_000 + " minutes after a browser first signed in with it. Sign in with "
                    + "your token below, or restart the server for a new link.");
        }
        return new Redemption(c.identity(), null);
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
    synchronized String login(String identity, String code) {
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
        logins.put(cookie, new Login(identity, now + LOGIN_MILLIS, begun++, code));
        return cookie;
    }

    /**
     * The identity a cookie value is logged in as, while its login lasts. The first time a login made with a
     * code comes back, that code is spent: its grace begins.
     */
    Optional<String> identityOf(String cookie) {
        Login l = cookie == null ? null : logins.get(cookie);
        long now = clock.getAsLong();
        if (l == null || l.expiresAt() <= now) {
            return Optional.empty();
        }
        if (l.code() != null) {
            codes.computeIfPresent(l.code(), (k, c) -> c.spentAt() != 0 ? c : new Code(c.identity(), now));
            logins.computeIfPresent(cookie, (k, x) -> new Login(x.identity(), x.expiresAt(), x.order(), null));
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
