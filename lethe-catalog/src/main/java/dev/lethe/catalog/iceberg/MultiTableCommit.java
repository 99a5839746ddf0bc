package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.location.AllowedLocations;
import dev.lethe.catalog.location.WriteConfinement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.RetryableValidationException;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.jdbi.v3.core.Jdbi;

/**
 * The atomic commit of changes to several tables ({@link LetheCatalog#commitTransaction}): every
 * table is checked and every new metadata file written first, then every metadata location is
 * swapped in one database transaction, row locks before location claims; if any swap loses its
 * race, none is applied.
 */
final class MultiTableCommit {
  private final Jdbi jdbi;
  private final String catalogId;
  private final Clock clock;
  private final AllowedLocations allowed;
  private final Function<TableIdentifier, LetheTableOperations> ops;

  /** @param ops the catalog's table operations of an identifier */
  MultiTableCommit(Jdbi jdbi, String catalogId, Clock clock, AllowedLocations allowed,
      Function<TableIdentifier, LetheTableOperations> ops) {
    this.jdbi = jdbi;
    this.catalogId = catalogId;
    this.clock = clock;
    this.allowed = allowed;
    this.ops = ops;
  }

  void commit(List<TableCommit> commits) {
    record Planned(LetheTableOperations ops, TableIdentifier id, TableMetadata base, TableMetadata updated) {}
    record Staged(TableIdentifier id, String expected, String next, LetheTableOperations.ClaimChange claims) {}
    List<Planned> planned = new ArrayList<>();
    for (TableCommit commit : commits) {
      LetheTableOperations ops = this.ops.apply(commit.identifier());
      TableMetadata base = ops.current();
      if (base == null) {
        throw new NoSuchTableException("Table does not exist: %s", commit.identifier());
      }
      for (UpdateRequirement requirement : commit.requirements()) {
        requirement.validate(base);
      }
      TableMetadata.Builder builder = TableMetadata.buildFrom(base);
      try {
        for (MetadataUpdate update : commit.updates()) {
          update.applyTo(builder);
        }
      } catch (RetryableValidationException e) {
        throw new CommitFailedException(e, "Validation failed, please retry: %s", e.getMessage());
      }
      TableMetadata updated = builder.build();
      if (!updated.changes().isEmpty()) {
        // rule 1 for every table before any metadata file is written
        WriteConfinement.checkTable(allowed, base, updated);
        planned.add(new Planned(ops, commit.identifier(), base, updated));
      }
    }
    List<Staged> staged = new ArrayList<>();
    for (Planned p : planned) {
      // docs/design/0004-a-table-owns-every-root-its-snapshots-use.md
      LetheTableOperations.ClaimChange claims = p.ops().planClaims(p.base(), p.updated(), "Cannot commit " + p.id());
      staged.add(new Staged(p.id(), p.base().metadataFileLocation(), p.ops().writeMetadata(p.base(), p.updated()), claims));
    }
    long now = clock.millis();
    jdbi.useTransaction(h -> {
      List<String> tableIds = new ArrayList<>();
      for (Staged s : staged) {
        tableIds.add(LetheTableOperations.swap(h, catalogId, s.id(), s.expected(), s.next(), now));
      }
      // claims after every row lock (lock order); roots that moved are claimed together
      for (int i = 0; i < staged.size(); i++) {
        LetheTableOperations.applyClaims(h, catalogId, tableIds.get(i), staged.get(i).claims(), now, "Cannot commit " + staged.get(i).id());
      }
    });
  }
}
