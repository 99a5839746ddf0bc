package dev.lethe.catalog.purge;

import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.location.LocationPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;

/**
 * What a purge of a table would delete and keep now, without deleting or claiming anything
 * (docs/design/0442-purge-preview.md). It walks the very {@link PurgePlan} the purge walks (same
 * {@link PurgePlanner}, same {@link PurgeScope}, the same confined stream {@link PurgePlan#files}
 * that {@link PurgePlan#batches} hands the purge's deleter), so the two cannot drift on what is
 * named or kept; it only counts. Memory is bounded by the plan (one entry per distinct manifest,
 * data files streamed one manifest at a time) plus {@code sample} paths per group.
 *
 * <p>What the purge deletes is what exists: a file the metadata still names may already be gone
 * (Iceberg's snapshot expiry deletes a replaced data file while the kept snapshot's manifest still
 * lists it as a DELETED entry), and the purge's delete of it changes nothing. So every named file
 * under the sweep's roots is checked against the sweep's own listing ({@link LocationSweep#census},
 * one streamed listing, which the purge's sweep also walks): listed = would be deleted, not listed
 * = {@link Report#missing()}; a listed file no metadata names is the sweep's ({@link Report#sweep()}).
 * Telling them apart needs the named paths: they are remembered up to {@link #NAMED_LIMIT}; beyond
 * that the named files are counted as the plan names them, the sweep by difference (files listed
 * minus named files inside the roots) without a sample, and {@link Report#exact()} is false.
 * Manifest lists and metadata files (as many as the metadata's own snapshot and log entries, which
 * are in memory anyway) are always checked, since their size comes from the listing.
 *
 * <p>Bytes come from what Iceberg records (a data or delete file's {@code file_size_in_bytes}, a
 * manifest's {@code length}, a statistics file's {@code file_size_in_bytes}) and, for files the
 * metadata does not size (manifest lists, metadata files, the sweep's), from the listing; no file is
 * opened to size it.
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
      return switch (keep.why()) {
        case OUTSIDE_ROOTS -> OUTSIDE_ROOTS;
        case CLAIMED_BY_ANOTHER_ENTRY -> CLAIMED_BY_ANOTHER_ENTRY;
        case SYMBOLIC_LINK -> SYMBOLIC_LINK;
        case INVALID_LOCATION -> INVALID_LOCATION;
      };
    }
  }

  /**
   * A count with its bytes and the first paths.
   *
   * @param files files counted, at least 0
   * @param bytes their size in bytes, at least 0 (a file whose size neither the metadata nor a
   *     listing gives counts 0)
   * @param sample the first at most {@code sample} paths (for a kept file: "path (reason)"), never null
   */
  public record Tally(long files, long bytes, List<String> sample) {}

  /** What a deleted file is, for the bytes per kind. */
  public enum Kind {
    DATA_FILES, DELETE_FILES, MANIFESTS, MANIFEST_LISTS, STATISTICS_FILES, METADATA_FILES,
    /** Files under the roots no metadata names, which the sweep deletes. */
    OTHER;

    static Kind of(PurgePhase phase, PurgePlan.PlannedFile file) {
      return switch (phase) {
        case DATA_AND_DELETE_FILES -> file.deleteFile() ? DELETE_FILES : DATA_FILES;
        case MANIFESTS -> MANIFESTS;
        case MANIFEST_LISTS -> MANIFEST_LISTS;
        case STATISTICS_FILES, PARTITION_STATISTICS_FILES -> STATISTICS_FILES;
        case PREVIOUS_METADATA_FILES, CURRENT_METADATA_FILE -> METADATA_FILES;
      };
    }
  }

  /**
   * Files and bytes of one kind.
   *
   * @param files at least 0
   * @param bytes at least 0
   */
  public record Amount(long files, long bytes) {}

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
   *     sample is empty unless {@code exact}
   * @param missing files the metadata names under the roots that the listing did not find (already
   *     deleted, e.g. by snapshot expiry): the purge's delete of them changes nothing; not in
   *     {@code wouldDelete}; bytes as the metadata gives them
   * @param byKind files and bytes the purge would delete per kind, every kind present, {@link
   *     Kind#OTHER} being the sweep's
   * @param exact true when every file was told one by one against the listing; false: more than
   *     {@link #NAMED_LIMIT} named files, so data, delete, manifest and statistics files are counted
   *     as the metadata names them (possibly including missing ones) and the sweep by difference
   * @param listable false when a root could not be listed (a FileIO without prefix listing): the
   *     sweep then deletes nothing it cannot see, {@code sweep} is 0 and named files are counted
   *     as named
   */
  public record Report(String metadataLocation, List<String> roots, List<String> excluded, boolean gcEnabled,
      Map<PurgePhase, Tally> wouldDelete, Map<KeepReason, Tally> wouldKeep, long filesUnderRoots, Tally sweep,
      Tally missing, Map<Kind, Amount> byKind, boolean exact, boolean listable) {
    /** Files the purge would delete: every phase plus the sweep. */
    public long totalWouldDelete() {
      return wouldDelete.values().stream().mapToLong(Tally::files).sum() + sweep.files();
    }

    /** Bytes the purge would delete: every phase plus the sweep. */
    public long totalBytes() {
      return wouldDelete.values().stream().mapToLong(Tally::bytes).sum() + sweep.bytes();
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
    PurgeScope swept = plan.sweepScope();
    Walk walk = new Walk(sample);
    Map<KeepReason, Counter> keeping = new EnumMap<>(KeepReason.class);
    for (PurgePhase phase : plan.phases()) {
      // the purge's own stream: same confinement, same kept-file callback as PurgeJobRunner.deletePhase
      try (CloseableIterator<List<PurgePlan.PlannedFile>> files = plan.files(phase,
          failure -> keeping.computeIfAbsent(KeepReason.UNREADABLE_MANIFEST, k -> new Counter(sample))
              .add(failure.manifestPath() + " (" + failure.reason().replace('\n', ' ') + ")", 0),
          keep -> keeping.computeIfAbsent(KeepReason.of(keep), k -> new Counter(sample))
              .add(keep.path() + " (" + keep.reason() + ")", 0))) {
        while (files.hasNext()) {
          for (PurgePlan.PlannedFile file : files.next()) {
            walk.named(phase, file, sweepable(swept, file.path()));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot preview purge: closing the " + phase + " batches failed", e);
      }
    }
    // the sweep's own listing, streamed: which named files exist, and what no metadata names
    LocationSweep.Result listed = LocationSweep.census(io, swept,
        (found, size) -> sweepable(swept, found).ifPresent(key -> walk.listed(found, key, size)));
    // a root that could not be listed (or failed part-way) proves no absence: named files count as named
    walk.finish(listed.listable() && listed.failed() == 0);
    Map<PurgePhase, Tally> wouldDelete = new LinkedHashMap<>();
    for (PurgePhase phase : PurgePhase.values()) {
      wouldDelete.put(phase, walk.deleting.get(phase).tally());
    }
    Map<KeepReason, Tally> wouldKeep = new LinkedHashMap<>();
    keeping.forEach((reason, c) -> wouldKeep.put(reason, c.tally()));
    Map<Kind, Amount> byKind = new LinkedHashMap<>();
    for (Kind kind : Kind.values()) {
      byKind.put(kind, new Amount(walk.kindFiles[kind.ordinal()], walk.kindBytes[kind.ordinal()]));
    }
    return new Report(metadata.metadataFileLocation(),
        scope.roots().stream().map(LocationPath::toString).toList(),
        scope.excluded().stream().map(LocationPath::toString).toList(),
        plan.gcEnabled(), Collections.unmodifiableMap(wouldDelete), Collections.unmodifiableMap(wouldKeep),
        listed.remaining(), walk.sweep.tally(), walk.missing.tally(), Collections.unmodifiableMap(byKind),
        walk.exact, listed.listable());
  }

  /** The normalised location of {@code path} when the sweep's scope covers it, else empty. */
  private static Optional<String> sweepable(PurgeScope swept, String path) {
    return LocationPath.tryParse(path).filter(swept::sweepable).map(LocationPath::toString);
  }

  /** A named file under the sweep's roots, waiting for the listing to say whether it exists. */
  private static final class Named {
    final PurgePhase phase;
    final Kind kind;
    final String path;
    final long size;
    long listedSize = -1;

    Named(PurgePhase phase, Kind kind, String path, long size) {
      this.phase = phase;
      this.kind = kind;
      this.path = path;
      this.size = size;
    }
  }

  /** The preview's tallies: named files, then the listing, then the join. Confined to one thread. */
  private static final class Walk {
    final Map<PurgePhase, Counter> deleting = new EnumMap<>(PurgePhase.class);
    /** Sized named files under the roots, as named (the fallback when not exact). */
    final Map<PurgePhase, Counter> named = new EnumMap<>(PurgePhase.class);
    final long[] namedKindFiles = new long[Kind.values().length];
    final long[] namedKindBytes = new long[Kind.values().length];
    final long[] kindFiles = new long[Kind.values().length];
    final long[] kindBytes = new long[Kind.values().length];
    /** Files the metadata sizes, by normalised location, up to NAMED_LIMIT. */
    Map<String, Named> sized = new HashMap<>();
    /** Manifest lists and metadata files (sized by the listing), always. */
    final Map<String, Named> unsized = new LinkedHashMap<>();
    final List<Named> order = new ArrayList<>();
    final Counter sweep;
    final Counter missing;
    final int sample;
    boolean exact = true;
    long namedInside;
    long namedInsideBytes;
    long listedFiles;
    long listedBytes;

    Walk(int sample) {
      this.sample = sample;
      for (PurgePhase phase : PurgePhase.values()) {
        deleting.put(phase, new Counter(sample));
        named.put(phase, new Counter(sample));
      }
      this.sweep = new Counter(sample);
      this.missing = new Counter(sample);
    }

    /** A file the purge's stream names; {@code key} is its location when the sweep's listing covers it. */
    void named(PurgePhase phase, PurgePlan.PlannedFile file, Optional<String> key) {
      Kind kind = Kind.of(phase, file);
      if (key.isEmpty()) { // not listed by the sweep: the purge deletes it by name
        deleting.get(phase).add(file.path(), Math.max(0, file.sizeInBytes()));
        kindFiles[kind.ordinal()]++;
        kindBytes[kind.ordinal()] += Math.max(0, file.sizeInBytes());
        return;
      }
      String k = key.get().equals(file.path()) ? file.path() : key.get();
      Named n = new Named(phase, kind, file.path(), file.sizeInBytes());
      if (file.sizeInBytes() == PurgePlan.PlannedFile.UNKNOWN_SIZE) {
        if (unsized.putIfAbsent(k, n) == null && exact) {
          order.add(n);
        }
        return;
      }
      namedInside++;
      namedInsideBytes += file.sizeInBytes();
      named.get(phase).add(file.path(), file.sizeInBytes());
      namedKindFiles[kind.ordinal()]++;
      namedKindBytes[kind.ordinal()] += file.sizeInBytes();
      if (exact && sized.putIfAbsent(k, n) == null) {
        order.add(n);
        if (sized.size() > NAMED_LIMIT) {
          exact = false;
          sized = Map.of();
          order.removeIf(o -> o.size != PurgePlan.PlannedFile.UNKNOWN_SIZE);
          sweep.limit = 0;
        }
      }
    }

    /** A file the sweep's listing found. */
    void listed(String location, String key, long size) {
      listedFiles++;
      listedBytes += size;
      Named n = unsized.get(key);
      if (n == null) {
        n = sized.get(key);
      }
      if (n != null) {
        n.listedSize = size;
      } else if (exact) {
        sweep.add(location, size);
        kindFiles[Kind.OTHER.ordinal()]++;
        kindBytes[Kind.OTHER.ordinal()] += size;
      }
    }

    /** Joins the named files with the listing; {@code listable}: the listing was complete. */
    void finish(boolean listable) {
      if (!exact) {
        for (PurgePhase phase : PurgePhase.values()) {
          deleting.get(phase).addAll(named.get(phase));
        }
        for (int i = 0; i < kindFiles.length; i++) {
          kindFiles[i] += namedKindFiles[i];
          kindBytes[i] += namedKindBytes[i];
        }
      }
      long unsizedListedFiles = 0;
      long unsizedListedBytes = 0;
      for (Named n : exact ? order : List.copyOf(unsized.values())) {
        boolean exists = !listable || n.listedSize >= 0;
        if (n.listedSize >= 0 && n.size == PurgePlan.PlannedFile.UNKNOWN_SIZE) {
          unsizedListedFiles++;
          unsizedListedBytes += n.listedSize;
        }
        long bytes = n.size >= 0 ? n.size : Math.max(0, n.listedSize);
        if (exists) {
          deleting.get(n.phase).add(n.path, bytes);
          kindFiles[n.kind.ordinal()]++;
          kindBytes[n.kind.ordinal()] += bytes;
        } else {
          missing.add(n.path, bytes);
        }
      }
      if (!exact && listable) {
        // counted by difference: what was listed and is neither a named sized file nor a named unsized one
        sweep.count = Math.max(0, listedFiles - unsizedListedFiles - namedInside);
        sweep.bytes = Math.max(0, listedBytes - unsizedListedBytes - namedInsideBytes);
        kindFiles[Kind.OTHER.ordinal()] = sweep.count;
        kindBytes[Kind.OTHER.ordinal()] = sweep.bytes;
      }
    }
  }

  /** A count, its bytes and the first {@code limit} entries. */
  private static final class Counter {
    private int limit;
    private final List<String> sample = new ArrayList<>();
    private long count;
    private long bytes;

    Counter(int limit) {
      this.limit = limit;
    }

    void add(String entry, long size) {
      count++;
      bytes += size;
      if (sample.size() < limit) {
        sample.add(entry);
      }
    }

    void addAll(Counter other) {
      count += other.count;
      bytes += other.bytes;
      for (String s : other.sample) {
        if (sample.size() < limit) {
          sample.add(s);
        }
      }
    }

    Tally tally() {
      return new Tally(count, bytes, List.copyOf(sample));
    }
  }
}
