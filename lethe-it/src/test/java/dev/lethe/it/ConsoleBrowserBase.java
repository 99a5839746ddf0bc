package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What every browser test of the operator console shares (docs/design/0449-operator-console.md):
 * a real {@code lethe server} process with auth on (an admin token and a read-only token for
 * catalog {@code main}), Debian's headless Chromium driven by Selenium with the browser and its
 * driver named by path (nothing downloaded), a screenshot per view under
 * {@code target/console-screenshots/}, and axe-core (from the test class path, never in the jar).
 * Skipped when the two programs are missing, a failure then with
 * {@code -Dlethe.test.require-browser=true}. A subclass seeds its tables in {@link #seed()}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConsoleBrowserBase {
  static final String CHROMIUM = "/usr/bin/chromium";
  static final String CHROMEDRIVER = "/usr/bin/chromedriver";
  static final String ADMIN_TOKEN = "console-admin-token-5c1e";
  static final String READER_TOKEN = "console-reader-token-93ab";
  static final Path SHOTS = Path.of(System.getProperty("lethe.it.work-dir", "target/it")).getParent()
      .resolve("console-screenshots");

  protected Path dataDir;
  Path authFile;
  int port;
  LetheProcess server;
  WebDriver browser;
  String axe;

  @BeforeAll
  final void start() throws Exception {
    // without the browser the tests are skipped, unless lethe.test.require-browser=true (.ci/run) makes that a failure
    boolean present = Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER));
    if (!present && Boolean.getBoolean("lethe.test.require-browser")) {
      throw new IllegalStateException(CHROMIUM + " or " + CHROMEDRIVER + " is missing but lethe.test.require-browser=true "
          + "(apt-get install chromium chromium-driver)");
    }
    Assumptions.assumeTrue(present, "no " + CHROMIUM + " and " + CHROMEDRIVER + ": apt-get install chromium chromium-driver");
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Files.createDirectories(SHOTS);
    dataDir = Files.createTempDirectory(work, "console-");
    authFile = dataDir.resolve("auth.yaml");
    Files.writeString(authFile, "principals:\n"
        + "  - name: oncall\n    token-sha256: \"" + sha256(ADMIN_TOKEN) + "\"\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: viewer\n    token-sha256: \"" + sha256(READER_TOKEN) + "\"\n    read: [main]\n    write: []\n"
        + extraPrincipals());
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    server = startServer(workerThreads(), "server-1.log");
    try (InputStream in = ConsoleBrowserBase.class.getResourceAsStream("/axe.min.js")) {
      assertThat(in).as("axe.min.js on the test class path (com.deque.html.axe-core:selenium)").isNotNull();
      axe = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    seed();
  }

  /** Purge worker threads of the first server; "0" (the default) keeps every job PENDING until a test restarts it with workers. */
  String workerThreads() {
    return "0";
  }

  /**
   * More entries of the auth file's {@code principals} list, as YAML lines ending in a newline (two
   * spaces before each {@code - name:}); none by default. The base's two principals have no
   * {@code store} key: {@code oncall} is therefore a store admin, {@code viewer} has no store grant.
   */
  String extraPrincipals() throws Exception {
    return "";
  }

  /** Server configuration keys a subclass adds (soft delete, a store); none by default. */
  Map<String, String> extraConfig() {
    return Map.of();
  }

  private Map<String, String> config(String workers) {
    Map<String, String> keys = new HashMap<>(extraConfig());
    keys.put("lethe.iceberg-rest.async-purge.worker-threads", workers);
    keys.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "200");
    return keys;
  }

  /** Creates the subclass's tables, jobs, holds; runs once after the server started, before any test. */
  abstract void seed() throws Exception;

  @AfterAll
  final void stop() throws Exception {
    if (server != null) {
      server.close();
      // no server log line ever carries a token the page sent
      try (var logs = Files.list(dataDir)) {
        for (Path file : logs.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
          assertThat(Files.readString(file)).as(file.getFileName().toString()).doesNotContain(ADMIN_TOKEN, READER_TOKEN).isNotEmpty();
        }
      }
    }
  }

  @BeforeEach
  final void openBrowser() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1280,800", "--lang=en-US");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).build();
    browser = new ChromeDriver(service, options);
    browser.manage().window().setSize(new Dimension(1280, 800));
  }

  @AfterEach
  final void closeBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  LetheProcess startServer(String workers, String log) throws Exception {
    return LetheProcess.start(port, dataDir, dataDir.resolve(log),
        AsyncPurgeHttp.configArgs(dataDir, config(workers)),
        Map.of("LETHE_AUTH_FILE", authFile.toString()));
  }

  String base() {
    return "http://127.0.0.1:" + port;
  }

  void signIn(String token) {
    browser.get(base() + "/ui");
    browser.findElement(By.id("token")).sendKeys(token, Keys.ENTER);
    waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("sign-out")));
  }

  WebDriverWait waitFor() {
    return new WebDriverWait(browser, Duration.ofSeconds(20));
  }

  static String fact(org.openqa.selenium.SearchContext card, String name) {
    return card.findElement(By.cssSelector("dd[data-fact='" + name + "']")).getText();
  }

  Object js(String script) {
    return ((JavascriptExecutor) browser).executeScript(script);
  }

  /** Presses Tab until the element matching {@code css} has the focus (at most 40 times). */
  WebElement tabTo(String css) {
    for (int i = 0; i < 40; i++) {
      WebElement active = browser.switchTo().activeElement();
      if (Boolean.TRUE.equals(((JavascriptExecutor) browser).executeScript("return arguments[0].matches(arguments[1])", active, css))) {
        return active;
      }
      new Actions(browser).sendKeys(Keys.TAB).perform();
    }
    throw new AssertionError("Tab never reached " + css);
  }

  void shot(String name) throws IOException {
    Path file = SHOTS.resolve(name + ".png");
    Files.write(file, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
  }

  /** Runs axe-core in the page: no serious or critical violation. */
  void axeClean(String view) {
    js(axe);
    Object found = ((JavascriptExecutor) browser).executeAsyncScript(
        "const done = arguments[arguments.length - 1];"
            + "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations"
            + ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
            + ".map(v => v.impact + ' ' + v.id + ': ' + v.help + ' at ' + v.nodes.map(n => n.target.join(' ')).join(', '))),"
            + " e => done(['axe failed: ' + e]));");
    assertThat((List<?>) found).as("axe-core on " + view).isEmpty();
  }

  RESTCatalog client(String token) {
    return client(token, Map.of());
  }

  /** An iceberg-java REST client of catalog {@code main} with the token and {@code extra} catalog properties. */
  RESTCatalog client(String token, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(extra);
    props.put("uri", base() + "/iceberg");
    props.put("warehouse", "main");
    props.put("io-impl", "dev.lethe.catalog.io.LocalFileIO");
    props.put("rest.auth.type", "none");
    props.put("header.Authorization", "Bearer " + token);
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("console", props);
    return catalog;
  }

  HttpResponse<String> http(String method, String path, String body, Map<String, String> headers, String token)
      throws IOException, InterruptedException {
    Map<String, String> all = new HashMap<>(headers);
    all.put("Authorization", "Bearer " + token);
    return AsyncPurgeHttp.send(base(), method, path, body, all);
  }

  static String sha256(String token) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
  }
}
