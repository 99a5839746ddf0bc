package dev.lethe.catalog.purge;

import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.JobControl;
import dev.lethe.catalog.location.ClaimOwner;
import dev.lethe.catalog.location.LocationClaims;
import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.softdelete.JobEndings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Table;

/**
 * What the tests of docs/design/0446-a-failed-job-keeps-its-locations.md share: a {@link
 * PurgeFixture} with the operator's actions (retry, abandon, rescue) and a manifest spoiled behind
 * the catalog's back (so a purge fails) and repaired (so a retry can succeed).
 */
final class FailedJobLocations {
  final PurgeFixture f;
  final JobControl control;
  final JobEndings endings;

  FailedJobLocations(PurgeFixture f) {
    this.f = f;
    this.control = new JobControl(f.db, () -> {}, e -> {});
    this.endings = new JobEndings(f.db, new FileIOFactory(), () -> UUID.randomUUID().toString(), e -> {});
  }

  /** A manifest overwritten with garbage, with its original bytes to put back. */
  record Spoiled(Path manifest, byte[] original) {
    /** Puts the original bytes back: the purge can read the manifest again. */
    void repair() throws IOException {
      Files.write(manifest, original);
    }
  }

  /**
   * Overwrites the current snapshot's first manifest with text that is not Avro, and removes its
   * Hadoop {@code .crc} sidecar so that reading it fails on the content (a terminal failure), not
   * on the checksum.
   */
  static Spoiled spoil(Table table) throws IOException {
    Path manifest = PurgeFixture.path(table.currentSnapshot().allManifests(table.io()).get(0).path());
    byte[] original = Files.readAllBytes(manifest);
    Files.deleteIfExists(manifest.resolveSibling("." + manifest.getFileName() + ".crc"));
    Files.writeString(manifest, "not a manifest");
    return new Spoiled(manifest, original);
  }

  CleanupJob retry(long jobId) {
    return control.retry(f.row.catalogId(), "main", jobId, "root");
  }

  CleanupJob abandon(long jobId) {
    return endings.abandon(f.row, jobId, "root", "leftovers removed by hand");
  }

  CleanupJob rescue(long jobId) {
    return endings.rescue(f.row, jobId, "root", null);
  }

  List<LocationPath> claims(ClaimOwner owner) {
    return f.db.jdbi().withHandle(h -> LocationClaims.held(h, owner));
  }
}
