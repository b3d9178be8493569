package iristerm.e2e;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Debian's headless chromium driven through its chromedriver (both installed by .ci/run), for the
 * browser tests. Without them a test fails, saying what to install: a view that was never rendered is
 * not a view that works.
 */
final class Chromium {
    private Chromium() {
    }

    static WebDriver start() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(executable("chromium"));
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1500,1000");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(executable("chromedriver"))).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private static String executable(String name) {
        for (String folder : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(folder, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return fail(name + " is not on PATH: the browser views are tested in a real headless Chromium. Install it "
                + "with `apt-get install -y chromium chromium-driver` (.ci/run does so on a clean machine).");
    }

    /** Saves what the browser shows and checks it is a picture, not a blank page. */
    static void screenshot(WebDriver d, Path file) throws Exception {
        byte[] png = ((TakesScreenshot) d).getScreenshotAs(OutputType.BYTES);
        Files.createDirectories(file.getParent());
        Files.write(file, png);
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 4) {
            for (int x = 0; x < image.getWidth(); x += 4) {
                colours.add(image.getRGB(x, y));
            }
        }
        assertTrue(colours.size() > 20, "the screenshot " + file + " is nearly blank: " + colours.size() + " colours");
    }
}
