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
 * line; any failing call ends the process with exit code 1 and its stack trace on stderr.
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

  /** A namespace as its levels, e.g. {@code [a+b, c d]}: unambiguous, unlike {@code Namespace.toString}. */
  static String show(Namespace ns) {
    return Arrays.toString(ns.levels());
  }

  static String show(TableIdentifier id) {
    return show(id.namespace()) + "." + id.name();
  }
}
