package dev.lethe.catalog.purge;

import static dev.lethe.catalog.purge.PurgeFixture.id;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.softdelete.PurgePreviews;
import java.nio.file.Path;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * By hand (docs/design/0442-purge-preview.md): a preview of a table with {@code
 * -Dlethe.test.preview.files=N} data files (default 100 000; entries only, the files are not
 * written: below {@link PurgePreview#NAMED_LIMIT} they are reported already gone, above it counted
 * as named) in a JVM started with a small heap, e.g. {@code -DargLine=-Xmx64m
 * -Dlethe.test.preview.heap=true}. Prints the heap used after the preview.
 */
@EnabledIfSystemProperty(named = "lethe.test.preview.heap", matches = "true")
class PurgePreviewHeapTest {
  @TempDir Path tmp;
  private PurgeFixture f;

  @AfterEach
  void close() throws Exception {
    if (f != null) {
      f.close();
    }
  }

  @Test
  void aPreviewOfManyFilesFitsInASmallHeap() throws Exception {
    int files = Integer.getInteger("lethe.test.preview.files", 100_000);
    f = new PurgeFixture("h2", tmp);
    Table table = f.catalog.createTable(id("big"), ParquetTables.SCHEMA, ParquetTables.SPEC);
    int perCommit = 10_000;
    for (int c = 0; c < files; c += perCommit) {
      AppendFiles append = table.newFastAppend();
      for (int i = c; i < Math.min(files, c + perCommit); i++) {
        append.appendFile(DataFiles.builder(table.spec()).withPath(table.location() + "/data/category=a/f-" + i
            + ".parquet").withPartitionPath("category=a").withFileSizeInBytes(100).withRecordCount(1).build());
      }
      append.commit();
    }
    Runtime rt = Runtime.getRuntime();
    System.gc();
    long before = rt.totalMemory() - rt.freeMemory();
    PurgePreview.Report r = new PurgePreviews(f.db, new FileIOFactory()).preview(f.row, id("big"), 20)
        .orElseThrow().report();
    long after = rt.totalMemory() - rt.freeMemory();
    System.out.printf("PurgePreviewHeapTest files=%d maxHeap=%dMiB usedBefore=%dMiB usedAfter=%dMiB exact=%s%n",
        files, rt.maxMemory() >> 20, before >> 20, after >> 20, r.exact());
    if (files > PurgePreview.NAMED_LIMIT) {
      // past the limit the entries are counted as named, with Iceberg's sizes (bytes per kind)
      assertThat(r.exact()).isFalse();
      assertThat(r.wouldDelete().get(PurgePhase.DATA_AND_DELETE_FILES).files()).isEqualTo(files);
      assertThat(r.wouldDelete().get(PurgePhase.DATA_AND_DELETE_FILES).bytes()).isEqualTo(100L * files);
      assertThat(r.byKind().get(PurgePreview.Kind.DATA_FILES).bytes()).isEqualTo(100L * files);
    } else {
      // told against the listing: the entries' files were never written, so they are already gone
      assertThat(r.missing().files()).isEqualTo(files);
    }
  }
}
