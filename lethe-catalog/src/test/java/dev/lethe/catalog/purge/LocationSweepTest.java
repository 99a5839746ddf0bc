package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.io.LocalFileIO;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rule 4's sweep on real directories: everything under the roots goes but the kept file, another
 * entry's claimed location is never entered, emptied directories go bottom-up, nothing above or
 * beside the root is touched, and a link is deleted, never its target.
 */
class LocationSweepTest {
  @TempDir Path tmp;

  private Path write(Path p) throws IOException {
    Files.createDirectories(p.getParent());
    return Files.writeString(p, p.getFileName().toString());
  }

  @Test
  void sweepDeletesWhatTheMetadataDidNotNameButNeverAnotherEntrysLocationOrAboveTheRoot() throws IOException {
    Path wh = tmp.resolve("wh");
    Path root = wh.resolve("t");
    Path metadata = write(root.resolve("metadata/v3.metadata.json"));
    write(root.resolve("metadata/.v3.metadata.json.crc"));
    write(root.resolve("data/category=a/00000-1.parquet"));
    write(root.resolve("data/category=a/.00000-1.parquet.crc"));
    write(root.resolve("metadata/snap-failed-commit.avro"));
    write(root.resolve("stray/deep/er/junk.txt"));
    Path nestedFile = write(root.resolve("nested/metadata/v1.metadata.json"));
    Path sibling = write(wh.resolve("t2/data/x.parquet"));
    Path above = write(wh.resolve("keep.txt"));
    Path target = write(tmp.resolve("outside/target.txt"));
    Files.createSymbolicLink(root.resolve("data/link"), target);
    PurgeScope scope = PurgeScope.of(TableRoots.of(root.toString(), Map.of()), List.of(LocationPath.parse(root.resolve("nested").toString())));

    LocationSweep.Result r = LocationSweep.sweep(new LocalFileIO(), scope, Set.of(LocationPath.parse(metadata.toString())), 2, () -> false);

    assertThat(r.deleted()).isEqualTo(6);
    assertThat(r.failed()).isZero();
    assertThat(r.remaining()).isEqualTo(1);
    assertThat(r.clean(1)).isTrue();
    assertThat(files(root)).containsExactlyInAnyOrder(metadata, nestedFile);
    assertThat(root.resolve("data")).doesNotExist();
    assertThat(root.resolve("stray")).doesNotExist();
    assertThat(sibling).exists();
    assertThat(above).exists();
    assertThat(target).exists();

    Files.delete(metadata);
    LocationSweep.removeEmptyParents(LocationPath.parse(metadata.toString()), scope);
    assertThat(root.resolve("metadata")).doesNotExist();
    assertThat(root).exists(); // still holds the other entry's location
    assertThat(nestedFile).exists();
  }

  @Test
  void anEmptiedRootIsRemovedButNotItsParentAndAProbeSeesNothingLeft() throws IOException {
    Path wh = tmp.resolve("wh");
    Path root = wh.resolve("t");
    Path metadata = write(root.resolve("metadata/v1.metadata.json"));
    write(root.resolve("data/.a.parquet.crc"));
    PurgeScope scope = PurgeScope.of(TableRoots.of("file://" + root, Map.of()));
    assertThat(LocationSweep.probe(new LocalFileIO(), scope).remaining()).isEqualTo(1);

    LocationSweep.sweep(new LocalFileIO(), scope, Set.of(LocationPath.parse(metadata.toString())), 10, () -> false);
    Files.delete(metadata);
    LocationSweep.removeEmptyParents(LocationPath.parse(metadata.toString()), scope);

    assertThat(root).doesNotExist();
    assertThat(wh).isDirectory();
    LocationSweep.Result probe = LocationSweep.probe(new LocalFileIO(), scope);
    assertThat(probe.remaining()).isZero();
    assertThat(probe.clean(0)).isTrue();
  }

  @Test
  void aStoppedSweepDeletesNoMore() throws IOException {
    Path root = tmp.resolve("t");
    for (int i = 0; i < 10; i++) {
      write(root.resolve("data/f" + i));
    }
    PurgeScope scope = PurgeScope.of(TableRoots.of(root.toString(), Map.of()));
    LocationSweep.Result r = LocationSweep.sweep(new LocalFileIO(), scope, Set.of(), 10, () -> true);
    assertThat(r.deleted()).isLessThanOrEqualTo(1);
    assertThat(files(root)).hasSizeGreaterThanOrEqualTo(9);
  }

  private static List<Path> files(Path dir) throws IOException {
    try (var s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }
}
