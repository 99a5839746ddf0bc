package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
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
 * The console's Trash view in a real browser (docs/design/0449-operator-console.md §7, docs/console.md
 * "Trash"): soft delete on with a one-hour window, iceberg-java tables with rows in a nested
 * namespace, dropped (retained); undrop and purge-now from the page after the purge preview, a
 * hollow undrop's 409 in words, and a reader who sees the view but no button.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleTrashBrowserTest extends ConsoleBrowserBase {
  private static final Namespace TOP = Namespace.of("ops");
  private static final Namespace EU = Namespace.of("ops", "eu");
  private static final Namespace ARCHIVE = Namespace.of("ops", "eu", "archive");
  private static final String SCHEMAS = "/api/metalakes/default/catalogs/main/schemas/";
  private final Map<String, String> metadata = new HashMap<>();
  private final Map<String, String> locations = new HashMap<>();

  @Override
  String workerThreads() {
    return "1";
  }

  @Override
  Map<String, String> extraConfig() {
    return Map.of("lethe.entity.soft-delete.enabled", "true",
        "lethe.entity.soft-delete.retention-ms", "3600000",
        "lethe.entity.soft-delete.expiry-interval-ms", "500");
  }

  @Override
  void seed() throws Exception {
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createNamespace(TOP);
      catalog.createNamespace(EU);
      catalog.createNamespace(ARCHIVE);
      for (TableIdentifier id : List.of(TableIdentifier.of(ARCHIVE, "orders"), TableIdentifier.of(ARCHIVE, "lines"),
          TableIdentifier.of(EU, "hollow"), TableIdentifier.of(EU, "kept"))) {
        Table t = catalog.createTable(id, PurgeTables.SCHEMA);
        PurgeTables.append(t, 0, 20, "a");
        PurgeTables.append(t, 20, 20, "b");
        t = catalog.loadTable(id);
        metadata.put(id.name(), ((BaseTable) t).operations().current().metadataFileLocation());
        locations.put(id.name(), t.location());
        drop(id);
      }
    }
  }

  private void drop(TableIdentifier id) throws Exception {
    String ns = String.join("%1F", id.namespace().levels());
    HttpResponse<String> drop = http("DELETE", "/iceberg/v1/main/namespaces/" + ns + "/tables/" + id.name() + "?purgeRequested=true",
        null, Map.of(), ADMIN_TOKEN);
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(204);
  }

  private WebElement row(String table) {
    return waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#trash-body tr[data-table='" + table + "']")));
  }

  private String text(String css) {
    return browser.findElement(By.cssSelector(css)).getText();
  }

  /** Opens the dialog with the row's button and waits for the preview (or its failure) to show. */
  private WebElement openDialog(String table, String action) {
    row(table).findElement(By.cssSelector("button[data-action=" + action + "]")).click();
    WebElement dialog = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("trash-confirm")));
    waitFor().until(d -> !d.findElements(By.cssSelector("#trash-preview [data-preview]")).isEmpty());
    return dialog;
  }

  private void confirm() {
    browser.findElement(By.id("trash-confirm-ok")).click();
    waitFor().until(ExpectedConditions.invisibilityOfElementLocated(By.id("trash-confirm")));
  }

  private String answerStartingWith(String prefix) {
    waitFor().until(d -> d.findElement(By.id("trash-answer")).getText().startsWith(prefix));
    return text("#trash-answer");
  }

  /** At phone width the page reflows: nothing but a table's own scroll region is wider than the window. */
  private void assertNoSidewaysScroll() {
    Object wide = js("const w = document.documentElement.clientWidth;"
        + "return [...document.querySelectorAll('body *')].filter(e => !e.closest('.scroll') && e.getClientRects().length"
        + " && e.getBoundingClientRect().right > w + 1).map(e => e.tagName + '#' + e.id + '.' + e.className + ' '"
        + " + Math.round(e.getBoundingClientRect().right)).join(', ')");
    assertThat((String) wide).as("elements wider than the window").isEmpty();
    assertThat((Boolean) js("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")).isTrue();
  }

  @Test
  @Order(1)
  void anAdminUndropsATableAfterReadingThePreviewAndItsRowsComeBack() throws Exception {
    signIn(ADMIN_TOKEN);
    browser.get(base() + "/ui#trash");
    WebElement orders = row("ops.eu.archive.orders");
    assertThat(browser.findElement(By.cssSelector("label[for=trash-catalog]")).getText()).isEqualTo("Catalog");
    assertThat(orders.findElement(By.cssSelector("td[data-field=deleted-by]")).getText()).isEqualTo("oncall");
    assertThat(orders.findElement(By.cssSelector("td[data-field=undrop]")).getText()).isEqualTo("possible");
    assertThat(orders.findElement(By.cssSelector("td[data-field=purge]")).getText()).isEqualTo("at the deadline: files deleted");
    // every namespace level was walked: tables of ops.eu and of ops.eu.archive
    assertThat(browser.findElements(By.cssSelector("#trash-body [data-namespace]")).stream().map(e -> e.getAttribute("data-namespace")))
        .containsExactly("ops.eu", "ops.eu.archive");
    waitFor().until(d -> text("#trash-status").startsWith("4 retained table(s) in main across 3 namespace(s); updated"));
    // the countdown runs every second without a reload
    js("window.__notReloaded = true");
    String first = orders.findElement(By.cssSelector("td[data-field=time-left]")).getText();
    assertThat(first).matches("(59m|1h 0m) \\d+s");
    waitFor().until(d -> !row("ops.eu.archive.orders").findElement(By.cssSelector("td[data-field=time-left]")).getText().equals(first));
    assertThat(js("return window.__notReloaded === true")).isEqualTo(true);
    shot("trash-admin-1280x800");
    axeClean("trash");

    // a redraw because the data changed keeps the keyboard focus on the same button
    WebElement undrop = tabTo("button[data-action=undrop][aria-label='Undrop ops.eu.archive.orders']");
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createTable(TableIdentifier.of(TOP, "extra"), PurgeTables.SCHEMA);
    }
    drop(TableIdentifier.of(TOP, "extra"));
    waitFor().until(d -> !d.findElements(By.cssSelector("#trash-body tr[data-table='ops.extra']")).isEmpty());
    assertThat(browser.switchTo().activeElement().getAttribute("aria-label")).isEqualTo("Undrop ops.eu.archive.orders");

    // Enter opens the dialog; it shows the preview's counts and bytes, and no path
    browser.switchTo().activeElement().sendKeys(Keys.ENTER);
    WebElement dialog = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("trash-confirm")));
    waitFor().until(d -> !d.findElements(By.cssSelector("#trash-preview [data-preview=facts]")).isEmpty());
    assertThat(text("#trash-confirm-title")).isEqualTo("Undrop ops.eu.archive.orders?");
    JsonNode preview = AsyncPurgeHttp.JSON.readTree(http("GET", SCHEMAS + "ops%1Feu%1Farchive/tables/orders/purge-preview", null,
        Map.of(), ADMIN_TOKEN).body());
    long total = preview.get("wouldDelete").get("total").asLong();
    assertThat(total).isGreaterThanOrEqualTo(2 + 2 + 2 + 3); // 2 data files, 2 manifests, 2 manifest lists, 3 metadata files
    assertThat(text("#trash-preview dd[data-fact=would-delete]")).startsWith(total + " file(s), ")
        .contains(String.format(java.util.Locale.US, "%,d bytes", preview.get("wouldDelete").get("bytes").asLong()));
    assertThat(text("#trash-preview dd[data-fact=kind-dataFiles]")).startsWith("2, ");
    assertThat(dialog.getText()).doesNotContain(locations.get("orders").replaceFirst("^file:", ""))
        .doesNotContain("metadata.json").doesNotContain(".parquet").doesNotContain("/");
    shot("trash-undrop-dialog-1280x800");
    axeClean("trash undrop dialog");
    browser.manage().window().setSize(new Dimension(390, 800));
    shot("trash-undrop-dialog-390px");
    axeClean("trash undrop dialog at 390 px");
    assertNoSidewaysScroll();
    // keyboard: Cancel has the focus; Tab to Undrop and press Enter
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("trash-confirm-cancel");
    new org.openqa.selenium.interactions.Actions(browser).sendKeys(Keys.TAB).perform();
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("trash-confirm-ok");
    browser.switchTo().activeElement().sendKeys(Keys.ENTER);
    assertThat(answerStartingWith("Undrop ops.eu.archive.orders"))
        .matches("Undrop ops\\.eu\\.archive\\.orders: done; the table is back at its name \\(entity id [0-9a-f-]+\\)\\.");
    waitFor().until(d -> d.findElements(By.cssSelector("#trash-body tr[data-table='ops.eu.archive.orders']")).isEmpty());
    shot("trash-admin-390px");
    axeClean("trash at 390 px");
    assertNoSidewaysScroll();
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      Table back = catalog.loadTable(TableIdentifier.of(ARCHIVE, "orders"));
      assertThat(SoftDeleteHttp.rows(back)).hasSize(40);
    }
    // another view stops the ticker; coming back starts it again
    browser.get(base() + "/ui#overview");
    waitFor().until(d -> d.findElement(By.id("trash")).getAttribute("data-ticking") == null);
    browser.get(base() + "/ui#trash");
    waitFor().until(d -> "true".equals(d.findElement(By.id("trash")).getAttribute("data-ticking")));
  }

  @Test
  @Order(2)
  void aHollowUndropIsRefused409InWords() throws Exception {
    // the table's current metadata file deleted outside the catalog (docs/design/0301-hollow-restore.md)
    Files.delete(Path.of(metadata.get("hollow").replaceFirst("^file:", "")));
    signIn(ADMIN_TOKEN);
    browser.get(base() + "/ui#trash");
    waitFor().until(d -> row("ops.eu.hollow").findElement(By.cssSelector("td[data-field=undrop]")).getText()
        .startsWith("would be hollow: its current metadata file is missing"));
    WebElement dialog = openDialog("ops.eu.hollow", "undrop");
    assertThat(dialog.findElement(By.id("trash-preview")).getText()).startsWith("No purge preview (HTTP 500)").doesNotContain("/");
    shot("trash-hollow-dialog");
    axeClean("trash dialog without a preview");
    confirm();
    assertThat(answerStartingWith("Undrop ops.eu.hollow")).startsWith("Undrop ops.eu.hollow refused (HTTP 409): Cannot undrop ops.eu.hollow: ")
        .contains("deleted outside the catalog");
    shot("trash-hollow-refused");
    // nothing changed: still retained
    assertThat(http("GET", SCHEMAS + "ops%1Feu/tables/hollow?deleted=true", null, Map.of(), ADMIN_TOKEN).statusCode()).isEqualTo(200);
  }

  @Test
  @Order(3)
  void anAdminPurgesNowAfterThePreviewAndTheFilesAreGone() throws Exception {
    Path dir = Path.of(locations.get("lines").replaceFirst("^file:", ""));
    assertThat(PurgeTables.files(locations.get("lines"))).isNotEmpty();
    signIn(ADMIN_TOKEN);
    browser.get(base() + "/ui#trash");
    WebElement dialog = openDialog("ops.eu.archive.lines", "purge");
    assertThat(text("#trash-confirm-title")).isEqualTo("Purge now ops.eu.archive.lines?");
    assertThat(text("#trash-preview dd[data-fact=would-delete]")).startsWith(PurgeTables.files(locations.get("lines")).size() + " file(s), ");
    assertThat(dialog.getText()).doesNotContain(dir.toString()).doesNotContain("/");
    shot("trash-purge-dialog");
    axeClean("trash purge-now dialog");
    confirm();
    assertThat(answerStartingWith("Purge now ops.eu.archive.lines"))
        .matches("Purge now ops\\.eu\\.archive\\.lines: started; cleanup job (PENDING|RUNNING|SUCCEEDED) \\(follow it in Jobs\\)\\.");
    // the job of the purge-now path succeeds, the files are gone, the row leaves the trash
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(d -> {
      try {
        JsonNode jobs = AsyncPurgeHttp.JSON.readTree(http("GET", "/api/metalakes/default/catalogs/main/cleanups?name=lines", null,
            Map.of(), ADMIN_TOKEN).body()).get("cleanups");
        return jobs.size() == 1 && "PURGE_NOW".equals(jobs.get(0).get("purgePath").asText())
            && "SUCCEEDED".equals(jobs.get(0).get("state").asText());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(PurgeTables.files(locations.get("lines"))).isEmpty();
    new WebDriverWait(browser, Duration.ofSeconds(30)).until(
        d -> d.findElements(By.cssSelector("#trash-body tr[data-table='ops.eu.archive.lines']")).isEmpty());
    // the other tables' files are untouched
    assertThat(PurgeTables.files(locations.get("kept"))).isNotEmpty();
  }

  @Test
  @Order(4)
  void aReaderSeesTheTrashWithoutButtonsAndAForgedUndropOrPurgeIs403() throws Exception {
    signIn(READER_TOKEN);
    browser.get(base() + "/ui#trash");
    WebElement kept = row("ops.eu.kept");
    assertThat(kept.findElement(By.cssSelector("td[data-field=undrop]")).getText()).isEqualTo("possible");
    assertThat(browser.findElements(By.cssSelector("#trash-body button"))).isEmpty();
    shot("trash-reader-1280x800");
    axeClean("trash as a reader");
    for (String verb : List.of("undrop", "purge")) {
      Object status = ((JavascriptExecutor) browser).executeAsyncScript(
          "const done = arguments[arguments.length - 1];"
              + "fetch('" + SCHEMAS + "ops%1Feu/tables/kept/' + arguments[0], {method: 'POST',"
              + " headers: {'Authorization': 'Bearer ' + sessionStorage.getItem('lethe.console.token')}})"
              + ".then(r => r.text().then(t => done(r.status + ' ' + t)), e => done('error ' + e));", verb);
      assertThat((String) status).as(verb).startsWith("403 ").contains("Forbidden");
    }
    JsonNode still = AsyncPurgeHttp.JSON.readTree(http("GET", SCHEMAS + "ops%1Feu/tables/kept?deleted=true", null, Map.of(),
        ADMIN_TOKEN).body());
    assertThat(still.get("state").asText()).isEqualTo("DELETED");
    assertThat(PurgeTables.files(locations.get("kept"))).isNotEmpty();
  }
}
