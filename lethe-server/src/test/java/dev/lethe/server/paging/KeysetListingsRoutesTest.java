package dev.lethe.server.paging;

import static dev.lethe.server.paging.PagingServer.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.paging.PagingServer.Listing;
import dev.lethe.server.paging.PagingServer.Page;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every catalog listing pages by key (docs/design/0403-keyset-catalog-listings.md), over real HTTP
 * on H2, PostgreSQL and MariaDB: pages at every boundary concatenate to the whole listing, the last
 * page carries no token, an entry dropped or created behind the cursor neither shifts nor repeats
 * the rest, and a token the server never issued for that listing is 400 naming {@code pageToken}.
 */
class KeysetListingsRoutesTest {
  private static final List<String> FIVE = List.of("e0", "e1", "e2", "e3", "e4");

  @TempDir Path dir;
  private PagingServer s;

  @AfterEach
  void stop() throws Exception {
    if (s != null) {
      s.close();
    }
  }

  /** Five entries in each listing: top-level and nested namespaces, tables, views, deleted tables, cleanup jobs. */
  private List<Listing> seedFive(String backend) throws Exception {
    s = new PagingServer(backend, dir);
    for (String ns : List.of("db", "vw", "gone", "jobs")) {
      assertThat(s.createNamespace(ns)).isEqualTo(200);
    }
    for (String e : FIVE) {
      assertThat(s.createNamespace("db", e)).isEqualTo(200);
      assertThat(s.createTable("db", e)).isEqualTo(200);
      assertThat(s.createView("vw", e)).isEqualTo(200);
      assertThat(s.createTable("gone", e)).isEqualTo(200);
      assertThat(s.dropTable("gone", e)).isEqualTo(204);
      assertThat(s.createView("jobs", e)).isEqualTo(200);
      assertThat(s.dropViewAsync("jobs", e)).isEqualTo(204);
    }
    return List.of(PagingServer.namespaces("db"), PagingServer.tables("db"), PagingServer.views("vw"),
        PagingServer.deleted("gone"), PagingServer.cleanups(""));
  }

  private List<String> everything(Listing l) throws Exception {
    return s.page(l, 1000, null).keys();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void pagesAtEveryBoundaryConcatenateToTheWholeListingAndTheLastCarriesNoToken(String backend) throws Exception {
    for (Listing l : seedFive(backend)) {
      List<String> all = everything(l);
      assertThat(all).as(l.name()).hasSize(5);
      for (int size = 1; size <= 6; size++) {
        List<List<String>> pages = s.walk(l, size);
        // 5 entries in pages of 5 is one page, never a trailing empty one; of 6 also one
        assertThat(pages).as(l.name() + " size " + size).hasSize((5 + size - 1) / size);
        assertThat(pages.stream().flatMap(List::stream).toList()).as(l.name() + " size " + size).isEqualTo(all);
        for (int i = 0; i + 1 < pages.size(); i++) {
          assertThat(pages.get(i)).as(l.name() + " size " + size + " page " + i + " is full").hasSize(size);
        }
      }
    }
    // the namespace and Iceberg listings are by name; cleanup jobs newest first
    assertThat(everything(PagingServer.namespaces("db"))).isEqualTo(FIVE);
    assertThat(everything(PagingServer.tables("db"))).isEqualTo(FIVE);
    assertThat(everything(PagingServer.views("vw"))).isEqualTo(FIVE);
    assertThat(everything(PagingServer.deleted("gone"))).isEqualTo(FIVE);
    List<String> jobs = everything(PagingServer.cleanups(""));
    assertThat(jobs.stream().map(Long::valueOf).toList()).isSortedAccordingTo((a, b) -> Long.compare(b, a));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void entriesRemovedBehindTheCursorShiftNothing(String backend) throws Exception {
    seedFive(backend);
    // each case: first page of 2, then the first entry leaves the listing; the next page is e2, e3
    check(PagingServer.namespaces("db"), name -> drop(s.dropNamespace("db", name), 204));
    check(PagingServer.tables("db"), name -> drop(s.dropTable("db", name), 204));
    check(PagingServer.views("vw"), name -> drop(s.dropView("vw", name), 204));
    check(PagingServer.deleted("gone"), name -> drop(s.undrop("gone", name), 200));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void entriesCreatedBehindTheCursorRepeatNothing(String backend) throws Exception {
    seedFive(backend);
    assertThat(s.createNamespace("top")).isEqualTo(200);
    // a top-level walk in pages of 1: after "db", "a" appears behind the cursor; the rest follows once each
    Page page = s.page(PagingServer.namespaces(), 1, null);
    assertThat(page.keys()).containsExactly("db");
    assertThat(s.createNamespace("a")).isEqualTo(200);
    List<String> rest = new ArrayList<>();
    while (page.next() != null) {
      page = s.page(PagingServer.namespaces(), 1, page.next());
      rest.addAll(page.keys());
    }
    assertThat(rest).containsExactly("gone", "jobs", "top", "vw");
    // cleanup jobs, newest first: a new job is behind the cursor, the rest of the walk is unchanged
    Listing jobs = PagingServer.cleanups("");
    List<String> all = everything(jobs);
    Page p1 = s.page(jobs, 2, null);
    assertThat(s.createView("db", "late")).isEqualTo(200);
    assertThat(s.dropViewAsync("db", "late")).isEqualTo(204);
    Page p2 = s.page(jobs, 2, p1.next());
    assertThat(p2.keys()).isEqualTo(all.subList(2, 4));
    assertThat(s.page(jobs, 2, p2.next()).keys()).isEqualTo(all.subList(4, 5));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aTokenTheServerNeverIssuedForThatListingIs400NamingPageToken(String backend) throws Exception {
    List<Listing> listings = seedFive(backend);
    assertThat(s.createNamespace("other")).isEqualTo(200);
    List<String> tokens = new ArrayList<>();
    for (Listing l : listings) {
      tokens.add(s.page(l, 1, null).next());
    }
    for (int i = 0; i < listings.size(); i++) {
      Listing l = listings.get(i);
      String mine = tokens.get(i);
      List<String> bad = new ArrayList<>(List.of("garbage", "-5", "2", "0", "e0", mine + "x", mine.substring(1),
          mine.replace(".", ""), mine + "." + mine.substring(mine.indexOf('.') + 1), tamper(mine)));
      for (int j = 0; j < tokens.size(); j++) {
        if (j != i) {
          bad.add(tokens.get(j)); // another listing's token
        }
      }
      String before = String.valueOf(everything(l));
      for (String token : bad) {
        HttpResponse<String> r = s.send("GET", l.url(1, "x").replace("pageToken=x",
            "pageToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8)), null);
        assertThat(r.statusCode()).as(l.name() + " token " + token + ": " + r.body()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(message(r)).as(l.name()).contains("Invalid pageToken");
      }
      assertThat(String.valueOf(everything(l))).as("nothing changed").isEqualTo(before);
    }
    // the same listing over another scope: namespace, parent, filter
    assertThat(s.send("GET", PagingServer.tables("other").url(1, "x").replace("pageToken=x", "pageToken=" + tokens.get(1)), null)
        .statusCode()).isEqualTo(400);
    assertThat(s.send("GET", PagingServer.namespaces().url(1, "x").replace("pageToken=x", "pageToken=" + tokens.get(0)), null)
        .statusCode()).isEqualTo(400);
    assertThat(s.send("GET", PagingServer.cleanups("?state=PENDING").url(1, "x").replace("pageToken=x", "pageToken=" + tokens.get(4)),
        null).statusCode()).isEqualTo(400);
    // an empty token is the first page, as the Iceberg REST spec has it
    for (Listing l : listings) {
      Page first = s.page(l, 2, "");
      assertThat(first.keys()).isEqualTo(everything(l).subList(0, 2));
    }
  }

  /** The token with one character of its JSON part changed (still base64url, so it decodes). */
  private static String tamper(String token) {
    char[] c = token.toCharArray();
    int at = token.indexOf('.') / 2;
    c[at] = c[at] == 'A' ? 'B' : 'A';
    return new String(c);
  }

  private static String message(HttpResponse<String> r) throws Exception {
    JsonNode body = JSON.readTree(r.body());
    return body.has("error") ? body.get("error").get("message").asText() : body.get("message").asText();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theIcebergJavaClientWithAPageSizeWalksEveryIcebergListing(String backend) throws Exception {
    seedFive(backend);
    try (RESTCatalog client = new RESTCatalog()) {
      client.initialize("lethe", Map.of("uri", s.base() + "/iceberg", "warehouse", "main", "rest-page-size", "2",
          "io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO"));
      assertThat(client.listNamespaces(Namespace.of("db"))).extracting(n -> n.level(1)).isEqualTo(FIVE);
      assertThat(client.listNamespaces()).extracting(n -> n.level(0)).containsExactly("db", "gone", "jobs", "vw");
      assertThat(client.listTables(Namespace.of("db"))).extracting(TableIdentifier::name).isEqualTo(FIVE);
      assertThat(client.listViews(Namespace.of("vw"))).extracting(TableIdentifier::name).isEqualTo(FIVE);
    }
  }

  private interface Change {
    void apply(String name) throws Exception;
  }

  private static void drop(int status, int expected) {
    assertThat(status).isEqualTo(expected);
  }

  private void check(Listing l, Change removeFirst) throws Exception {
    Page first = s.page(l, 2, null);
    assertThat(first.keys()).as(l.name()).containsExactly("e0", "e1");
    removeFirst.apply(first.keys().get(0));
    Page second = s.page(l, 2, first.next());
    assertThat(second.keys()).as(l.name() + " after e0 left").containsExactly("e2", "e3");
    Page third = s.page(l, 2, second.next());
    assertThat(third.keys()).as(l.name()).containsExactly("e4");
    assertThat(third.next()).as(l.name()).isNull();
  }
}
