package iristerm.ui;

import iristerm.http.Reply;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The page's files, all served from the jar: the view's own (resources/ui) and xterm.js from its
 * WebJar. No build step and nothing from elsewhere: a browser without internet access shows the page.
 */
public final class UiAssets {
    /** the WebJar's folder; its version is the pom's org.webjars.npm:xterm (UiAssetsTest holds them together) */
    public static final String XTERM = "META-INF/resources/webjars/xterm/4.9.0/";

    private static final String CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    /** where the sign-in page says why a sign-in was refused */
    private static final String REFUSAL = "<p id=\"refusal\" role=\"alert\" hidden>";

    record Asset(String text, String contentType) {
    }

    /** path under /ui → classpath resource and type */
    private static final Map<String, String[]> FILES = Map.of(
            "/ui/", new String[] {"ui/index.html", "text/html; charset=UTF-8"},
            "/ui/login", new String[] {"ui/login.html", "text/html; charset=UTF-8"},
            "/ui/app.js", new String[] {"ui/app.js", "text/javascript; charset=UTF-8"},
            "/ui/app.css", new String[] {"ui/app.css", "text/css; charset=UTF-8"},
            "/ui/vendor/xterm.js", new String[] {XTERM + "lib/xterm.js", "text/javascript; charset=UTF-8"},
            "/ui/vendor/xterm.css", new String[] {XTERM + "css/xterm.css", "text/css; charset=UTF-8"});

    private final Map<String, Asset> loaded = new ConcurrentHashMap<>();

    /** Every path a file is served at. */
    static Set<String> paths() {
        return FILES.keySet();
    }

    /** The file served at {@code path}, or null when there is none. */
    Asset get(String path) {
        String[] file = FILES.get(path);
        return file == null ? null : loaded.computeIfAbsent(path,
                p -> new Asset(new String(read(file[0]), StandardCharsets.UTF_8), file[1]));
    }

    /** The file at {@code path} as an answer: never cached by the browser, never framed, its type not guessed. */
    Reply page(int status, String path) {
        Asset a = get(path);
        return new Reply(status, Map.of(Reply.CONTENT_TYPE, a.contentType(), "Cache-Control", "no-store",
                "X-Content-Type-Options", "nosniff", "Content-Security-Policy", CSP), a.text());
    }

    /** The sign-in page telling why the last sign-in was refused, and what to do. */
    Reply login(int status, String refusal) {
        Reply page = page(status, "/ui/login");
        String text = refusal.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return new Reply(status, page.headers(), page.body().replace(REFUSAL, REFUSAL.replace(" hidden>", ">") + text));
    }

    public static byte[] read(String resource) {
        try (InputStream in = UiAssets.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks " + resource + "; rebuild it with mvn package");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
