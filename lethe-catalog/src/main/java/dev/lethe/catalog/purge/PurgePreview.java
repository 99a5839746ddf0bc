package dev.lethe.catalog.purge;

import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.location.LocationPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;

/**
 * What a purge of a table would delete and keep now, without deleting or claiming anything
 * (docs/design/0442-purge-preview.md). It walks the very {@link PurgePlan} the purge walks (same
 * {@link PurgePlanner}, same {@link PurgeScope}, same {@link PurgePlan#batches} confinement), so the
 * two cannot drift; it only counts. Memory is bounded by the plan (one entry per distinct
 * manifest, data files streamed one manifest at a time) plus {@code sample} paths per group.
 *
 * <p>The purge also sweeps its roots of files no metadata names ({@link LocationSweep}: Hadoop
 * {@code .crc} sidecars, files of failed commits); the preview lists the roots the same way (one
 * listing, streamed) and reports those as {@link Report#sweep()}. Telling a listed file from a named
 * one needs the named paths: they are remembered up to {@link #NAMED_LIMIT}; beyond that the sweep
 * is counted by difference (files listed minus named files inside the roots) without a sample, and
 * {@link Report#sweepExact()} is false. Sizes in bytes are not reported (the plan streams paths
 * only).
 */
public final class PurgePreview {
  /** Default number of sample paths kept per phase and per keep reason. */
  public static final int DEFAULT_SAMPLE = 20;

  /** Named paths remembered to tell the sweep's files exactly (about 200 bytes each). */
  public static final int NAMED_LIMIT = 50_000;

  /** Why a file the metadata names would be kept. */
  public enum KeepReason {
    /** Outside the table's location and write paths (rule 1). */
    OUTSIDE_ROOTS,
    /** Inside a location another live table, view or job claims. */
    CLAIMED_BY_ANOTHER_ENTRY,
    /** The path does not parse as a location. */
    INVALID_LOCATION,
    /** A symbolic link lies on the way to the local file. */
    SYMBOLIC_LINK,
    /** A manifest that cannot be read: the data and delete files it names are unknown and kept. */
    UNREADABLE_MANIFEST;

    static KeepReason of(PurgeScope.Keep keep) {
      String r = keep.reason();
      if (r.startsWith("outside")) {
        return OUTSIDE_ROOTS;
      }
      if (r.startsWith("inside")) {
        return CLAIMED_BY_ANOTHER_ENTRY;
      }
      if (r.startsWith("reached through the symbolic link")) {
        return SYMBOLIC_LINK;
      }
      return INVALID_LOCATION;
    }
  }

  /**
   * A count with the first paths.
   *
   * @param files files counted, at least 0
   * @param sample the first at most {@code sample} paths (for a kept file: "path (reason)"), never null
   */
  public record Tally(long files, List<String> sample) {}

  /**
   * The preview.
   *
   * @param metadataLocation the metadata file the plan was made from
   * @param roots the roots the purge is confined to
   * @param excluded locations inside the roots other entries claim (never touched)
   * @param gcEnabled the table's {@code gc.enabled}; false = data and delete files are kept
   * @param wouldDelete per phase in delete order (every phase present, possibly 0)
   * @param wouldKeep per reason, only reasons with at least one file
   * @param filesUnderRoots files found listing the sweep's roots now (outside excluded locations)
   * @param sweep files under the roots no metadata names, which the purge's sweep deletes; its
   *     sample is empty unless {@code sweepExact}
   * @param sweepExact true when the sweep's files were told one by one; false: counted by
   *     difference (more than {@link #NAMED_LIMIT} named files)
   * @param listable false when a root could not be listed (a FileIO without prefix listing): the
   *     sweep then deletes nothing it cannot see, and {@code sweep} is 0
   */
  public record Report(String metadataLocation, List<String> roots, List<String> excluded, boolean gcEnabled,
      Map<PurgePhase, Tally> wouldDelete, Map<KeepReason, Tally> wouldKeep, long filesUnderRoots, Tally sweep,
      boolean sweepExact, boolean listable) {
    /** Files the purge would delete: every phase plus the sweep. */
    public long totalWouldDelete() {
      return wouldDelete.values().stream().mapToLong(Tally::files).sum() + sweep.files();
    }
  }

  private PurgePreview() {}

  /**
   * Previews the purge of a table: plans it as the purge does and counts every batch.
   *
   * @param io the table's FileIO; only reads (manifest lists, manifests) happen, not null
   * @param metadata the table's metadata (live: current; soft-deleted: the retained one), not null
   * @param scope the purge's scope, see {@link PurgeConfinement}, not null
   * @param planner the purge's planner, not null
   * @param sample paths kept per phase and per reason, at least 0
   * @return the report, never null
   * @throws org.apache.iceberg.exceptions.NotFoundException if a manifest list does not exist (the
   *     purge would fail the same way)
   * @throws RuntimeException any other failure to read a manifest list
   */
  public static Report preview(FileIO io, TableMetadata metadata, PurgeScope scope, PurgePlanner planner,
      int sample) {
    Objects.requireNonNull(planner, "Cannot preview purge: planner is null");
    if (sample < 0) {
      throw new IllegalArgumentException("Cannot preview purge: sample must be >= 0, got " + sample);
    }
    PurgePlan plan = planner.plan(io, metadata, scope, null);
    Map<PurgePhase, Counter> deleting = new EnumMap<>(PurgePhase.class);
    for (PurgePhase phase : PurgePhase.values()) {
      deleting.put(phase, new Counter(sample));
    }
    Map<KeepReason, Counter> keeping = new EnumMap<>(KeepReason.class);
    PurgeScope swept = plan.sweepScope();
    Set<String> named = new HashSet<>();
    long namedInside = 0;
    boolean exact = true;
    for (PurgePhase phase : plan.phases()) {
      Counter counter = deleting.get(phase);
      try (CloseableIterator<List<String>> batches = plan.batches(phase,
          failure -> keeping.computeIfAbsent(KeepReason.UNREADABLE_MANIFEST, k -> new Counter(sample))
              .add(failure.manifestPath() + " (" + failure.reason().replace('\n', ' ') + ")"),
          keep -> keeping.computeIfAbsent(KeepReason.of(keep), k -> new Counter(sample))
              .add(keep.path() + " (" + keep.reason() + ")"))) {
        while (batches.hasNext()) {
          for (String path : batches.next()) {
            counter.add(path);
            Optional<String> inside = sweepable(swept, path);
            if (inside.isPresent()) {
              namedInside++;
              if (exact && named.add(inside.get()) && named.size() > NAMED_LIMIT) {
                exact = false;
                named = Set.of();
              }
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot preview purge: closing the " + phase + " batches failed", e);
      }
    }
    // the sweep's own listing, streamed: what lies under the roots and no metadata names
    Counter sweep = new Counter(exact ? sample : 0);
    Set<String> knownNamed = named;
    boolean told = exact;
    LocationSweep.Result listed = LocationSweep.census(io, swept, found -> {
      if (told) {
        Optional<String> key = sweepable(swept, found);
        if (key.isPresent() && !knownNamed.contains(key.get())) {
          sweep.add(found);
        }
      }
    });
    if (!told) {
      sweep.count = Math.max(0, listed.remaining() - namedInside);
    }
    Map<PurgePhase, Tally> wouldDelete = new LinkedHashMap<>();
    deleting.forEach((phase, c) -> wouldDelete.put(phase, c.tally()));
    Map<KeepReason, Tally> wouldKeep = new LinkedHashMap<>();
    keeping.forEach((reason, c) -> wouldKeep.put(reason, c.tally()));
    return new Report(metadata.metadataFileLocation(),
        scope.roots().stream().map(LocationPath::toString).toList(),
        scope.excluded().stream().map(LocationPath::toString).toList(),
        plan.gcEnabled(), Collections.unmodifiableMap(wouldDelete), Collections.unmodifiableMap(wouldKeep),
        listed.remaining(), sweep.tally(), told, listed.listable());
  }

  /** The normalised location of {@code path} when the sweep's scope covers it, else empty. */
  private static Optional<String> sweepable(PurgeScope swept, String path) {
    return LocationPath.tryParse(path).filter(swept::sweepable).map(LocationPath::toString);
  }

  /** A count and the first {@code limit} entries. */
  private static final class Counter {
    private final int limit;
    private final List<String> sample = new ArrayList<>();
    private long count;

    Counter(int limit) {
      this.limit = limit;
    }

    void add(String entry) {
      count++;
      if (sample.size() < limit) {
        sample.add(entry);
      }
    }

    Tally tally() {
      return new Tally(count, List.copyOf(sample));
    }
  }
}
