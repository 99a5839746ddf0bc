package dev.lethe.server.management;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.catalog.iceberg.WellFormedText;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * What the hold and protection routes share: a table, view or namespace named by kind, namespace
 * levels and name (the object need not exist), in a PUT body or a DELETE's query. Names are
 * checked as an entry's names are (docs/design/0400-strict-request-input.md), so a name no entry
 * can have is a 400, never stored. Messages start with {@code "Invalid <noun>"}.
 */
final class NamedTargets {
  private NamedTargets() {}

  /**
   * The kind named by {@code raw}, case-insensitively.
   *
   * @param expected the kinds in words, for the message ("table or namespace")
   * @throws IllegalArgumentException (400) null or not one of {@code kinds}
   */
  static <K extends Enum<K>> K kind(String raw, K[] kinds, String noun, String expected) {
    if (raw != null) {
      for (K k : kinds) {
        if (k.name().equalsIgnoreCase(raw)) {
          return k;
        }
      }
    }
    throw new IllegalArgumentException("Invalid " + noun + " kind: expected " + expected + ", got " + raw);
  }

  /**
   * The body's {@code namespace}: a non-empty array of non-empty strings that a namespace can hold.
   *
   * @return the levels joined by {@link NamespaceNames#SEPARATOR}
   */
  static String namespace(JsonNode body, String noun) {
    JsonNode ns = body.get("namespace");
    if (ns == null || !ns.isArray() || ns.isEmpty()) {
      throw new IllegalArgumentException("Invalid " + noun + ": namespace must be a non-empty array of strings");
    }
    List<String> levels = new ArrayList<>();
    for (JsonNode level : ns) {
      if (!level.isTextual() || level.asText().isEmpty()) {
        throw new IllegalArgumentException("Invalid " + noun + ": namespace must be a non-empty array of strings");
      }
      levels.add(level.asText());
    }
    EntityNames.checkNamespace(Namespace.of(levels.toArray(new String[0])));
    return String.join(NamespaceNames.SEPARATOR, levels);
  }

  /** Checks the name of a table or view ({@code entity} "table" or "view"); "" and null pass. */
  static void checkName(String entity, String name) {
    if (name != null && !name.isEmpty()) {
      EntityNames.check(entity, name);
    }
  }

  /** Checks a reason (null passes): well-formed text without U+0000. */
  static void checkReason(String reason, String noun) {
    if (reason != null) {
      WellFormedText.check("reason", reason);
      if (reason.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("Invalid " + noun + ": reason contains U+0000");
      }
    }
  }

  /**
   * The {@code namespace} query parameter of a DELETE, in any spelling {@link
   * CleanupRoutes#parseNamespace} reads.
   *
   * @return the levels joined by {@link NamespaceNames#SEPARATOR}
   */
  static String queryNamespace(Context ctx, String noun) {
    String param = ctx.queryParam("namespace");
    if (param == null || param.isEmpty()) {
      throw new IllegalArgumentException("Invalid " + noun + ": the namespace parameter is required");
    }
    return NamespaceNames.encode(CleanupRoutes.parseNamespace(param));
  }

  /** 404: no {@code noun} on the named object. */
  static NotFoundException none(String noun, Enum<?> kind, Context ctx, String name) {
    return new NotFoundException("No %s on %s %s%s", noun, kind.name().toLowerCase(Locale.ROOT),
        ctx.queryParam("namespace"), name == null || name.isEmpty() ? "" : "." + name);
  }
}
