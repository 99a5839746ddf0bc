package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.jobs.NameReuseGuard;
import dev.lethe.catalog.softdelete.RetainedNameGuard;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jdbi.v3.core.Handle;

/**
 * Everything that holds a table or view name besides a live entry, checked before a create,
 * register or rename into it: a retained soft deletion ({@link RetainedNameGuard}) and an active
 * cleanup job ({@link NameReuseGuard}). Both refuse with a 409 that names the holder.
 */
final class NameGuards {
  private NameGuards() {}

  /** @throws org.apache.iceberg.exceptions.AlreadyExistsException naming what holds the name */
  static void check(Handle h, String catalogId, NamespaceRow ns, TableIdentifier id) {
    RetainedNameGuard.checkName(h, ns.namespaceId(), id);
    NameReuseGuard.check(h, catalogId, ns.name(), id);
  }
}
