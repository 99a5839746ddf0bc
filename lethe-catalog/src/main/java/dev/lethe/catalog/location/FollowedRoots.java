package dev.lethe.catalog.location;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a table holds after a commit: its current roots ({@link TableRoots}) plus every earlier root
 * (a location or write path it was moved away from) that a file of a snapshot it keeps still lies
 * under (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md).
 *
 * <p>The decisions are pure ({@link #mayRelease}, {@link #earlier}, {@link #held}); {@link
 * #stillReferenced} reads the new metadata's manifest lists and manifests, cheapest first, and stops
 * as soon as every earlier root is proven in use.
 */
public final class FollowedRoots {
  private static final Logger LOG = LoggerFactory.getLogger(FollowedRoots.class);

  private FollowedRoots() {}

  /**
   * Whether a commit removes references that could have kept an earlier root: a snapshot, a
   * statistics file or a partition statistics file of {@code base} is gone from {@code next}. A
   * commit that only adds (an append, a property change) cannot release anything.
   *
   * @param base not null
   * @param next not null
   */
  public static boolean mayRelease(TableMetadata base, TableMetadata next) {
    Set<Long> kept = new HashSet<>();
    next.snapshots().forEach(s -> kept.add(s.snapshotId()));
    for (Snapshot s : base.snapshots()) {
      if (!kept.contains(s.snapshotId())) {
        return true;
      }
    }
    Set<String> paths = new HashSet<>();
    next.statisticsFiles().forEach(f -> paths.add(f.path()));
    next.partitionStatisticsFiles().forEach(f -> paths.add(f.path()));
    return base.statisticsFiles().stream().anyMatch(f -> !paths.contains(f.path()))
        || base.partitionStatisticsFiles().stream().anyMatch(f -> !paths.contains(f.path()));
  }

  /**
   * The held roots that are not inside a current root: the earlier locations and write paths.
   *
   * @param current the roots of the new metadata, not null
   * @param held what the table holds now, not null
   * @return in the order of {@code held}; empty if every held root is current
   */
  public static List<LocationPath> earlier(Collection<LocationPath> current, Collection<LocationPath> held) {
    List<LocationPath> out = new ArrayList<>();
    for (LocationPath h : held) {
      if (current.stream().noneMatch(c -> c.contains(h)) && !out.contains(h)) {
        out.add(h);
      }
    }
    return out;
  }

  /**
   * The roots the table holds after the commit: its current roots and the earlier roots still in
   * use, minimal (no root inside another).
   */
  public static List<LocationPath> held(Collection<LocationPath> current, Collection<LocationPath> stillReferenced) {
    List<LocationPath> all = new ArrayList<>(current);
    all.addAll(stillReferenced);
    return ClaimOverlap.minimal(all);
  }

  /**
   * Which of {@code earlier} a file of the metadata's kept snapshots lies under (and not under a
   * current root): manifest lists, statistics and partition statistics files first, then manifests,
   * then the data and delete files the manifests name; stops once every earlier root is found. A
   * manifest list or manifest that cannot be read keeps every earlier root not yet found: a root is
   * released only when it is proven unused.
   *
   * @param metadata the table's new metadata, not null
   * @param io reads its manifest lists and manifests
   * @param current its current roots (a file under one of them proves nothing about an earlier root)
   * @param earlier the candidates, from {@link #earlier}
   * @return the candidates still in use
   */
  public static Set<LocationPath> stillReferenced(TableMetadata metadata, FileIO io, Collection<LocationPath> current,
      Collection<LocationPath> earlier) {
    Search search = new Search(current, earlier);
    if (search.done()) {
      return search.found;
    }
    for (Snapshot s : metadata.snapshots()) {
      search.offer(s.manifestListLocation());
    }
    for (StatisticsFile f : metadata.statisticsFiles()) {
      search.offer(f.path());
    }
    for (PartitionStatisticsFile f : metadata.partitionStatisticsFiles()) {
      search.offer(f.path());
    }
    Map<String, ManifestFile> manifests = new java.util.LinkedHashMap<>();
    try {
      for (Snapshot s : metadata.snapshots()) {
        if (search.done()) {
          return search.found;
        }
        for (ManifestFile m : s.allManifests(io)) {
          manifests.putIfAbsent(m.path(), m);
          search.offer(m.path());
        }
      }
      Map<Integer, PartitionSpec> specs = metadata.specsById();
      for (ManifestFile m : manifests.values()) {
        if (search.done()) {
          return search.found;
        }
        try (CloseableIterable<String> paths = ManifestFiles.readPaths(m, io, specs)) {
          for (String p : paths) {
            if (search.offer(p) && search.done()) {
              return search.found;
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot tell whether {} still hold files of {}: {}; they stay held", search.missing(),
          metadata.metadataFileLocation(), e.toString());
      Set<LocationPath> all = new LinkedHashSet<>(search.found);
      all.addAll(search.missing());
      return all;
    }
    return search.found;
  }

  private static final class Search {
    private final Collection<LocationPath> current;
    private final List<LocationPath> candidates;
    private final Set<LocationPath> found = new LinkedHashSet<>();

    Search(Collection<LocationPath> current, Collection<LocationPath> earlier) {
      this.current = current;
      this.candidates = new ArrayList<>(earlier);
    }

    boolean done() {
      return found.size() == candidates.size();
    }

    List<LocationPath> missing() {
      return candidates.stream().filter(c -> !found.contains(c)).toList();
    }

    /** @return whether the path proved a new candidate in use */
    boolean offer(String path) {
      if (path == null) {
        return false;
      }
      LocationPath p = LocationPath.tryParse(path).orElse(null);
      if (p == null || current.stream().anyMatch(c -> c.contains(p))) {
        return false;
      }
      boolean added = false;
      for (LocationPath c : candidates) {
        if (!found.contains(c) && c.contains(p)) {
          found.add(c);
          added = true;
        }
      }
      return added;
    }
  }
}
