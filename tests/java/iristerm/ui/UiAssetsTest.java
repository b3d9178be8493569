package iristerm.ui;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every file the page loads is in the build, the xterm.js the pom pins among them. */
class UiAssetsTest {
    @Test
    void theWebJarFolderIsThePomsXtermVersion() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("<xterm.version>([^<]+)</xterm.version>").matcher(pom);
        assertTrue(m.find(), "pom.xml pins xterm.version");
        assertEquals("META-INF/resources/webjars/xterm/" + m.group(1) + "/", UiAssets.XTERM);
    }

    @Test
    void everyServedPathHasItsFile() {
        UiAssets assets = new UiAssets();
        // the pages the handlers name themselves are among them (a loop over none would hold nothing)
        assertTrue(UiAssets.paths().containsAll(java.util.List.of("/ui/", "/ui/login", "/ui/app.js")),
                UiAssets.paths()::toString);
        for (String path : UiAssets.paths()) {
            UiAssets.Asset a = assets.get(path);
            assertNotNull(a, path);
            assertTrue(a.text().length() > 100, path + " is nearly empty");
        }
        assertNull(assets.get("/ui/../pom.xml"));
    }

    @Test
    void thePageLoadsNothingFromElsewhere() {
        for (String file : new String[] {"ui/index.html", "ui/login.html", "ui/app.js", "ui/app.css"}) {
            String text = new String(UiAssets.read(file), StandardCharsets.UTF_8);
            assertTrue(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"),
                    file + " names another server");
        }
    }
}
