package dev.lethe.server.http;

import dev.lethe.catalog.entity.HoldDao;
import dev.lethe.catalog.entity.NamespaceNames;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The public JSON shape of a legal hold (docs/design/0444-legal-holds.md): {@code id}, {@code kind}
 * ({@code table|namespace}), {@code namespace} (array of levels), {@code name} (null for a
 * namespace), {@code placedBy}, {@code placedAt} (ms since epoch), {@code reason}, {@code expiresAt}
 * (ms since epoch or null), {@code releasedBy} and {@code releasedAt} (null while not released).
 */
public final class HoldView {
  private HoldView() {}

  /** The hold as a JSON object. */
  public static Map<String, Object> of(HoldDao.Hold h) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", h.holdId());
    m.put("kind", h.kind().name().toLowerCase());
    m.put("namespace", Arrays.asList(h.namespace().split(NamespaceNames.SEPARATOR, -1)));
    m.put("name", h.kind() == HoldDao.Kind.NAMESPACE ? null : h.name());
    m.put("placedBy", h.placedBy());
    m.put("placedAt", h.placedAt());
    m.put("reason", h.reason());
    m.put("expiresAt", h.expiresAt());
    m.put("releasedBy", h.releasedBy());
    m.put("releasedAt", h.releasedAt());
    return m;
  }
}
