package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lethe.catalog.entity.NamespaceDao;
import dev.lethe.catalog.entity.NamespaceNames;
import dev.lethe.catalog.entity.NamespaceRow;
import dev.lethe.catalog.entity.ProtectedException;
import dev.lethe.catalog.entity.ProtectionDao;
import dev.lethe.catalog.entity.ProtectionDao.Kind;
import dev.lethe.catalog.entity.ProtectionDao.Protection;
import dev.lethe.catalog.entity.TableDao;
import dev.lethe.catalog.purge.ParquetTables;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A protect and a drop that overlap in time are ordered by their commits (docs/design/0441-drop-protection.md
 * "Race with a concurrent protect"): a drop whose check comes while a protect is uncommitted waits for it
 * and is refused once it commits; a protect that comes while a drop is uncommitted waits for the drop.
 * Each test holds one side's transaction open by hand, so the interleaving is the one named.
 */
class ProtectionRaceTest extends SoftDeleteFixture {
  private static final Duration HELD = Duration.ofMillis(400);

  private Protection protection() {
    return new Protection(Kind.TABLE, NamespaceNames.encode(ParquetTables.NS), "t", "ops-admin",
        System.currentTimeMillis(), "quarterly close");
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aDropDuringAnUncommittedProtectWaitsAndIsRefused(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    try (Handle protect = db.jdbi().open()) {
      protect.begin();
      new ProtectionDao(protect).put(row.catalogId(), protection());

      CompletableFuture<Boolean> drop = CompletableFuture.supplyAsync(() -> catalog.dropTable(id("t"), false));
      await().during(HELD).atMost(HELD.multipliedBy(3)).until(() -> !drop.isDone());
      protect.commit();

      await().atMost(Duration.ofSeconds(10)).until(drop::isDone);
      assertThat(drop).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class)
          .havingRootCause().isInstanceOf(ProtectedException.class);
    }
    assertThat(catalog.tableExists(id("t"))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aProtectDuringAnUncommittedDropWaitsForIt(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    try (Handle drop = db.jdbi().open()) {
      drop.begin();
      NamespaceRow ns = new NamespaceDao(drop).find(row.catalogId(), NamespaceNames.encode(ParquetTables.NS)).orElseThrow();
      assertThat(new TableDao(drop).delete(ns.namespaceId(), "t")).isEqualTo(1);

      CompletableFuture<Protection> protect = CompletableFuture.supplyAsync(
          () -> db.jdbi().inTransaction(h -> new ProtectionDao(h).put(row.catalogId(), protection())));
      await().during(HELD).atMost(HELD.multipliedBy(3)).until(() -> !protect.isDone());
      drop.commit();

      await().atMost(Duration.ofSeconds(10)).until(protect::isDone);
      assertThat(protect.join().setBy()).isEqualTo("ops-admin");
    }
    assertThat(catalog.tableExists(id("t"))).isFalse();
    java.util.List<Protection> stored = db.jdbi().withHandle(h -> new ProtectionDao(h).list(row.catalogId()));
    assertThat(stored).hasSize(1);
  }
}
