package dev.lethe.catalog.drop;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.entity.CatalogRow;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.entity.Protections;
import dev.lethe.catalog.jobs.OperatorEvent;
import dev.lethe.catalog.jobs.OperatorEvents;
import dev.lethe.catalog.jobs.PurgeEventListener;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An operator's control of drop protections (docs/design/0441-drop-protection.md): {@link
 * Protections} (in {@code entity/}, which may not know the event SPI of {@code jobs/}) with each
 * committed set and clear told to the listener as an {@link OperatorEvent}
 * (docs/design/0447-operator-events.md). The management routes call only this class. Thread-safe.
 */
public final class ProtectionControl {
  private final Protections protections;
  private final Clock clock;
  private final PurgeEventListener listener;

  /**
   * @param clock the clock protections are stamped with (and a clear's event)
   * @param listener told of each set and clear, after its commit
   */
  public ProtectionControl(CatalogDatabase database, Clock clock, PurgeEventListener listener) {
    this.protections = new Protections(database, clock);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** {@link Protections#list}. */
  public List<ProtectionDao.Protection> list(String catalogId) {
    return protections.list(catalogId);
  }

  /**
   * {@link Protections#protect}, then {@link OperatorEvent.ProtectionSet}.
   *
   * @throws IllegalArgumentException as {@link Protections#protect} (nothing changes, no event)
   */
  public Protections.Protected protect(CatalogRow catalog, ProtectionDao.Kind kind, String namespace, String name,
      String setBy, String reason) {
    Protections.Protected p = protections.protect(catalog.catalogId(), kind, namespace, name, setBy, reason);
    OperatorEvents.deliver(listener, new OperatorEvent.ProtectionSet(catalog.name(), p.protection()));
    return p;
  }

  /**
   * {@link Protections#unprotect}, then {@link OperatorEvent.ProtectionCleared} when there was one.
   *
   * @param clearedBy the admin principal's name
   * @return the protection as it was stored; empty when there was none (no event)
   */
  public Optional<ProtectionDao.Protection> unprotect(CatalogRow catalog, ProtectionDao.Kind kind, String namespace,
      String name, String clearedBy) {
    Optional<ProtectionDao.Protection> cleared = protections.unprotect(catalog.catalogId(), kind, namespace, name);
    cleared.ifPresent(p -> OperatorEvents.deliver(listener,
        new OperatorEvent.ProtectionCleared(catalog.name(), p, clearedBy, clock.millis())));
    return cleared;
  }
}
