package dev.lethe.catalog.softdelete;

import java.util.List;
import java.util.Objects;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;

/**
 * Whether a retained table can still be read, so that undrop never restores a hollow table
 * (docs/design/0301-hollow-restore.md): a client that deletes the table's files itself (Spark's
 * {@code DROP TABLE … PURGE} without {@code rest-catalog-purge=true}) leaves a deletion record whose
 * files are gone.
 *
 * <p>The rule is {@link #check}: the current metadata file, the current snapshot's manifest list and
 * its manifests (at most {@link #MAX_MANIFESTS}) must exist; data and delete files are not checked.
 * Existence only: a file is never opened beyond what Iceberg needs to name the next files. The I/O
 * is behind {@link Probe}, so the rule is tested without files and the listing can run the cheap
 * {@link #checkMetadataFile} instead.
 */
public final class ReadableFiles {
  /** Manifests checked at most; a table with more is checked on its first ones only (bounded latency). */
  public static final int MAX_MANIFESTS = 1000;

  private ReadableFiles() {}

  /** The file reads the check needs. */
  public interface Probe {
    /** Whether the file exists. */
    boolean exists(String location);

    /** Parses a metadata file that exists. */
    TableMetadata metadata(String metadataLocation);

    /** The manifests a snapshot's manifest list names (the list exists). */
    List<String> manifests(Snapshot snapshot);
  }

  /** What the check found. */
  public sealed interface Verdict permits Readable, Hollow, Unreadable {}

  /** Every file checked exists. */
  public record Readable(int filesChecked) implements Verdict {}

  /**
   * A file the table needs to be read is missing (or, for the manifest list, cannot be parsed).
   *
   * @param what which file, e.g. {@code current metadata file}
   * @param location its location
   */
  public record Hollow(String what, String location) implements Verdict {
    /** The reason shown in the deleted-table listing, which never carries a location. */
    public String reason() {
      return "its " + what + " is missing: " + CAUSE;
    }

    /** The reason an undrop is refused with (409), naming the missing file. */
    public String detail() {
      return "its " + what + " " + location + " is missing: " + CAUSE;
    }

    private static final String CAUSE = "the table's files were deleted outside the catalog"
        + " (for example by a Spark DROP TABLE ... PURGE without rest-catalog-purge=true)";
  }

  /**
   * The current metadata file exists and cannot be parsed (not JSON, truncated, empty, not metadata):
   * the server's storage failed, the table's files were not deleted by a client, so this is not
   * {@link Hollow} (docs/design/0431-a-spoiled-metadata-file-is-named-on-every-route.md).
   *
   * @param location the metadata file, never null
   * @param cause the parse failure, never null
   */
  public record Unreadable(String location, RuntimeException cause) implements Verdict {}

  /** The listing's check: the current metadata file only (one existence test per entry). */
  public static Verdict checkMetadataFile(String metadataLocation, Probe probe) {
    Objects.requireNonNull(metadataLocation, "metadataLocation");
    return probe.exists(metadataLocation) ? new Readable(1) : new Hollow("current metadata file", metadataLocation);
  }

  /** The undrop's check: metadata file, current manifest list, its manifests (bounded). */
  public static Verdict check(String metadataLocation, Probe probe) {
    Verdict first = checkMetadataFile(metadataLocation, probe);
    if (first instanceof Hollow) {
      return first;
    }
    TableMetadata metadata;
    try {
      metadata = probe.metadata(metadataLocation);
    } catch (RuntimeException unreadable) {
      return new Unreadable(metadataLocation, unreadable);
    }
    Snapshot current = metadata.currentSnapshot();
    if (current == null || current.manifestListLocation() == null) {
      return new Readable(1); // no snapshot (or a v1 snapshot with inline manifests): the metadata file suffices
    }
    String manifestList = current.manifestListLocation();
    if (!probe.exists(manifestList)) {
      return new Hollow("manifest list of snapshot " + current.snapshotId(), manifestList);
    }
    List<String> manifests;
    try {
      manifests = probe.manifests(current);
    } catch (RuntimeException unreadable) {
      return new Hollow("manifest list of snapshot " + current.snapshotId() + " (unreadable: "
          + unreadable.getMessage() + ")", manifestList);
    }
    int checked = 2;
    for (String manifest : manifests.subList(0, Math.min(manifests.size(), MAX_MANIFESTS))) {
      if (!probe.exists(manifest)) {
        return new Hollow("manifest of snapshot " + current.snapshotId(), manifest);
      }
      checked++;
    }
    return new Readable(checked);
  }

  /** The probe over a table's FileIO. */
  public static Probe probe(FileIO io) {
    return new Probe() {
      @Override
      public boolean exists(String location) {
        return io.newInputFile(location).exists();
      }

      @Override
      public TableMetadata metadata(String metadataLocation) {
        return TableMetadataParser.read(io, metadataLocation);
      }

      @Override
      public List<String> manifests(Snapshot snapshot) {
        return snapshot.allManifests(io).stream().map(ManifestFile::path).toList();
      }
    };
  }
}
