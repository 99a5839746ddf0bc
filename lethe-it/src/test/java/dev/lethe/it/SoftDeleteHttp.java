package dev.lethe.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** HTTP helpers of the soft deletion tests: the management routes of one schema, and table contents. */
final class SoftDeleteHttp {
  private final String base;
  private final String catalog;
  private final String api;

  /**
   * @param base server root, e.g. {@code http://127.0.0.1:9001}
   * @param schema the namespace as it appears in the path (levels joined by {@code %1F})
   */
  SoftDeleteHttp(String base, String schema) {
    this(base, "main", schema);
  }

  SoftDeleteHttp(String base, String catalog, String schema) {
    this.base = base;
    this.catalog = catalog;
    this.api = "/api/metalakes/default/catalogs/" + catalog + "/schemas/" + schema + "/tables";
  }

  HttpResponse<String> drop(String table, String query) throws IOException, InterruptedException {
    return AsyncPurgeHttp.send(base, "DELETE", api + "/" + table + query, null, Map.of());
  }

  /** The Iceberg REST drop, as any Iceberg client sends it. */
  HttpResponse<String> icebergDrop(String ns, String table, boolean purgeRequested) throws IOException, InterruptedException {
    return AsyncPurgeHttp.send(base, "DELETE", "/iceberg/v1/" + catalog + "/namespaces/" + ns + "/tables/" + table
        + (purgeRequested ? "?purgeRequested=true" : ""), null, Map.of());
  }

  HttpResponse<String> list() throws IOException, InterruptedException {
    return AsyncPurgeHttp.send(base, "GET", api + "?deleted=true", null, Map.of());
  }

  HttpResponse<String> load(String table) throws IOException, InterruptedException {
    return AsyncPurgeHttp.send(base, "GET", api + "/" + table + "?deleted=true", null, Map.of());
  }

  HttpResponse<String> undrop(String table) throws IOException, InterruptedException {
    return AsyncPurgeHttp.send(base, "POST", api + "/" + table + "/undrop", null, Map.of());
  }

  HttpResponse<String> purge(String table) throws IOException, InterruptedException {
    return AsyncPurgeHttp.send(base, "POST", api + "/" + table + "/purge", null, Map.of());
  }

  HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
    return AsyncPurgeHttp.send(base, method, path, null, Map.of());
  }

  /** The deleted tables of the schema; fails unless the listing answers 200. */
  JsonNode deleted() throws IOException, InterruptedException {
    HttpResponse<String> r = list();
    if (r.statusCode() != 200) {
      throw new AssertionError("list answered " + r.statusCode() + ": " + r.body());
    }
    return AsyncPurgeHttp.JSON.readTree(r.body()).get("deleted");
  }

  /** Whether the schema still holds a retained deletion of that table (load answers 200, not 404). */
  boolean retained(String table) {
    try {
      int status = load(table).statusCode();
      if (status != 200 && status != 404) {
        throw new AssertionError("load answered " + status);
      }
      return status == 200;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static JsonNode json(HttpResponse<String> r) throws IOException {
    return AsyncPurgeHttp.JSON.readTree(r.body());
  }

  /** Every row of a table as {@code id:category}, sorted; read with Iceberg's generic reader. */
  static List<String> rows(Table table) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.add(r.getField("id") + ":" + r.getField("category")));
    }
    rows.sort(null);
    return rows;
  }
}
