package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chromium.HasCdp;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * Every view of the console at 400 % zoom (docs/design/0449-operator-console.md): the 1280×800
 * window at zoom 4 is a 320×200 CSS-pixel viewport, emulated through the DevTools protocol. Each
 * view reflows into it: the page never scrolls sideways (a table scrolls only inside its own
 * labelled, focusable region), and every tab stays reachable.
 */
class ConsoleZoomBrowserTest extends ConsoleBrowserBase {
  private static final List<String> VIEWS = List.of("overview", "jobs", "trash", "holds", "store");

  @Override
  void seed() throws Exception {
    try (RESTCatalog catalog = client(ADMIN_TOKEN)) {
      catalog.createNamespace(Namespace.of("sales"));
      Table t = catalog.createTable(TableIdentifier.of(Namespace.of("sales"), "orders_with_a_long_name_that_must_wrap"),
          PurgeTables.SCHEMA);
      PurgeTables.append(t, 0, 10, "a");
    }
    HttpResponse<String> drop = http("DELETE",
        "/iceberg/v1/main/namespaces/sales/tables/orders_with_a_long_name_that_must_wrap?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true"), ADMIN_TOKEN);
    assertThat(drop.statusCode()).as(drop.body()).isEqualTo(204);
  }

  @Test
  void everyViewReflowsAt400PercentZoom() throws Exception {
    signIn(ADMIN_TOKEN);
    ((HasCdp) browser).executeCdpCommand("Emulation.setDeviceMetricsOverride",
        Map.of("width", 320, "height", 200, "deviceScaleFactor", 4, "mobile", false));
    for (String view : VIEWS) {
      browser.get(base() + "/ui#" + view);
      waitFor().until(ExpectedConditions.visibilityOfElementLocated(By.id(view + "-title")));
      // drawn: the section shows more than its heading
      waitFor().withMessage(view + " drawn").until(d -> !d.findElement(By.id(view)).getText()
          .equals(d.findElement(By.id(view + "-title")).getText()));
      assertThat(js("return innerWidth")).as("emulated viewport").isEqualTo(320L);
      @SuppressWarnings("unchecked")
      List<String> wide = (List<String>) js("return [...document.querySelectorAll('body *')]"
          + ".filter(e => e.offsetParent !== null && !e.closest('.scroll') && e.getBoundingClientRect().right > innerWidth + 1)"
          + ".map(e => e.tagName + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : '') + ' ' + Math.round(e.getBoundingClientRect().right))");
      assertThat(wide).as(view + ": elements running past the right edge at 400 %").isEmpty();
      // the document is never wider than the viewport: nothing needs a sideways scroll but a table's own region
      assertThat((Long) js("return document.documentElement.scrollWidth")).as(view + " page width at 400 %").isLessThanOrEqualTo(320L);
      for (WebElement tab : browser.findElements(By.cssSelector("#tabs a"))) {
        assertThat(tab.getRect().getX() + tab.getRect().getWidth()).as(tab.getText() + " tab inside the viewport").isLessThanOrEqualTo(321);
      }
      shot(view + "-400-percent");
    }
  }
}
