package io.sluice.cli.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's {@code chromium} driven through its {@code chromium-driver}, headless. The binaries
 * are named explicitly so that Selenium never tries to download a browser or a driver.
 */
final class HeadlessChromium {
  private static final Path BROWSER = Path.of("/usr/bin/chromium");
  private static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  private HeadlessChromium() {}

  /** Whether both packages are installed (CI installs them, see .ci/run). */
  static boolean available() {
    return Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
  }

  static ChromeDriver start() {
    ChromeOptions options = new ChromeOptions()
        .setBinary(BROWSER.toFile())
        // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
            "--disable-gpu", "--window-size=1280,900", "--hide-scrollbars");
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(DRIVER.toFile())
        .usingAnyFreePort()
        .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
    return driver;
  }

  /** Saves what the browser shows as target/{@code name}.png. */
  static void screenshot(ChromeDriver driver, String name) {
    try {
      Path shot = driver.getScreenshotAs(OutputType.FILE).toPath();
      Files.copy(shot, Path.of("target", name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
