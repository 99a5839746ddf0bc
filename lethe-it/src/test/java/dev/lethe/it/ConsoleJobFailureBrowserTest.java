package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's Jobs view on a purge that fails and is retried (docs/console.md "Jobs",
 * docs/design/0449-operator-console.md §5): a real table whose manifest is spoiled on disk is
 * dropped with purge, its job FAILED with the error shown; the file is repaired, an admin retries
 * the job from the page, the job SUCCEEDED and the table's files are gone; the receipt dialog shows
 * the server's figures, the namespace filter keeps one namespace's jobs or shows the server's 400,
 * and a reader sees Receipt but no admin button.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleJobFailureBrowserTest extends ConsoleBrowserBase {
  private static final Namespace SALES = Namespace.of("db", "sales");
  private static final Namespace OPS = Namespace.of("ops");
  private static final String CLEANUPS = "/api/metalakes/default/catalogs/main/cleanups";

  private Path tableDir;
  private Path spoiled;
  private byte[] original;
  /** Every file of the table before the drop, with its size. */
  private Map<Path, Long> before;

  @Override
  String workerThreads() {
    return "1";
  }

  @Override
  Map<String, String> extraConfig() {
    // one attempt: the spoiled manifest makes the job FAILED at once, not a retry wait
    return Map.of("lethe.iceberg-rest.async-purge.max-attempts", "1");
  }

  @Override
  void seed() throws Exception {
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createNamespace(Namespace.of("db"));
      catalog.createNamespace(SALES);
      catalog.createNamespace(OPS);
      Table ledger = catalog.createTable(TableIdentifier.of(SALES, "ledger"), PurgeTables.SCHEMA);
      PurgeTables.append(ledger, 0, 20, "a");
      PurgeTables.append(ledger, 20, 20, "b");
      ledger.refresh();
      Table scratch = catalog.createTable(TableIdentifier.of(OPS, "scratch"), PurgeTables.SCHEMA);
      PurgeTables.append(scratch, 0, 5, "a");
      tableDir = local(ledger.location());
      before = files(tableDir);
      ManifestFile manifest = ledger.currentSnapshot().dataManifests(ledger.io()).get(0);
      spoiled = local(manifest.path());
      original = Files.readAllBytes(spoiled);
    }
    // garbage where the manifest was: the purge cannot read which data files it names
    Files.write(spoiled, "not an avro manifest".getBytes(StandardCharsets.UTF_8));
    try (RESTCatalog catalog = asyncClient(ADMIN_TOKEN)) {
      assertThat(catalog.dropTable(TableIdentifier.of(SALES, "ledger"), true)).isTrue();
      assertThat(catalog.dropTable(TableIdentifier.of(OPS, "scratch"), true)).isTrue();
    }
  }

  @Test
  @Order(1)
  void anAdminSeesTheFailureRetriesItReadsTheReceiptAndFiltersByNamespace() throws Exception {
    signIn(ADMIN_TOKEN);
    browser.get(base() + "/ui#jobs");
    WebElement row = new WebDriverWait(browser, Duration.ofSeconds(60)).until(ExpectedConditions.presenceOfElementLocated(By.xpath(
        "//tr[@data-state='FAILED'][td[3][normalize-space()='TABLE db.sales.ledger']]")));
    String id = row.getAttribute("data-job");
    JsonNode failed = job(id);
    assertThat(failed.get("state").asText()).isEqualTo("FAILED");
    // the row shows the server's lastError as it is, and it names the manifest it could not read
    assertThat(failed.get("lastError").asText()).contains(spoiled.getFileName().toString());
    assertThat(cell(id, 8)).isEqualTo(failed.get("lastError").asText());
    assertThat(buttons(id)).containsExactly("Receipt", "Retry", "Abandon", "Rescue");
    assertThat(Files.exists(tableDir.resolve("metadata"))).isTrue();
    shot("jobs-failed-1280x800");
    axeClean("jobs with a failed job");

    // the failed run's receipt: the manifest kept as unreadable, the error
    WebElement dialog = openReceipt(id);
    waitFor().until(d -> "FAILED".equals(receiptFact("state")));
    assertThat(receiptFact("kept-UNREADABLE_MANIFEST")).startsWith("1 file").contains(spoiled.getFileName().toString());
    assertThat(receiptFact("last-error")).contains(spoiled.getFileName().toString());
    new org.openqa.selenium.interactions.Actions(browser).sendKeys(Keys.ESCAPE).perform();
    waitFor().until(ExpectedConditions.invisibilityOf(dialog));
    assertThat(browser.switchTo().activeElement().getAttribute("aria-label")).isEqualTo("Receipt of job " + id);

    // repaired on disk, retried from the page
    Files.write(spoiled, original);
    row(id).findElement(By.cssSelector("button[data-action=retry]")).click();
    WebElement confirm = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm")));
    assertThat(confirm.findElement(By.id("confirm-title")).getText()).isEqualTo("Retry job " + id + "?");
    confirm.findElement(By.id("confirm-ok")).click();
    waitFor().until(d -> d.findElement(By.id("jobs-answer")).getText().startsWith("Retry job " + id));
    assertThat(browser.findElement(By.id("jobs-answer")).getText()).isEqualTo("Retry job " + id + ": done; the job is now PENDING.");
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(
        ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + id + "'][data-state=SUCCEEDED]")));
    assertThat(cell(id, 8)).isEmpty();
    assertThat(buttons(id)).containsExactly("Receipt");
    // every file of the table is gone, the data files among them
    assertThat(before.keySet()).anyMatch(f -> f.toString().endsWith(".parquet"));
    assertThat(files(tableDir)).isEmpty();

    // the receipt of the run that finished: the server's figures, and they count what left the disk
    JsonNode receipt = AsyncPurgeHttp.JSON.readTree(http("GET", CLEANUPS + "/" + id + "/receipt", null, Map.of(), ADMIN_TOKEN).body());
    dialog = openReceipt(id);
    waitFor().until(d -> "SUCCEEDED".equals(receiptFact("state")));
    assertThat(receiptFact("job")).isEqualTo("#" + id + " (receipt #" + receipt.get("receiptId").asText() + ")");
    assertThat(receiptFact("object")).isEqualTo("TABLE db.sales.ledger");
    assertThat(receiptFact("purge-path")).isEqualTo("ASYNC");
    assertThat(receiptFact("created-by")).isEqualTo("oncall");
    assertThat(receiptFact("attempts")).isEqualTo(receipt.get("attempts").asText());
    assertThat(receiptFact("files-deleted")).isEqualTo(receipt.get("filesDeleted").asText()).isEqualTo(String.valueOf(before.size()));
    assertThat(receiptFact("bytes-deleted")).isEqualTo("at least " + receipt.get("bytesDeleted").asText());
    List<Path> data = before.keySet().stream().filter(f -> f.toString().endsWith(".parquet")).toList();
    long dataBytes = data.stream().mapToLong(before::get).sum();
    assertThat(receiptFact("deleted-DATA_FILES")).isEqualTo(data.size() + " files, " + dataBytes + " bytes");
    assertThat(receiptFact("leftovers")).isEqualTo("0 files");
    assertThat(receiptFact("last-error")).isEqualTo("none");
    shot("jobs-receipt-1280x800");
    axeClean("receipt dialog");
    browser.findElement(By.id("receipt-close")).click();
    waitFor().until(ExpectedConditions.invisibilityOf(dialog));
    assertThat(browser.switchTo().activeElement().getAttribute("aria-label")).isEqualTo("Receipt of job " + id);

    // the namespace filter: exactly db.sales; the job of ops goes from the table
    String other = jobsOf("ops").get(0);
    assertThat(rowIds()).contains(id, other);
    WebElement namespace = browser.findElement(By.id("jobs-namespace"));
    assertThat(browser.findElement(By.cssSelector("label[for=jobs-namespace]")).getText()).isEqualTo("Namespace");
    namespace.sendKeys("db.sales", Keys.ENTER);
    waitFor().until(d -> rowIds().equals(List.of(id)));
    assertThat(browser.findElement(By.id("jobs-status")).getText()).startsWith("1 job(s) in main, namespace db.sales;");
    // "db" alone is another namespace, not a prefix
    namespace.clear();
    namespace.sendKeys("db", Keys.ENTER);
    waitFor().until(d -> rowIds().isEmpty() && d.findElement(By.id("jobs-status")).getText().startsWith("0 job(s)"));
    // a namespace the server refuses: its 400 in words, no rows
    namespace.clear();
    namespace.sendKeys("db..sales", Keys.ENTER);
    waitFor().until(d -> d.findElement(By.id("jobs-status")).getText().startsWith("The server refused"));
    JsonNode refused = AsyncPurgeHttp.JSON.readTree(
        http("GET", CLEANUPS + "?namespace=db..sales", null, Map.of(), ADMIN_TOKEN).body());
    assertThat(refused.get("code").asInt()).isEqualTo(400);
    assertThat(browser.findElement(By.id("jobs-status")).getText())
        .isEqualTo("The server refused this filter (HTTP 400): " + refused.get("message").asText());
    assertThat(rowIds()).isEmpty();
    shot("jobs-namespace-refused");
    namespace.clear();
    namespace.sendKeys(Keys.ENTER);
    waitFor().until(d -> rowIds().containsAll(List.of(id, other)));
  }

  @Test
  @Order(2)
  void aReaderSeesReceiptsButNoAdminButton() throws Exception {
    signIn(READER_TOKEN);
    browser.get(base() + "/ui#jobs");
    waitFor().until(d -> rowIds().size() == 2);
    String id = jobsOf("db.sales").get(0);
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + id + "'][data-state=SUCCEEDED]")));
    // every row is ended: a Receipt each, and nothing else
    List<String> labels = allButtons();
    assertThat(labels).hasSize(2).containsOnly("Receipt");
    WebElement dialog = openReceipt(id);
    waitFor().until(d -> "SUCCEEDED".equals(receiptFact("state")));
    assertThat(receiptFact("files-deleted")).isEqualTo(String.valueOf(before.size()));
    shot("jobs-receipt-reader");
    axeClean("receipt dialog as a reader");
    // a phone's width: the dialog fits, its figures one under the other
    browser.manage().window().setSize(new Dimension(390, 800));
    assertThat(js("return document.getElementById('receipt').getBoundingClientRect().width <= window.innerWidth")).isEqualTo(true);
    shot("jobs-receipt-390px");
    axeClean("receipt dialog at 390 px");
    new org.openqa.selenium.interactions.Actions(browser).sendKeys(Keys.ESCAPE).perform();
    waitFor().until(ExpectedConditions.invisibilityOf(dialog));
    assertThat(browser.switchTo().activeElement().getAttribute("aria-label")).isEqualTo("Receipt of job " + id);
  }

  @Test
  @Order(3)
  void aBurstOfFilterChangesLeavesOneRefreshTimer() {
    signIn(ADMIN_TOKEN);
    browser.get(base() + "/ui#jobs");
    waitFor().until(d -> rowIds().size() == 2);
    // count the page's 3-second refresh timers from here on: how many are armed at once, at most
    js("const t = window.__timers = {pending: new Set(), max: 0, armed: 0};"
        + "const set = window.setTimeout, clear = window.clearTimeout;"
        + "window.setTimeout = (fn, ms, ...args) => {"
        + "  if (ms !== 3000) return set(fn, ms, ...args);"
        + "  const id = set(() => { t.pending.delete(id); fn(...args); }, ms);"
        + "  t.armed++; t.pending.add(id); t.max = Math.max(t.max, t.pending.size); return id; };"
        + "window.clearTimeout = id => { t.pending.delete(id); clear(id); };");
    // five filter changes while the first refresh they start is still on its way
    js("const form = document.getElementById('jobs-filter');"
        + "for (let i = 0; i < 5; i++) form.dispatchEvent(new Event('change'));");
    // the loop goes round three times (about 6 s); never two timers at once
    new WebDriverWait(browser, Duration.ofSeconds(30)).until(d -> ((Number) js("return window.__timers.armed")).intValue() >= 3);
    assertThat(((Number) js("return window.__timers.max")).intValue()).isEqualTo(1);
    assertThat(rowIds()).hasSize(2);
  }

  private WebElement openReceipt(String id) {
    row(id).findElement(By.cssSelector("button[data-action=receipt]")).click();
    WebElement dialog = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("receipt")));
    assertThat(dialog.findElement(By.id("receipt-title")).getText()).isEqualTo("Receipt of job " + id);
    return dialog;
  }

  private String receiptFact(String name) {
    List<WebElement> found = browser.findElements(By.cssSelector("#receipt-body dd[data-fact='" + name + "']"));
    return found.isEmpty() ? null : found.get(0).getText();
  }

  private WebElement row(String id) {
    return browser.findElement(By.cssSelector("#jobs-table tr[data-job='" + id + "']"));
  }

  /** The text of one cell of a job's row, read in one script (the rows are redrawn every refresh). */
  private String cell(String id, int index) {
    return (String) js("return document.querySelector(\"#jobs-table tr[data-job='" + id + "']\").cells[" + index + "].textContent");
  }

  @SuppressWarnings("unchecked")
  private List<String> buttons(String id) {
    return (List<String>) js("return [...document.querySelectorAll(\"#jobs-table tr[data-job='" + id + "'] button\")]"
        + ".map(b => b.textContent)");
  }

  @SuppressWarnings("unchecked")
  private List<String> allButtons() {
    return (List<String>) js("return [...document.querySelectorAll('#jobs-table button')].map(b => b.textContent)");
  }

  @SuppressWarnings("unchecked")
  private List<String> rowIds() {
    return (List<String>) ((JavascriptExecutor) browser).executeScript(
        "return [...document.querySelectorAll('#jobs-table tr[data-job]')].map(r => r.dataset.job)");
  }

  private JsonNode job(String id) throws Exception {
    return AsyncPurgeHttp.JSON.readTree(http("GET", CLEANUPS + "/" + id, null, Map.of(), ADMIN_TOKEN).body());
  }

  /** The ids of the jobs of one namespace, from the server. */
  private List<String> jobsOf(String namespace) throws Exception {
    JsonNode jobs = AsyncPurgeHttp.JSON.readTree(http("GET", CLEANUPS + "?namespace=" + namespace, null, Map.of(), ADMIN_TOKEN)
        .body()).get("cleanups");
    List<String> ids = new ArrayList<>();
    jobs.forEach(j -> ids.add(j.get("id").asText()));
    assertThat(ids).isNotEmpty();
    return ids;
  }

  /** A REST client as {@link #client(String)} that also sends {@code X-Lethe-Async-Purge: true}: its purges are jobs. */
  RESTCatalog asyncClient(String token) {
    return client(token, Map.of("header.X-Lethe-Async-Purge", "true"));
  }

  private static Path local(String location) {
    return Path.of(location.replaceFirst("^file:", ""));
  }

  private static Map<Path, Long> files(Path dir) throws IOException {
    Map<Path, Long> found = new HashMap<>();
    if (!Files.exists(dir)) {
      return found;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path f : walk.filter(Files::isRegularFile).toList()) {
        found.put(f, Files.size(f));
      }
    }
    return found;
  }
}
