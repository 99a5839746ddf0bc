package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.entity.ColumnLimits;
import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.FollowedRoots;
import dev.lethe.catalog.location.LocationHeldException;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import dev.lethe.catalog.location.WriteConfinement;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Table operations over the {@code lethe_table} row of one identifier: refresh reads the live row's
 * metadata location; commit writes the new metadata JSON and then swaps the location with a
 * compare-and-set (docs/design/0200-catalog-architecture.md "Entities and storage"), so a lost race is a {@link
 * CommitFailedException} (409) and never an overwrite; a table dropped meanwhile is a {@link
 * NoSuchTableException} (404).
 *
 * <p>Before any metadata file is written, the new metadata is checked against the catalog's
 * allowed locations ({@link WriteConfinement}; docs/design/0001-purge-confinement-and-ownership.md
 * §2): a refused location is a 400 and nothing is written. A registered metadata file must lie
 * inside the table's roots.
 *
 * <p>A create, a register and a commit that changes the table's roots make the table hold them
 * ({@link LocationClaims}, rule 2): refused with 409 naming the other entry when another entry that
 * can become live overlaps them, checked once before the metadata file is written and again under
 * the claims lock in the transaction that inserts or swaps the row.
 */
final class LetheTableOperations extends BaseMetastoreTableOperations {
  private final EntryOperations<TableRow> entry;
  private final Jdbi jdbi;
  private final String catalogId;
  private final TableIdentifier identifier;

  LetheTableOperations(EntryOperations<TableRow> entry) {
    this.entry = entry;
    this.jdbi = entry.jdbi;
    this.catalogId = entry.catalogId;
    this.identifier = entry.identifier;
  }

  @Override
  protected String tableName() {
    return identifier.toString();
  }

  @Override
  public FileIO io() {
    return entry.io;
  }

  @Override
  protected void doRefresh() {
    entry.refresh(currentMetadataLocation(), this::disableRefresh,
        location -> refreshFromMetadataLocation(location, MetadataReadRetry::shouldRetry, 20));
  }

  @Override
  protected void doCommit(TableMetadata base, TableMetadata metadata) {
    boolean newTable = base == null;
    boolean register = newTable && metadata.metadataFileLocation() != null;
    String refusal = register ? "Cannot register " + identifier
        : newTable ? "Cannot create table " + identifier : "Cannot commit " + identifier;
    // rule 1: refuse before anything is written (a location such as "file:/x?" must not overwrite /x)
    WriteConfinement.checkTable(entry.allowed, base, metadata);
    checkColumnLimits(register, metadata, refusal);
    if (!newTable) {
      ClaimChange change = planClaims(base, metadata, refusal);
      String newLocation = writeNewMetadataIfRequired(false, metadata);
      if (change != null && change.moved()) {
        // Iceberg writes it under the location or write.metadata.path, so inside a root; never point at one that is not
        TableRoots.of(metadata).checkMetadataFile(newLocation);
      }
      long now = entry.clock.millis();
      jdbi.useTransaction(h -> {
        String tableId = swap(h, catalogId, identifier, base.metadataFileLocation(), newLocation, now);
        applyClaims(h, catalogId, tableId, change, now, refusal);
      });
      return;
    }
    TableRoots tableRoots = TableRoots.of(metadata);
    if (register) {
      // the file must lie inside the roots of the table it describes
      WriteConfinement.checkRegisteredMetadataFile(tableRoots, metadata.metadataFileLocation());
    }
    List<LocationPath> roots = tableRoots.roots();
    // rule 2, early: no metadata file is written into a location another entry holds
    jdbi.useHandle(h -> LocationClaims.precheck(h, catalogId, null, roots, refusal));
    String newLocation = writeNewMetadataIfRequired(true, metadata);
    if (!register) {
      tableRoots.checkMetadataFile(newLocation);
    }
    long now = entry.clock.millis();
    entry.insert((ns, tableId) -> new TableRow(tableId, catalogId, ns.namespaceId(), identifier.name(), newLocation, null, 0L,
        null, now, now), roots, now, refusal);
  }

  /**
   * How a commit changes what the table holds, or null when it changes nothing: a move holds the new
   * roots and keeps the earlier ones its kept snapshots still use; a commit that drops snapshots or
   * statistics releases the earlier roots nothing uses any more
   * (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md). Decided before any file is
   * written; a move into another entry's location is refused here.
   *
   * @throws LocationHeldException if the commit moves the table into a location another entry holds
   */
  ClaimChange planClaims(TableMetadata base, TableMetadata metadata, String refusal) {
    boolean moved = WriteConfinement.rootsChanged(base, metadata);
    if (!moved && !FollowedRoots.mayRelease(base, metadata)) {
      return null;
    }
    Optional<ClaimOwner> owner = jdbi.withHandle(entry::liveOwner);
    if (owner.isEmpty()) {
      return null; // dropped meanwhile: the swap answers 404
    }
    List<LocationPath> current = TableRoots.of(metadata).roots();
    List<LocationPath> held = jdbi.withHandle(h -> LocationClaims.held(h, owner.get()));
    List<LocationPath> earlier = FollowedRoots.earlier(current, held);
    if (!moved && earlier.isEmpty()) {
      return null;
    }
    Set<LocationPath> inUse = earlier.isEmpty() ? Set.of() : FollowedRoots.stillReferenced(metadata, entry.io, current, earlier);
    if (moved) {
      try {
        jdbi.useHandle(h -> LocationClaims.precheck(h, catalogId, owner.get(), current, refusal));
      } catch (AlreadyExistsException e) {
        throw new LocationHeldException(e);
      }
    }
    return new ClaimChange(moved, FollowedRoots.held(current, inUse));
  }

  /**
   * Applies a {@link #planClaims} decision in the commit's transaction, after the swap.
   *
   * @param catalogId the catalog of the commit
   * @param change may be null (nothing changes)
   * @throws LocationHeldException if a move meets another entry's claim under the lock
   */
  static void applyClaims(Handle h, String catalogId, String tableId, ClaimChange change, long now, String refusal) {
    if (change == null) {
      return;
    }
    ClaimOwner owner = ClaimOwner.table(tableId);
    if (!change.moved()) {
      LocationClaims.narrow(h, owner, change.roots(), now);
      return;
    }
    try {
      LocationClaims.acquire(h, catalogId, owner, change.roots(), now, refusal);
    } catch (AlreadyExistsException e) {
      throw new LocationHeldException(e);
    }
  }

  /**
   * What a commit makes the table hold.
   *
   * @param moved whether the commit changes the table's location or a write path (new roots are
   *     claimed and checked against every other owner); else it only releases
   * @param roots every root the table holds after the commit, not empty
   */
  record ClaimChange(boolean moved, List<LocationPath> roots) {}

  /**
   * Column limits before any file is written (docs/design/0401-name-and-column-limits.md): the
   * metadata file this commit writes (its longest possible name) or registers must fit {@code
   * metadata_location}, and each root must fit a claim's {@code root}; otherwise the row could not be
   * stored and the file written first would be left behind.
   */
  private void checkColumnLimits(boolean register, TableMetadata metadata, String refusal) {
    ColumnLimits.checkMetadataLocation(refusal, register ? metadata.metadataFileLocation()
        : metadataFileLocation(metadata, LONGEST_METADATA_FILE_NAME));
    for (LocationPath root : TableRoots.of(metadata).roots()) {
      ColumnLimits.checkClaimRoot(refusal, root.toString());
    }
  }

  /** Longer than any {@code <version>-<uuid>[.gz].metadata.json} Iceberg names a metadata file. */
  static final String LONGEST_METADATA_FILE_NAME = "x".repeat(64);

  /**
   * The commit's compare-and-set inside the caller's transaction (it row-locks the table).
   *
   * @return the {@code table_id} of the swapped row
   * @throws NoSuchTableException if the table (or its namespace) is gone: a drop won the race
   * @throws CommitFailedException if another commit won
   */
  static String swap(Handle h, String catalogId, TableIdentifier identifier, String expected, String next, long now) {
    return EntryOperations.swap(h, EntryOperations.Kind.TABLE, "", catalogId, identifier, expected, next, now);
  }

  /**
   * Points the table's entry at a registered metadata file (checked by the caller), in one
   * transaction with the claims of its roots.
   *
   * @param expected the metadata location the entry must still hold
   */
  void repoint(String expected, String metadataFileLocation, TableRoots roots) {
    long now = entry.clock.millis();
    jdbi.useTransaction(h -> {
      String tableId = swap(h, catalogId, identifier, expected, metadataFileLocation, now);
      // rule 2: the entry now holds the registered table's roots, unless another entry holds them
      LocationClaims.acquire(h, catalogId, ClaimOwner.table(tableId), roots.roots(), now, "Cannot register " + identifier);
    });
  }

  /**
   * Checks and writes the metadata of a staged multi-table commit and returns its location.
   *
   * @throws dev.lethe.catalog.location.InvalidLocationException if the commit sets a refused location
   */
  String writeMetadata(TableMetadata base, TableMetadata metadata) {
    WriteConfinement.checkTable(entry.allowed, base, metadata);
    checkColumnLimits(false, metadata, "Cannot commit " + identifier);
    return writeNewMetadataIfRequired(false, metadata);
  }
}
