package dev.nightshift.web;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;

import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * Headless Chromium driven by Selenium: Debian's {@code chromium} and {@code chromium-driver}
 * ({@code ./verify} installs them), named by path so that Selenium Manager never looks for (or
 * downloads) a browser or a driver. One per test class: starting it takes seconds.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** A desktop window; screenshots of the whole page grow it to the page's height. */
    static final Dimension DESKTOP = new Dimension(1280, 900);

    private final ChromeDriver driver;

    private Browser(ChromeDriver driver) {
        this.driver = driver;
    }

    /** Starts the browser with its profile in {@code profile}; fails, saying what to install, when it is missing. */
    static Browser start(Path profile) {
        for (Path tool : List.of(CHROMIUM, CHROMEDRIVER)) {
            if (!Files.isExecutable(tool)) {
                throw new AssertionError(tool + " is missing: ./verify installs Debian's chromium and chromium-driver"
                        + " (apt-get install -y chromium chromium-driver)");
            }
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // As root in a container: no sandbox; /dev/shm is small there.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--user-data-dir=" + profile, "--window-size=" + DESKTOP.width + "," + DESKTOP.height, "--lang=en-GB");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
        return new Browser(driver);
    }

    ChromeDriver driver() {
        return driver;
    }

    /** Runs {@code script} in the page and returns what it returns (WebDriver's conversion: Long, Double, String, List, Map). */
    Object script(String script, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(script, args);
    }

    /** The console messages at level SEVERE since the last call: errors, failed requests, policy violations, exceptions. */
    List<String> consoleErrors() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::toString).toList();
    }

    void resize(Dimension size) {
        driver.manage().window().setSize(size);
    }

    /** What the window shows now. */
    Path viewportScreenshot(Path file) throws IOException {
        File shot = driver.getScreenshotAs(OutputType.FILE);
        Files.createDirectories(file.getParent());
        return Files.move(shot.toPath(), file, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The whole page, not only the window: the window is grown to the page's height for the shot, then put back. */
    Path screenshot(Path file) throws IOException {
        Dimension before = driver.manage().window().getSize();
        long height = ((Number) script("return Math.ceil(document.documentElement.scrollHeight)")).longValue();
        resize(new Dimension(before.width, (int) Math.min(Math.max(height + 100, before.height), 8000)));
        try {
            File shot = driver.getScreenshotAs(OutputType.FILE);
            Files.createDirectories(file.getParent());
            return Files.move(shot.toPath(), file, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            resize(before);
        }
    }

    @Override
    public void close() {
        driver.quit();
    }
}
