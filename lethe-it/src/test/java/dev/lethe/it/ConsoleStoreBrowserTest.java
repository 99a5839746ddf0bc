package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The console's Store view in a real browser (docs/design/0452-console-store-view.md, docs/console.md
 * "Store"): records seeded over the store's HTTP routes, one deleted (a tombstone), browsed as a store
 * admin, a reader with no store grant and a reader of one namespace.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleStoreBrowserTest extends ConsoleBrowserBase {
  static final String NOTES_TOKEN = "console-notes-token-7d21";
  private static final String PEER = "0b6c2f0e-1111-4a2b-8c3d-0123456789ab";
  private static final String LONG = "A long note: " + "x".repeat(100) + " café";
  private long deletedAt;
  private String tombstoneRevision;

  @Override
  String extraPrincipals() throws Exception {
    // reads (and writes) store namespace notes only, and no catalog
    return "  - name: notes-reader\n    token-sha256: \"" + sha256(NOTES_TOKEN) + "\"\n    read: []\n    write: []\n"
        + "    store:\n      read: [notes]\n      write: [notes]\n";
  }

  @Override
  Map<String, String> extraConfig() {
    return Map.of("lethe.store.grpc-port", "0");
  }

  @Override
  void seed() throws Exception {
    put("notes/2026/todo", "{\"body\":{\"text\":\"buy milk\\n\"}}");
    put("notes/2026/done", "{\"body\":{\"text\":" + AsyncPurgeHttp.JSON.writeValueAsString(LONG) + "}}");
    put("notes/2026/gone", "{\"body\":{\"text\":\"soon deleted\"}}");
    put("notes/archive/old", "{\"body\":{\"base64\":\"AAECAw==\"}}");
    put("team/c/k", "{\"body\":{\"text\":\"not for notes readers\"}}");
    for (int i = 0; i < 55; i++) {
      put(String.format("notes/bulk/r%03d", i), "{\"body\":{\"text\":\"row " + i + "\"}}");
    }
    HttpResponse<String> delete = http("DELETE", "/store/v1/records/notes/2026/gone", null, Map.of(), ADMIN_TOKEN);
    assertThat(delete.statusCode()).as(delete.body()).isEqualTo(200);
    JsonNode tombstone = AsyncPurgeHttp.JSON.readTree(delete.body());
    assertThat(tombstone.get("kind").asText()).isEqualTo("tombstone");
    deletedAt = tombstone.get("deletedAt").asLong();
    tombstoneRevision = tombstone.get("revision").get("counter").asLong() + ":"
        + tombstone.get("revision").get("hash").asText().substring(0, 12);
    // a peer whose URI carries a password and a token
    HttpResponse<String> peer = http("PUT", "/store/v1/ledger/peers/" + PEER, "{\"id\":\"" + PEER + "\","
        + "\"uri\":\"http://alice:s3cret-pw@hub.example:8181/store?token=abc123secret&region=eu-1\",\"lastSync\":"
        + System.currentTimeMillis() + ",\"clockOffset\":12}", Map.of(), ADMIN_TOKEN);
    assertThat(peer.statusCode()).as(peer.body()).isEqualTo(204);
  }

  private void put(String key, String body) throws Exception {
    HttpResponse<String> r = http("PUT", "/store/v1/records/" + key, body, Map.of(), ADMIN_TOKEN);
    assertThat(r.statusCode()).as(key + ": " + r.body()).isEqualTo(201);
  }

  /** As views.js writes a time. */
  private static String when(long ms) {
    return Instant.ofEpochMilli(ms).truncatedTo(ChronoUnit.SECONDS).toString().replace('T', ' ');
  }

  private List<String> options(String id) {
    return new Select(browser.findElement(By.id(id))).getOptions().stream().map(WebElement::getText).toList();
  }

  private WebElement row(String key) {
    return browser.findElement(By.cssSelector("#store-table tr[data-key='" + key + "']"));
  }

  private void noSidewaysScroll(String state) {
    assertThat((Boolean) js("return document.documentElement.scrollWidth <= window.innerWidth"))
        .as("the page reflows without sideways scrolling: " + state).isTrue();
  }

  @Test
  @Order(1)
  void anAdminSeesLiveRecordsThenTheTombstoneWithItsDeleterAndThePeersMasked() throws Exception {
    signIn(ADMIN_TOKEN);
    tabTo("#tab-store").sendKeys(Keys.ENTER);
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#store-table[data-mode=live]")));
    // "*" in store.read: the namespaces are discovered from the store itself
    assertThat(options("store-namespace")).containsExactly("notes", "team");
    assertThat(options("store-collection")).containsExactly("2026", "archive", "bulk");
    assertThat(browser.findElement(By.cssSelector("label[for=store-namespace]")).getText()).isEqualTo("Namespace");
    // consumer view: live records only
    assertThat(browser.findElements(By.cssSelector("#store-table tbody tr"))).hasSize(2);
    assertThat(browser.findElements(By.cssSelector("#store-table tr[data-key='notes/2026/gone']"))).isEmpty();
    assertThat(row("notes/2026/todo").findElement(By.cssSelector("td.value")).getText()).isEqualTo("\"buy milk\\n\" (9 bytes)");
    String long_ = row("notes/2026/done").findElement(By.cssSelector("td.value")).getText();
    assertThat(long_).startsWith("\"A long note: xxx").contains("…")
        .endsWith("(" + LONG.getBytes(StandardCharsets.UTF_8).length + " bytes)").doesNotContain("café");
    assertThat(row("notes/2026/todo").findElements(By.tagName("td")).get(4).getText()).isEqualTo("oncall");
    assertThat(browser.findElement(By.id("store-status")).getText()).startsWith("2 live records on page 1 of notes/2026");
    // peers, for a store admin, without the URI's secrets
    WebElement peer = waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#store-peers-table tr[data-peer='" + PEER + "']")));
    assertThat(peer.findElement(By.cssSelector("td.uri")).getText())
        .isEqualTo("http://***@hub.example:8181/store?token=***&region=eu-1");
    assertThat(browser.getPageSource()).doesNotContain("s3cret-pw", "abc123secret", "alice");
    shot("store-live-1280x800");
    axeClean("store, consumer view");
    // raw view, chosen with the keyboard: the radio group moves with the arrow keys
    tabTo("#store-mode-live").sendKeys(Keys.ARROW_RIGHT);
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#store-table[data-mode=raw]")));
    assertThat(browser.findElements(By.cssSelector("#store-table tbody tr"))).hasSize(3);
    WebElement gone = row("notes/2026/gone");
    assertThat(gone.getAttribute("data-kind")).isEqualTo("tombstone");
    assertThat(gone.findElement(By.cssSelector("td[data-deleted=yes]")).getText()).isEqualTo("by oncall at " + when(deletedAt));
    assertThat(gone.findElements(By.tagName("td")).get(2).getText()).isEqualTo(tombstoneRevision);
    assertThat(row("notes/2026/todo").findElement(By.cssSelector("td[data-deleted]")).getText()).isEqualTo("live");
    shot("store-raw-1280x800");
    axeClean("store, raw view");
    browser.manage().window().setSize(new Dimension(390, 800));
    js("document.getElementById('store-status').scrollIntoView()");
    shot("store-raw-390px");
    axeClean("store, raw view at 390 px");
    noSidewaysScroll("raw view at 390 px");
    browser.findElement(By.cssSelector("label[for=store-mode-live]")).click();
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#store-table[data-mode=live]")));
    js("document.getElementById('store-status').scrollIntoView()");
    shot("store-live-390px");
    axeClean("store, consumer view at 390 px");
    noSidewaysScroll("consumer view at 390 px");
    browser.manage().window().setSize(new Dimension(1280, 800));
    // paging: 50 records a page
    new Select(browser.findElement(By.id("store-collection"))).selectByVisibleText("bulk");
    waitFor().until(d -> d.findElements(By.cssSelector("#store-table tbody tr")).size() == 50);
    assertThat(browser.findElement(By.id("store-previous")).isEnabled()).isFalse();
    tabTo("#store-next").sendKeys(Keys.ENTER);
    waitFor().until(d -> d.findElements(By.cssSelector("#store-table tbody tr")).size() == 5);
    assertThat(row("notes/bulk/r054").isDisplayed()).isTrue();
    assertThat(browser.findElement(By.id("store-next")).isEnabled()).isFalse();
    assertThat(browser.findElement(By.id("store-status")).getText()).startsWith("5 live records on page 2 of notes/bulk");
    // no redraw by itself: a record written now shows after Reload
    put("notes/bulk/r055", "{\"body\":{\"text\":\"late\"}}");
    browser.findElement(By.id("store-reload")).sendKeys(Keys.ENTER);
    waitFor().until(d -> d.findElements(By.cssSelector("#store-table tr[data-key='notes/bulk/r055']")).size() == 1);
    assertThat(browser.findElements(By.cssSelector("#store-table tbody tr"))).hasSize(6);
  }

  @Test
  @Order(2)
  void aReaderWithoutStoreGrantsIsToldSoInWords() throws Exception {
    signIn(READER_TOKEN);
    browser.get(base() + "/ui#store");
    WebElement notice = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("store-no-grant")));
    assertThat(notice.getText()).startsWith("Signed in as viewer, whose token has no store.read grant");
    assertThat(browser.findElement(By.id("store-filter")).isDisplayed()).isFalse();
    assertThat(browser.findElement(By.id("store-peers")).getText()).isEmpty();
    shot("store-no-grant");
    axeClean("store, no store grant");
    // asking for a namespace anyway: the server's 403, in words
    WebElement name = browser.findElement(By.id("store-open-namespace"));
    name.sendKeys("notes", Keys.ENTER);
    WebElement error = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("store-error")));
    assertThat(error.getText()).isEqualTo("Cannot list namespace notes: this token may not (HTTP 403). The server says: "
        + "Principal 'viewer' has no store.read grant on store namespace 'notes'");
    assertThat(browser.findElements(By.id("store-table"))).isEmpty();
    shot("store-403");
    axeClean("store, 403");
  }

  @Test
  @Order(3)
  void aReaderOfOneNamespaceBrowsesItAndIsRefusedAnother() throws Exception {
    signIn(NOTES_TOKEN);
    browser.get(base() + "/ui#store");
    waitFor().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#store-table[data-mode=live]")));
    // no "*": the namespaces are the grant's, not the store's
    assertThat(options("store-namespace")).containsExactly("notes");
    assertThat(browser.findElements(By.cssSelector("#store-table tbody tr"))).hasSize(2);
    assertThat(browser.findElement(By.id("store-peers")).getText()).isEmpty();
    browser.findElement(By.id("store-open-namespace")).sendKeys("team", Keys.ENTER);
    WebElement error = waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id("store-error")));
    assertThat(error.getText()).contains("Cannot list namespace team: this token may not (HTTP 403)")
        .contains("Principal 'notes-reader' has no store.read grant on store namespace 'team'");
    assertThat(browser.getPageSource()).doesNotContain("not for notes readers");
  }
}
