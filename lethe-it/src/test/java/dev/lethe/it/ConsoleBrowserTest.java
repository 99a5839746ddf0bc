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
import org.awaitility.Awaitility;
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
 * The console's sign-in, Overview and Jobs views in a real browser (docs/design/0449-operator-console.md,
 * docs/console.md), on the fixture of {@link ConsoleBrowserBase}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest extends ConsoleBrowserBase {
  private static final Namespace NS = Namespace.of("sales");

  @Override
  void seed() throws Exception {
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createNamespace(NS);
      for (String name : List.of("orders", "returns")) {
        Table t = catalog.createTable(TableIdentifier.of(NS, name), PurgeTables.SCHEMA);
        PurgeTables.append(t, 0, 20, "a");
        PurgeTables.append(t, 20, 20, "b");
      }
    }
    for (String name : List.of("orders", "returns")) {
      HttpResponse<String> drop = http("DELETE", "/iceberg/v1/main/namespaces/sales/tables/" + name + "?purgeRequested=true", null,
          Map.of("X-Lethe-Async-Purge", "true"), ADMIN_TOKEN);
      assertThat(drop.statusCode()).as(drop.body()).isEqualTo(204);
      assertThat(drop.headers().firstValue("X-Lethe-Purge-State")).hasValue("PENDING");
    }
    // a hold and a protection, so the overview has something to count
    assertThat(http("PUT", "/api/metalakes/default/catalogs/main/holds",
        "{\"kind\":\"table\",\"namespace\":[\"legal\"],\"name\":\"contracts\",\"reason\":\"case 7\"}", Map.of(), ADMIN_TOKEN).statusCode())
        .isEqualTo(200);
    assertThat(http("PUT", "/api/metalakes/default/catalogs/main/protections",
        "{\"kind\":\"namespace\",\"namespace\":[\"finance\"],\"reason\":\"audited\"}", Map.of(), ADMIN_TOKEN).statusCode())
        .isEqualTo(200);
  }

  @Test
  @Order(1)
  void anAdminSignsInWithTheKeyboardAndSeesTheOverview() throws Exception {
    browser.get(base() + "/ui");
    WebElement token = browser.findElement(By.id("token"));
    assertThat(browser.findElement(By.cssSelector("label[for=token]")).getText()).isEqualTo("Bearer token");
    shot("sign-in");
    axeClean("sign-in");
    token.sendKeys(ADMIN_TOKEN, Keys.ENTER);
    WebElement card = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("article[data-catalog=main]")));
    assertThat(browser.findElement(By.id("who")).getText()).isEqualTo("Signed in as oncall (admin)");
    assertThat(fact(card, "jobs-pending")).isEqualTo("2");
    assertThat(fact(card, "failed")).isEqualTo("none");
    assertThat(fact(card, "holds")).isEqualTo("1");
    assertThat(fact(card, "protections")).isEqualTo("1");
    assertThat(fact(card, "retained")).isEqualTo("0");
    assertThat(fact(card, "oldest-pending")).matches("(\\d+m )?\\d+s");
    // the token is in this tab's session storage and nowhere a URL, a cookie or the page shows it
    assertThat(browser.getCurrentUrl()).doesNotContain(ADMIN_TOKEN);
    assertThat(browser.manage().getCookies()).isEmpty();
    assertThat(browser.getPageSource()).doesNotContain(ADMIN_TOKEN);
    assertThat(js("return sessionStorage.getItem('lethe.console.token')")).isEqualTo(ADMIN_TOKEN);
    assertThat(js("return localStorage.length")).isEqualTo(0L);
    shot("overview-1280x800");
    axeClean("overview");
    // live: a third job appears without a reload
    Object marker = js("window.__notReloaded = true; return true");
    assertThat(marker).isEqualTo(true);
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      Table t = catalog.createTable(TableIdentifier.of(NS, "live"), PurgeTables.SCHEMA);
      PurgeTables.append(t, 0, 5, "a");
    }
    assertThat(http("DELETE", "/iceberg/v1/main/namespaces/sales/tables/live?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true"), ADMIN_TOKEN).statusCode()).isEqualTo(204);
    // the card is redrawn every refresh: one found just before a redraw is stale, so look again
    waitFor().ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(d -> "3".equals(fact(d.findElement(By.cssSelector("article[data-catalog=main]")), "jobs-pending")));
    assertThat(js("return window.__notReloaded === true")).isEqualTo(true);
    // keyboard: Tab to the Jobs view and open it with Enter
    tabTo("#tab-jobs").sendKeys(Keys.ENTER);
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-state=PENDING]")));
    assertThat(browser.findElements(By.cssSelector("tr[data-state=PENDING] button[data-action=rescue]"))).hasSize(3);
    // a refresh that redraws the rows leaves the keyboard focus on the same button
    WebElement rescue = tabTo("button[data-action=rescue][aria-label='Rescue job 1']");
    assertThat(rescue.getText()).isEqualTo("Rescue");
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createTable(TableIdentifier.of(NS, "extra"), PurgeTables.SCHEMA);
    }
    assertThat(http("DELETE", "/iceberg/v1/main/namespaces/sales/tables/extra?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true"), ADMIN_TOKEN).statusCode()).isEqualTo(204);
    waitFor().until(d -> d.findElements(By.cssSelector("#jobs-table tr[data-job]")).size() == 4);
    assertThat(browser.switchTo().activeElement().getAttribute("aria-label")).isEqualTo("Rescue job 1");
    shot("jobs-admin-1280x800");
    axeClean("jobs");
    browser.manage().window().setSize(new Dimension(400, 800));
    shot("jobs-admin-400px");
    browser.get(base() + "/ui#overview");
    waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("article[data-catalog=main]")));
    shot("overview-400px");
    axeClean("overview at 400 px");
    // sign-out forgets the token
    browser.findElement(By.id("sign-out")).click();
    waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
    assertThat(js("return sessionStorage.length")).isEqualTo(0L);
  }

  @Test
  @Order(2)
  void anAdminRescuesAJobThroughTheConfirmDialogAndReadsTheAnswer() throws Exception {
    signIn(ADMIN_TOKEN);
    browser.get(base() + "/ui#jobs");
    WebElement row = waitFor().until(ExpectedConditions.presenceOfElementLocated(By.xpath(
        "//tr[@data-state='PENDING'][td[3][normalize-space()='TABLE sales.returns']]")));
    String id = row.getAttribute("data-job");
    row.findElement(By.cssSelector("button[data-action=rescue]")).click();
    WebElement dialog = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm")));
    assertThat(dialog.findElement(By.id("confirm-title")).getText()).isEqualTo("Rescue job " + id + "?");
    shot("jobs-confirm-dialog");
    axeClean("confirm dialog");
    // keyboard: Cancel has the focus; Tab to Confirm and press Enter
    new Actions(browser).sendKeys(Keys.TAB).perform();
    assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("confirm-ok");
    browser.switchTo().activeElement().sendKeys(Keys.ENTER);
    waitFor().until(d -> d.findElement(By.id("jobs-answer")).getText().startsWith("Rescue job " + id));
    assertThat(browser.findElement(By.id("jobs-answer")).getText()).isEqualTo("Rescue job " + id + ": done; the job is now CANCELLED.");
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + id + "'][data-state=CANCELLED]")));
    // Escape backs out of the next dialog even though the last one was confirmed: nothing is sent
    WebElement other = waitFor().until(ExpectedConditions.presenceOfElementLocated(By.xpath(
        "//tr[@data-state='PENDING'][td[3][normalize-space()='TABLE sales.orders']]")));
    String otherId = other.getAttribute("data-job");
    other.findElement(By.cssSelector("button[data-action=rescue]")).click();
    waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm")));
    new Actions(browser).sendKeys(Keys.ESCAPE).perform();
    waitFor().until(ExpectedConditions.invisibilityOfElementLocated(By.id("confirm")));
    Awaitility.await("the escaped rescue is never sent").during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10))
        .until(() -> AsyncPurgeHttp.JSON.readTree(http("GET", "/api/metalakes/default/catalogs/main/cleanups/" + otherId, null,
            Map.of(), ADMIN_TOKEN).body()).get("state").asText(), "PENDING"::equals);
    assertThat(browser.findElement(By.id("jobs-answer")).getText()).isEqualTo("Rescue job " + id + ": done; the job is now CANCELLED.");
    // the table is back at its name, rows and all
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      assertThat(catalog.tableExists(TableIdentifier.of(NS, "returns"))).isTrue();
      assertThat(catalog.loadTable(TableIdentifier.of(NS, "returns")).currentSnapshot().summary().get("total-records")).isEqualTo("40");
    }
    // a refusal is shown in the server's words: run-now is refused on an ended job
    JsonNode refused = AsyncPurgeHttp.JSON.readTree(http("POST", "/api/metalakes/default/catalogs/main/cleanups/" + id + "/run-now",
        null, Map.of(), ADMIN_TOKEN).body());
    assertThat(refused.get("code").asInt()).isEqualTo(409);
  }

  @Test
  @Order(3)
  void aReaderSeesNoAdminButtonAndAForgedAdminCallIs403() throws Exception {
    signIn(READER_TOKEN);
    assertThat(browser.findElement(By.id("who")).getText()).isEqualTo("Signed in as viewer (read-only: no admin actions)");
    browser.get(base() + "/ui#jobs");
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-state=PENDING]")));
    assertThat(browser.findElements(By.cssSelector("#jobs-table tr[data-job]"))).hasSizeGreaterThanOrEqualTo(2);
    // no admin button; an ended job (the rescued one, CANCELLED) has its Receipt, for any reader
    assertThat(js("return [...document.querySelectorAll('#jobs-table button')].map(b => b.dataset.action)"
        + ".filter(a => a !== 'receipt').length")).isEqualTo(0L);
    assertThat(js("return document.querySelectorAll('#jobs-table tr[data-state=CANCELLED] button[data-action=receipt]').length"))
        .isEqualTo(1L);
    shot("jobs-reader-1280x800");
    axeClean("jobs as a reader");
    String pending = browser.findElement(By.cssSelector("tr[data-state=PENDING]")).getAttribute("data-job");
    // the page hides the button; the server refuses the call anyway, from the page's own origin
    Object status = ((JavascriptExecutor) browser).executeAsyncScript(
        "const done = arguments[arguments.length - 1];"
            + "fetch('/api/metalakes/default/catalogs/main/cleanups/' + arguments[0] + '/rescue', {method: 'POST',"
            + " headers: {'Authorization': 'Bearer ' + sessionStorage.getItem('lethe.console.token'), 'Content-Type': 'application/json'},"
            + " body: '{}'}).then(r => r.text().then(t => done(r.status + ' ' + t)), e => done('error ' + e));", pending);
    assertThat((String) status).startsWith("403 ").contains("Forbidden");
    assertThat(AsyncPurgeHttp.JSON.readTree(http("GET", "/api/metalakes/default/catalogs/main/cleanups/" + pending, null, Map.of(),
        ADMIN_TOKEN).body()).get("state").asText()).isEqualTo("PENDING");
  }

  @Test
  @Order(4)
  void aBadTokenIsRefusedInWordsAndNotKept() {
    browser.get(base() + "/ui");
    browser.findElement(By.id("token")).sendKeys("not-a-token", Keys.ENTER);
    waitFor().until(d -> !d.findElement(By.id("sign-in-error")).getText().isEmpty());
    assertThat(browser.findElement(By.id("sign-in-error")).getText()).startsWith("The server did not accept this token: ");
    assertThat(js("return sessionStorage.length")).isEqualTo(0L);
    assertThat(browser.findElement(By.id("tabs")).isDisplayed()).isFalse();
  }

  @Test
  @Order(5)
  void aJobGoesFromPendingToSucceededInTheJobsView() throws Exception {
    signIn(ADMIN_TOKEN);
    browser.get(base() + "/ui#jobs");
    WebElement row = waitFor().until(ExpectedConditions.presenceOfElementLocated(By.xpath(
        "//tr[@data-state='PENDING'][td[3][normalize-space()='TABLE sales.orders']]")));
    String id = row.getAttribute("data-job");
    js("window.__notReloaded = true");
    // a server with a purge worker takes over the same database, on the same port: the page keeps
    // refreshing through the restart and shows the job succeed, without a reload
    server.close();
    server = startServer("1", "server-2.log");
    new WebDriverWait(browser, Duration.ofSeconds(60)).until(
        ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-job='" + id + "'][data-state=SUCCEEDED]")));
    assertThat(js("return window.__notReloaded === true")).isEqualTo(true);
    WebElement done = browser.findElement(By.cssSelector("tr[data-job='" + id + "']"));
    assertThat(done.findElements(By.tagName("td")).get(3).getText()).isEqualTo("ASYNC");
    // an ended job: its receipt, no action
    assertThat(js("return [...document.querySelectorAll(\"tr[data-job='" + id + "'] button\")].map(b => b.textContent).join()"))
        .isEqualTo("Receipt");
    shot("jobs-succeeded");
    // the state filter
    new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("jobs-state"))).selectByVisibleText("SUCCEEDED");
    // the rows are redrawn every refresh: read them in one script, not element by element
    waitFor().until(d -> Boolean.TRUE.equals(((JavascriptExecutor) d).executeScript(
        "const rows = [...document.querySelectorAll('#jobs-table tr[data-job]')];"
            + "return rows.length > 0 && rows.every(r => r.dataset.state === 'SUCCEEDED');")));
  }
}
