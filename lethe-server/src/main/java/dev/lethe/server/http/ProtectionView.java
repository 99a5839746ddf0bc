package dev.lethe.server.http;

import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.ProtectionDao;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The public JSON shape of a drop protection (docs/design/0441-drop-protection.md): {@code kind}
 * ({@code table|view|namespace}), {@code namespace} (array of levels), {@code name} (null for a
 * namespace), {@code setBy}, {@code setAt} (ms since epoch), {@code reason}.
 */
public final class ProtectionView {
  private ProtectionView() {}

  /** The protection as a JSON object. */
  public static Map<String, Object> of(ProtectionDao.Protection p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", p.kind().name().toLowerCase());
    m.put("namespace", Arrays.asList(p.namespace().split(NamespaceNames.SEPARATOR, -1)));
    m.put("name", p.kind() == ProtectionDao.Kind.NAMESPACE ? null : p.name());
    m.put("setBy", p.setBy());
    m.put("setAt", p.setAt());
    m.put("reason", p.reason());
    return m;
  }
}
