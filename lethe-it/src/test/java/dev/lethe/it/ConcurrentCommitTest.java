package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Two iceberg-java clients commit to one table at once through a real server process. */
class ConcurrentCommitTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final TableIdentifier ID = TableIdentifier.of(Namespace.of("race"), "t");
  private static ServerFixture server;

  @BeforeAll
  static void start() throws Exception {
    server = ServerFixture.start("concurrent", Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void twoClientsCommittingAtOnceGiveExactlyOneWinnerAnd409AndLoseNoCommit() throws Exception {
    try (RESTCatalog a = server.client(null); RESTCatalog b = server.client(null)) {
      a.createNamespace(ID.namespace());
      // no client-side retry, so the loser sees the server's 409 as CommitFailedException
      a.buildTable(ID, SCHEMA).withProperty("commit.retry.num-retries", "0").create();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      Set<String> committed = new HashSet<>();
      int rounds = 5;
      try {
        for (int round = 0; round < rounds; round++) {
          Table ta = a.loadTable(ID);
          Table tb = b.loadTable(ID);
          DataFile fa = file(ta, "a" + round);
          DataFile fb = file(tb, "b" + round);
          CyclicBarrier barrier = new CyclicBarrier(2);
          Future<Boolean> ra = pool.submit(append(ta, fa, barrier));
          Future<Boolean> rb = pool.submit(append(tb, fb, barrier));
          boolean aWon = ra.get(60, TimeUnit.SECONDS);
          boolean bWon = rb.get(60, TimeUnit.SECONDS);
          assertThat(aWon ^ bWon).as("exactly one winner in round %s", round).isTrue();
          committed.add((aWon ? fa : fb).location());
          // the loser refreshes and retries: nothing is lost
          Table loser = (aWon ? b : a).loadTable(ID);
          DataFile lost = aWon ? fb : fa;
          loser.newFastAppend().appendFile(lost).commit();
          committed.add(lost.location());
        }
      } finally {
        pool.shutdownNow();
      }
      Table table = a.loadTable(ID);
      Set<String> files = new HashSet<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(t -> files.add(t.file().location()));
      }
      assertThat(files).isEqualTo(committed);
      List<Long> snapshots = new ArrayList<>();
      table.snapshots().forEach(s -> snapshots.add(s.snapshotId()));
      assertThat(snapshots).hasSize(2 * rounds);
    }
  }

  @Test
  void racingCreatesOfOneTableGiveExactlyOneTableAndAlreadyExistsForTheRest() throws Exception {
    TableIdentifier id = TableIdentifier.of(Namespace.of("race_create"), "t");
    int racers = 6;
    List<RESTCatalog> clients = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(racers);
    try {
      for (int i = 0; i < racers; i++) {
        clients.add(server.client(null));
      }
      clients.get(0).createNamespace(id.namespace());
      CyclicBarrier barrier = new CyclicBarrier(racers);
      List<Future<String>> results = new ArrayList<>();
      for (RESTCatalog client : clients) {
        results.add(pool.submit(() -> {
          barrier.await(30, TimeUnit.SECONDS);
          try {
            client.createTable(id, SCHEMA);
            return "created";
          } catch (AlreadyExistsException e) {
            return "exists";
          }
        }));
      }
      List<String> outcomes = new ArrayList<>();
      for (Future<String> f : results) {
        outcomes.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(outcomes).containsOnlyOnce("created");
      assertThat(outcomes.stream().filter("exists"::equals).count()).isEqualTo(racers - 1);
      assertThat(clients.get(0).listTables(id.namespace())).containsExactly(id);
    } finally {
      pool.shutdownNow();
      for (RESTCatalog client : clients) {
        client.close();
      }
    }
  }

  private static Callable<Boolean> append(Table table, DataFile file, CyclicBarrier barrier) {
    return () -> {
      barrier.await(30, TimeUnit.SECONDS);
      try {
        table.newFastAppend().appendFile(file).commit();
        return true;
      } catch (CommitFailedException e) {
        return false;
      }
    };
  }

  private static DataFile file(Table table, String name) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(table.location() + "/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
  }
}
