package dev.lethe.catalog.entity;

import java.util.Arrays;
import org.apache.iceberg.catalog.Namespace;

/** How a multi-level Iceberg namespace is stored in the {@code name} column. */
public final class NamespaceNames {
  /** Joins levels; control characters are not allowed in names, so it never occurs in a level. */
  public static final String SEPARATOR = "\u001f";

  private NamespaceNames() {}

  /** The stored name of a namespace; {@code ""} for the empty (root) namespace. */
  public static String encode(Namespace namespace) {
    return String.join(SEPARATOR, namespace.levels());
  }

  /** The stored name of a namespace's parent; {@code ""} for a top-level namespace. */
  public static String parentOf(Namespace namespace) {
    String[] levels = namespace.levels();
    return levels.length <= 1 ? "" : String.join(SEPARATOR, Arrays.copyOf(levels, levels.length - 1));
  }

  /** The namespace of a stored name. */
  public static Namespace decode(String name) {
    return name.isEmpty() ? Namespace.empty() : Namespace.of(name.split(SEPARATOR, -1));
  }
}
