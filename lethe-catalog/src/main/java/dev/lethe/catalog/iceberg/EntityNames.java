package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.ColumnLimits;
import dev.lethe.catalog.entity.NamespaceNames;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Which names Lethe accepts for namespaces, tables and views: non-empty, at most 255 characters,
 * not {@code .} or {@code ..}, no {@code /}, no control characters and no unpaired UTF-16 surrogate;
 * a namespace's levels joined by U+001F fit its 512-character column ({@link ColumnLimits}). Names
 * become directories of default locations, so {@code .} and {@code ..} would put a table outside its
 * namespace directory (a name's directory is bounded to the file system's 255 bytes by {@link
 * DirectoryNames}). A bad name is an {@link IllegalArgumentException} (Iceberg REST: 400) raised
 * before anything is read or written (docs/design/0400-strict-request-input.md,
 * docs/design/0401-name-and-column-limits.md).
 */
public final class EntityNames {
  /** The longest accepted name, in characters. */
  public static final int MAX_LENGTH = ColumnLimits.ENTITY_NAME_CHARS;

  private EntityNames() {}

  /**
   * Checks one name.
   *
   * @param kind what is named, for the message ({@code "namespace"}, {@code "table"}, {@code "view"})
   * @throws IllegalArgumentException naming the problem
   */
  public static void check(String kind, String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("Invalid " + kind + " name: empty");
    }
    if (name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("Invalid " + kind + " name: '" + name + "' is a relative path segment");
    }
    if (name.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "Invalid " + kind + " name: longer than " + MAX_LENGTH + " characters");
    }
    WellFormedText.check(kind + " name", name);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/') {
        throw new IllegalArgumentException("Invalid " + kind + " name: contains '/': " + printable(name));
      }
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            "Invalid " + kind + " name: contains control character U+" + String.format("%04X", (int) c) + ": " + printable(name));
      }
    }
  }

  /**
   * Checks every level of a namespace; the empty namespace is rejected.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public static void checkNamespace(Namespace namespace) {
    if (namespace == null || namespace.isEmpty()) {
      throw new IllegalArgumentException("Invalid namespace name: empty");
    }
    for (String level : namespace.levels()) {
      check("namespace", level);
    }
    ColumnLimits.checkNamespaceName(NamespaceNames.encode(namespace));
  }

  /**
   * Checks a table or view identifier: its namespace and its name.
   *
   * @throws IllegalArgumentException naming the problem
   */
  public static void checkIdentifier(String kind, TableIdentifier identifier) {
    if (identifier == null) {
      throw new IllegalArgumentException("Invalid " + kind + " identifier: null");
    }
    checkNamespace(identifier.namespace());
    check(kind, identifier.name());
  }

  private static String printable(String name) {
    StringBuilder sb = new StringBuilder();
    for (char c : name.toCharArray()) {
      sb.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return sb.toString();
  }
}
