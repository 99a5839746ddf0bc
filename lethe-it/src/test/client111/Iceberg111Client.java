import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.IcebergBuild;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * Run by Iceberg111ClientTest in a child JVM whose class path holds only iceberg-java 1.11 and the
 * libraries it declares (source-file mode: {@code java -cp <jars> Iceberg111Client.java uri mode}).
 *
 * <p>Mode {@code create}: creates the namespaces {@code [my ns]}, {@code [a+b]}, {@code [a+b, c d]}
 * and one table in each, then lists and loads them. Mode {@code drop}: drops the tables, then the
 * namespaces, and lists again. Every observation is printed to stdout as one {@code key=value}
 * line (modes {@code names-create} and {@code names-drop}: see {@link #names}); any failing call
 * ends the process with exit code 1 and its stack trace on stderr.
 */
public class Iceberg111Client {
  static final List<Namespace> NAMESPACES = List.of(
      Namespace.of("my ns"), Namespace.of("a+b"), Namespace.of("a+b", "c d"));
  static final List<TableIdentifier> TABLES = List.of(
      TableIdentifier.of(Namespace.of("my ns"), "my table"),
      TableIdentifier.of(Namespace.of("a+b"), "x+y z"),
      TableIdentifier.of(Namespace.of("a+b", "c d"), "t+1 2"));

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    String mode = args[1];
    if (mode.startsWith("names-")) {
      names(uri, mode.equals("names-drop"), Path.of(args[2]));
      return;
    }
    try (RESTCatalog catalog = new RESTCatalog()) {
      // a mutable map: 1.11 asks a property map for null keys, which Map.of refuses
      catalog.initialize("lethe111", new HashMap<>(Map.of("uri", uri, "warehouse", "main",
          "io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO")));
      System.out.println("client=" + IcebergBuild.version());
      if (mode.equals("create")) {
        for (Namespace ns : NAMESPACES) {
          catalog.createNamespace(ns, new HashMap<>(Map.of("owner", String.join("/", ns.levels()))));
        }
        for (TableIdentifier id : TABLES) {
          catalog.createTable(id, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
        }
        for (Namespace ns : NAMESPACES) {
          System.out.println("exists " + show(ns) + "=" + catalog.namespaceExists(ns));
          System.out.println("owner " + show(ns) + "=" + catalog.loadNamespaceMetadata(ns).get("owner"));
        }
        for (TableIdentifier id : TABLES) {
          Table t = catalog.loadTable(id);
          System.out.println("load " + show(id) + "=" + t.schema().columns().get(0).name());
        }
      } else {
        for (TableIdentifier id : TABLES) {
          System.out.println("drop " + show(id) + "=" + catalog.dropTable(id));
        }
        for (int i = NAMESPACES.size() - 1; i >= 0; i--) {
          System.out.println("drop " + show(NAMESPACES.get(i)) + "=" + catalog.dropNamespace(NAMESPACES.get(i)));
        }
      }
      System.out.println("namespaces=" + catalog.listNamespaces().stream().map(Iceberg111Client::show).sorted().toList());
      if (mode.equals("create")) {
        System.out.println("namespaces " + show(Namespace.of("a+b")) + "="
            + catalog.listNamespaces(Namespace.of("a+b")).stream().map(Iceberg111Client::show).toList());
        for (Namespace ns : NAMESPACES) {
          System.out.println("tables " + show(ns) + "="
              + catalog.listTables(ns).stream().map(Iceberg111Client::show).toList());
        }
      }
    }
  }

  /**
   * Modes {@code names-create} and {@code names-drop}: the file holds a JSON array of
   * {@code [level, child level, table]} triples. {@code names-create} creates, for each, namespace
   * {@code [level]}, namespace {@code [level, child level]} and table {@code table} in each, loads
   * both tables, then prints one JSON line {@code {"namespaces":[[levels…]…],"tables":[[levels…,
   * name]…]}} of everything the listings show (top-level namespaces, their children, the tables of
   * each). {@code names-drop} drops them all in reverse and prints {@code left=} and the top-level
   * listing.
   */
  static void names(String uri, boolean drop, Path file) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<List<String>> triples = json.readValue(file.toFile(), new TypeReference<List<List<String>>>() {});
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.initialize("lethe111", new HashMap<>(Map.of("uri", uri, "warehouse", "main",
          "io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO")));
      Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
      if (drop) {
        for (int i = triples.size() - 1; i >= 0; i--) {
          List<String> t = triples.get(i);
          Namespace top = Namespace.of(t.get(0));
          Namespace child = Namespace.of(t.get(0), t.get(1));
          if (!catalog.dropTable(TableIdentifier.of(child, t.get(2))) || !catalog.dropNamespace(child)
              || !catalog.dropTable(TableIdentifier.of(top, t.get(2))) || !catalog.dropNamespace(top)) {
            throw new IllegalStateException("a drop returned false for " + t);
          }
        }
        System.out.println("left=" + catalog.listNamespaces().stream().map(Iceberg111Client::show).toList());
        return;
      }
      for (List<String> t : triples) {
        Namespace top = Namespace.of(t.get(0));
        Namespace child = Namespace.of(t.get(0), t.get(1));
        catalog.createNamespace(top);
        catalog.createNamespace(child);
        for (Namespace ns : List.of(top, child)) {
          TableIdentifier id = TableIdentifier.of(ns, t.get(2));
          catalog.createTable(id, schema);
          catalog.loadTable(id);
        }
      }
      List<List<String>> namespaces = new ArrayList<>();
      List<List<String>> tables = new ArrayList<>();
      for (Namespace top : catalog.listNamespaces()) {
        List<Namespace> all = new ArrayList<>(List.of(top));
        all.addAll(catalog.listNamespaces(top));
        for (Namespace ns : all) {
          namespaces.add(List.of(ns.levels()));
          for (TableIdentifier id : catalog.listTables(ns)) {
            List<String> row = new ArrayList<>(List.of(id.namespace().levels()));
            row.add(id.name());
            tables.add(row);
          }
        }
      }
      // \\uXXXX escapes: the child's stdout charset may not be UTF-8
      System.out.println(json.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII)
          .writeValueAsString(Map.of("namespaces", namespaces, "tables", tables)));
    }
  }

  /** A namespace as its levels, e.g. {@code [a+b, c d]}: unambiguous, unlike {@code Namespace.toString}. */
  static String show(Namespace ns) {
    return Arrays.toString(ns.levels());
  }

  static String show(TableIdentifier id) {
    return show(id.namespace()) + "." + id.name();
  }
}
