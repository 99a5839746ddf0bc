package dev.lethe.catalog.purge;

import dev.lethe.catalog.entity.CatalogDatabase;
import dev.lethe.catalog.location.ClaimOverlap;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaimDao;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.TableMetadata;

/**
 * The purge's confinement step, shared by the purge job and the purge preview
 * (docs/design/0442-purge-preview.md): every root the table owns (its metadata's roots plus the
 * roots its location claims name, docs/design/0004-a-table-owns-every-root-its-snapshots-use.md),
 * minus what other entries claim inside them. Reads the catalog database only.
 */
public final class PurgeConfinement {
  private PurgeConfinement() {}

  /**
   * The scope a purge of the table is confined to.
   *
   * @param database the catalog database, not null
   * @param owner who holds the table's claims: the purge job, or the live or soft-deleted table
   *     ({@link ClaimOwner#table}) for a preview, not null
   * @param metadata the table's metadata, not null
   * @return the scope, never null
   * @throws dev.lethe.catalog.location.InvalidLocationException if the location or a write path
   *     does not parse
   */
  public static PurgeScope confine(CatalogDatabase database, ClaimOwner owner, TableMetadata metadata) {
    return scope(database, owner, ownedRoots(database, owner, TableRoots.of(metadata).roots()));
  }

  /** Every root the owner holds a claim on, with {@code current}, without nested ones. */
  static List<LocationPath> ownedRoots(CatalogDatabase database, ClaimOwner owner, List<LocationPath> current) {
    List<LocationPath> all = new ArrayList<>(current);
    database.background().withHandle(h -> new LocationClaimDao(h).findByOwner(owner)).forEach(c -> all.add(c.root()));
    return ClaimOverlap.minimal(all);
  }

  /** The roots, minus what entries other than {@code owner} claim inside them. */
  static PurgeScope scope(CatalogDatabase database, ClaimOwner owner, List<LocationPath> roots) {
    List<LocationPath> others = database.background().withHandle(h -> {
      List<LocationPath> all = new ArrayList<>();
      for (LocationPath root : roots) {
        for (LocationPath c : LocationClaims.claimedInside(h, root, owner)) {
          if (!all.contains(c)) {
            all.add(c);
          }
        }
      }
      return all;
    });
    return PurgeScope.of(roots, others);
  }
}
