package dev.lethe.catalog.purge;

import dev.lethe.catalog.jobs.PurgePhase;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Counts of one best-effort walk of a {@link PurgePlan}: deleted and failed files per phase.
 *
 * @param gcEnabled the table's {@code gc.enabled}; when false no data or delete file was touched
 * @param deleted files gone per phase, counting files that did not exist; every phase present
 *     (0 when it had nothing to delete or was skipped)
 * @param failed files that could not be deleted per phase; every phase present
 * @param unreadableManifests manifests whose data and delete files could not be listed (those
 *     files were not deleted), in the order met
 * @param missingManifestLists manifest lists that were already gone when the purge was planned
 *     (only when the planner skips missing manifest lists)
 * @param keptFiles paths found in the metadata and kept because they lie outside the table's roots
 *     or do not parse (rule 1; docs/design/0003-purge-sweep-and-kept-files.md)
 * @param sweptFiles files the sweep deleted that the metadata did not name (counted in no phase)
 */
public record PurgeResult(
    boolean gcEnabled,
    Map<PurgePhase, Integer> deleted,
    Map<PurgePhase, Integer> failed,
    List<ManifestReadFailure> unreadableManifests,
    List<String> missingManifestLists,
    long keptFiles,
    long sweptFiles) {

  /** A result with nothing kept and nothing swept. */
  public PurgeResult(boolean gcEnabled, Map<PurgePhase, Integer> deleted, Map<PurgePhase, Integer> failed,
      List<ManifestReadFailure> unreadableManifests, List<String> missingManifestLists) {
    this(gcEnabled, deleted, failed, unreadableManifests, missingManifestLists, 0, 0);
  }

  /** Copies the maps and lists; missing phases count 0. */
  public PurgeResult {
    deleted = complete(deleted);
    failed = complete(failed);
    unreadableManifests = List.copyOf(unreadableManifests);
    missingManifestLists = List.copyOf(missingManifestLists);
  }

  private static Map<PurgePhase, Integer> complete(Map<PurgePhase, Integer> counts) {
    EnumMap<PurgePhase, Integer> all = new EnumMap<>(PurgePhase.class);
    for (PurgePhase phase : PurgePhase.values()) {
      all.put(phase, counts.getOrDefault(phase, 0));
    }
    return Collections.unmodifiableMap(all);
  }

  /** Files of {@code phase} that are gone, counting files that did not exist. */
  public int deleted(PurgePhase phase) {
    return deleted.get(phase);
  }

  /** Files of {@code phase} that could not be deleted. */
  public int failed(PurgePhase phase) {
    return failed.get(phase);
  }

  /** Files gone over all phases. */
  public long totalDeleted() {
    return deleted.values().stream().mapToLong(Integer::longValue).sum();
  }

  /** Files that could not be deleted over all phases. */
  public long totalFailed() {
    return failed.values().stream().mapToLong(Integer::longValue).sum();
  }

  /**
   * True when every planned file is gone: no delete failed and every manifest could be read. A
   * complete purge leaves no file of the table that its metadata names.
   */
  public boolean complete() {
    return totalFailed() == 0 && unreadableManifests.isEmpty();
  }
}
