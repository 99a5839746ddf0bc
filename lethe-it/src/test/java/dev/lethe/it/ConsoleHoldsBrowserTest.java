package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's Protection and holds view in a real browser (docs/design/0449-operator-console.md
 * "Protection and holds view", docs/console.md "Protection and holds"): an admin places a legal hold from the page, sees the
 * purge it keeps waiting under "Holding back", releases it and the purge ends; sets and clears a
 * drop protection, a drop being refused meanwhile; bad input changes nothing; a reader sees the
 * tables only and a forged call is refused.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleHoldsBrowserTest extends ConsoleBrowserBase {
  private static final Namespace NS = Namespace.of("legal");
  private static final String HOLDS = "/api/metalakes/default/catalogs/main/holds";
  private static final String PROTECTIONS = "/api/metalakes/default/catalogs/main/protections";

  @Override
  void seed() throws Exception {
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createNamespace(NS);
      for (String name : List.of("contracts", "memos")) {
        Table t = catalog.createTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA);
        PurgeTables.append(t, 0, 20, "a");
        PurgeTables.append(t, 20, 20, "b");
      }
    }
    // no worker yet (workerThreads "0"): the purge of legal.contracts waits PENDING until the
    // first test has placed its hold and restarted the server with one worker
    HttpResponse<String> drop = http("DELETE", "/iceberg/v1/main/namespaces/legal/tables/contracts?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true"), ADMIN_TOKEN);
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(204);
    assertThat(drop.headers().firstValue("X-Lethe-Purge-State")).hasValue("PENDING");
  }

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> r = http("GET", path, null, Map.of(), ADMIN_TOKEN);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return AsyncPurgeHttp.JSON.readTree(r.body());
  }

  private void openView(String token) {
    signIn(token);
    browser.get(base() + "/ui#holds");
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.id("holds-table")));
  }

  private String answer() {
    return browser.findElement(By.id("holds-answer")).getText();
  }

  private void type(String id, String text) {
    WebElement input = browser.findElement(By.id(id));
    input.clear();
    input.sendKeys(text);
  }

  private void confirmDialog(String shotName) throws Exception {
    WebElement dialog = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("holds-confirm")));
    assertThat(dialog.getAttribute("open")).isNotNull();
    if (shotName != null) {
      shot(shotName);
      axeClean(shotName);
    }
    browser.findElement(By.id("holds-confirm-ok")).click();
    waitFor().until(ExpectedConditions.invisibilityOfElementLocated(By.id("holds-confirm")));
  }

  @Test
  @Order(1)
  void anAdminPlacesAHoldSeesWhatItHoldsBackAndReleasesIt() throws Exception {
    openView(ADMIN_TOKEN);
    long job = get("/api/metalakes/default/catalogs/main/cleanups?state=PENDING").get("cleanups").get(0).get("id").asLong();
    assertThat(new Select(browser.findElement(By.id("holds-catalog"))).getFirstSelectedOption().getText()).isEqualTo("main");
    shot("holds-empty-1280x800");
    axeClean("holds view, empty");
    // place a hold on the dropped table whose purge is queued
    type("holds-place-namespace", "legal");
    type("holds-place-name", "contracts");
    type("holds-place-reason", "case 12");
    browser.findElement(By.id("holds-place-submit")).click();
    WebElement dialog = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("holds-confirm")));
    assertThat(dialog.findElement(By.id("holds-confirm-title")).getText()).isEqualTo("Place a legal hold on table legal.contracts?");
    confirmDialog("holds-confirm-dialog-1280x800");
    waitFor().until(d -> answer().startsWith("Placed hold "));
    assertThat(answer()).endsWith(" on table legal.contracts.");
    WebElement row = waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#holds-table tr[data-state=active]")));
    List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    assertThat(cells.subList(0, 3)).containsExactly("table legal.contracts", "oncall", "case 12");
    assertThat(cells.get(4)).isEqualTo("until released");
    assertThat(cells.get(5)).isEqualTo("in force");
    assertThat(cells.get(6)).isEqualTo("nothing");
    JsonNode holds = get(HOLDS).get("holds");
    assertThat(holds).hasSize(1);
    String holdId = holds.get(0).get("id").asText();
    assertThat(row.getAttribute("data-hold")).isEqualTo(holdId);
    // a server with one purge worker takes over: it claims the queued purge, finds the hold and
    // leaves the job PENDING with last_error naming the hold; the page shows it under Holding back
    js("window.__notReloaded = true");
    server.close();
    server = startServer("1", "server-2.log");
    WebElement held = new WebDriverWait(browser, Duration.ofSeconds(60)).until(ExpectedConditions.presenceOfElementLocated(
        By.cssSelector("#holds-table tr[data-hold='" + holdId + "'] td.holding-back li[data-job='" + job + "']")));
    assertThat(held.getText()).isEqualTo("job " + job + " TABLE legal.contracts");
    assertThat(js("return window.__notReloaded === true")).isEqualTo(true);
    JsonNode waiting = get("/api/metalakes/default/catalogs/main/cleanups/" + job);
    assertThat(waiting.get("state").asText()).isEqualTo("PENDING");
    assertThat(waiting.get("lastError").asText()).startsWith("waiting for legal hold " + holdId);
    assertThat(browser.findElement(By.id("holds-status")).getText()).contains("1 job(s) held back in main");
    shot("holds-holding-back-1280x800");
    axeClean("holds view, a job held back");
    // a refresh with nothing new redraws nothing: the row stays the same node and the focus on its button
    js("const b = document.querySelector(\"#holds-table button[data-action=release]\"); b.focus();"
        + " window.__row = b.closest('tr'); window.__status = document.getElementById('holds-status').textContent;");
    waitFor().until(d -> !browser.findElement(By.id("holds-status")).getText().equals(js("return window.__status")));
    assertThat(js("return window.__row.isConnected && document.activeElement.dataset.action === 'release'")).isEqualTo(true);
    browser.manage().window().setSize(new Dimension(390, 844));
    shot("holds-holding-back-390px");
    axeClean("holds view at 390 px");
    // release from the page: the keyboard focus stays put through refreshes, the job runs and ends
    WebElement release = browser.findElement(By.cssSelector("#holds-table tr[data-hold='" + holdId + "'] button[data-action=release]"));
    assertThat(release.getAttribute("aria-label")).isEqualTo("Release the hold on table legal.contracts");
    release.click();
    waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("holds-confirm")));
    shot("holds-confirm-dialog-390px");
    axeClean("holds confirm dialog at 390 px");
    browser.findElement(By.id("holds-confirm-ok")).click();
    waitFor().until(d -> answer().startsWith("Released the hold on table legal.contracts"));
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(d -> {
      try {
        return "SUCCEEDED".equals(get("/api/metalakes/default/catalogs/main/cleanups/" + job).get("state").asText());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    waitFor().until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#holds-table tr[data-hold]"), 0));
    assertThat(get(HOLDS).get("holds")).isEmpty();
    // the audit: the released hold, by whom
    browser.findElement(By.id("holds-released")).click();
    WebElement audit = waitFor().until(ExpectedConditions.presenceOfElementLocated(
        By.cssSelector("#holds-table tr[data-hold='" + holdId + "'][data-state=released]")));
    assertThat(audit.findElements(By.tagName("td")).get(5).getText()).startsWith("released by oncall at ");
    assertThat(audit.findElements(By.tagName("button"))).isEmpty();
    shot("holds-released-audit-390px");
  }

  @Test
  @Order(2)
  void anAdminSetsAndClearsAProtectionAndADropIsRefusedMeanwhile() throws Exception {
    openView(ADMIN_TOKEN);
    type("holds-protect-namespace", "legal");
    type("holds-protect-name", "memos");
    type("holds-protect-reason", "board minutes");
    browser.findElement(By.id("holds-protect-submit")).click();
    confirmDialog(null);
    waitFor().until(d -> answer().equals("Protected table legal.memos."));
    WebElement row = waitFor().until(ExpectedConditions.presenceOfElementLocated(
        By.cssSelector("#protections-table tr[data-protection='table legal.memos']")));
    List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    assertThat(cells.subList(0, 3)).containsExactly("table legal.memos", "oncall", "board minutes");
    shot("holds-protection-1280x800");
    axeClean("holds view with a protection");
    // meanwhile no client may drop it: 409 naming the protection, and the table is still there
    HttpResponse<String> drop = http("DELETE", "/iceberg/v1/main/namespaces/legal/tables/memos?purgeRequested=true", null, Map.of(),
        ADMIN_TOKEN);
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(409);
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      assertThat(catalog.tableExists(TableIdentifier.of(NS, "memos"))).isTrue();
    }
    // clear it from the page; the drop then goes through
    row.findElement(By.cssSelector("button[data-action=clear]")).click();
    confirmDialog(null);
    waitFor().until(d -> answer().equals("Cleared the protection of table legal.memos."));
    waitFor().until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#protections-table tr[data-protection]"), 0));
    assertThat(get(PROTECTIONS).get("protections")).isEmpty();
    HttpResponse<String> again = http("DELETE", "/iceberg/v1/main/namespaces/legal/tables/memos", null, Map.of(), ADMIN_TOKEN);
    assertThat(again.statusCode()).as(again.body()).isEqualTo(204);
  }

  @Test
  @Order(3)
  void badInputShowsItsMessageAndChangesNothing() throws Exception {
    openView(ADMIN_TOKEN);
    int before = get(HOLDS + "?include=released").get("holds").size();
    // no reason
    type("holds-place-namespace", "legal");
    type("holds-place-name", "contracts");
    browser.findElement(By.id("holds-place-submit")).click();
    waitFor().until(d -> answer().equals("Place hold: A hold needs a reason (e.g. a case number): nothing was placed."));
    assertThat(browser.findElement(By.id("holds-confirm")).isDisplayed()).isFalse();
    // a half-typed end: only the month typed
    type("holds-place-reason", "case 13");
    browser.findElement(By.id("holds-place-until")).sendKeys("12");
    assertThat(js("return document.getElementById('holds-place-until').validity.badInput")).isEqualTo(true);
    browser.findElement(By.id("holds-place-submit")).click();
    waitFor().until(d -> answer().startsWith("Place hold: The \"until\" date and time is incomplete"));
    shot("holds-bad-until-1280x800");
    axeClean("holds view with a refusal");
    // an unknown table
    js("document.getElementById('holds-place-until').value = ''");
    type("holds-place-name", "nosuch");
    browser.findElement(By.id("holds-place-submit")).click();
    waitFor().until(d -> answer().equals("Place hold: No table legal.nosuch in catalog main: nothing was changed."));
    // an end in the past: the server's own words
    type("holds-place-name", "memos2");
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createTable(TableIdentifier.of(NS, "memos2"), PurgeTables.SCHEMA);
    }
    js("document.getElementById('holds-place-until').value = '2020-01-01T10:00'");
    browser.findElement(By.id("holds-place-submit")).click();
    confirmDialog(null);
    waitFor().until(d -> answer().startsWith("Place hold on table legal.memos2 refused (HTTP 400): Invalid hold: expiresAt "));
    assertThat(answer()).contains("is not in the future");
    assertThat(get(HOLDS + "?include=released").get("holds")).hasSize(before);
    // a protection of an unknown namespace
    type("holds-protect-namespace", "nowhere");
    type("holds-protect-name", "t");
    browser.findElement(By.id("holds-protect-submit")).click();
    waitFor().until(d -> answer().equals("Set protection: No namespace nowhere in catalog main: nothing was changed."));
    assertThat(get(PROTECTIONS).get("protections")).isEmpty();
  }

  @Test
  @Order(4)
  void aReaderSeesTheTablesWithoutFormsOrButtonsAndAForgedPlaceIs403() throws Exception {
    assertThat(http("PUT", HOLDS, "{\"kind\":\"namespace\",\"namespace\":[\"legal\"],\"reason\":\"case 14\"}", Map.of(), ADMIN_TOKEN)
        .statusCode()).isEqualTo(200);
    openView(READER_TOKEN);
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#holds-table tr[data-state=active]")));
    assertThat(browser.findElement(By.id("holds-place-form")).isDisplayed()).isFalse();
    assertThat(browser.findElement(By.id("holds-protect-form")).isDisplayed()).isFalse();
    assertThat(browser.findElements(By.cssSelector("#holds button:not([hidden])")).stream().filter(WebElement::isDisplayed)
        .map(b -> b.getAttribute("id")).toList()).isEmpty();
    assertThat(browser.findElements(By.cssSelector("#holds-body button"))).isEmpty();
    shot("holds-reader-1280x800");
    axeClean("holds view as a reader");
    Object status = ((JavascriptExecutor) browser).executeAsyncScript(
        "const done = arguments[arguments.length - 1];"
            + "fetch('" + HOLDS + "', {method: 'PUT',"
            + " headers: {'Authorization': 'Bearer ' + sessionStorage.getItem('lethe.console.token'), 'Content-Type': 'application/json'},"
            + " body: JSON.stringify({kind: 'table', namespace: ['legal'], name: 'memos2', reason: 'forged'})})"
            + ".then(r => r.text().then(t => done(r.status + ' ' + t)), e => done('error ' + e));");
    assertThat((String) status).startsWith("403 ");
    JsonNode holds = get(HOLDS + "?include=released").get("holds");
    assertThat(holds.findValuesAsText("reason")).doesNotContain("forged");
  }

  @Test
  @Order(5)
  void theViewReflowsAtPhoneWidth() throws Exception {
    browser.manage().window().setSize(new Dimension(390, 844));
    openView(ADMIN_TOKEN);
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#holds-table tr[data-state=active]")));
    // the page itself never scrolls sideways: only a table, inside its own .scroll region
    assertThat(js("return document.documentElement.scrollWidth <= window.innerWidth")).isEqualTo(true);
    shot("holds-admin-390px");
    axeClean("holds view at 390 px");
  }
}
