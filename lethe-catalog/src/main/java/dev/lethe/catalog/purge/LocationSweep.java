package dev.lethe.catalog.purge;

import dev.lethe.catalog.io.ConfinedLocalFiles;
import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.ObjLongConsumer;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "Success means nothing left" (docs/design/0001-purge-confinement-and-ownership.md §5): walks a dropped table's roots after the
 * manifest-driven deletion and deletes whatever the metadata did not name — Hadoop {@code .crc}
 * checksum sidecars, files of failed commits, anything a writer left — then removes the directories
 * it emptied (docs/design/0003-purge-sweep-and-kept-files.md §2).
 *
 * <p>Listings are streamed, never collected: a local root ({@code file} scheme) is walked with
 * {@link ConfinedLocalFiles#walk} (one directory stream open per level, each opened relative to its
 * parent; links not followed on the way to the root nor below it: a link is deleted, never its
 * target, and a root behind a link is not swept); an object store root is listed with {@link
 * SupportsPrefixOperations#listPrefix} and deleted in batches of at most {@code batchSize}. The sweep
 * never leaves a root (it starts at the root and never walks up), never enters a location the
 * {@link PurgeScope} excludes (another entry's claim), and removes a directory only when it is
 * empty, bottom-up, the root included: the table location directory belongs to the table (rule 2:
 * no other entry overlaps it), so an emptied root goes too.
 *
 * <p>Stateless; what to delete is decided by the scope and the {@code keep} set, this class only
 * lists and applies.
 */
final class LocationSweep {
  private static final Logger LOG = LoggerFactory.getLogger(LocationSweep.class);
  private static final String WHAT = "SWEEP";
  private static final int EXAMPLES = 3;

  private LocationSweep() {}

  /**
   * What a sweep or a probe found.
   *
   * @param deleted files the sweep deleted (0 for a probe)
   * @param failed files or directories that could not be deleted or listed
   * @param remaining files left under the roots outside excluded locations: the {@code keep} set
   *     and, for a probe, everything found (a probe stops at the first)
   * @param directoriesRemoved empty directories removed
   * @param listable false when a root could not be listed at all (an object store FileIO without
   *     {@link SupportsPrefixOperations}): nothing can be proven about it
   * @param examples up to three locations that failed or remained, for the job's error
   * @param bytes bytes of the deleted files, from the listing (docs/design/0445-job-progress-and-receipts.md)
   */
  record Result(long deleted, long failed, long remaining, long directoriesRemoved, boolean listable,
      List<String> examples, long bytes) {
    /** True when every root was listed and nothing but the {@code keep} set is left. */
    boolean clean(long kept) {
      return listable && failed == 0 && remaining <= kept;
    }
  }

  /**
   * Deletes everything under the scope's roots except {@code keep} and excluded locations, and
   * removes emptied directories.
   *
   * @param io the table's FileIO (used for object store roots), not null
   * @param scope the roots and the excluded locations, not null
   * @param keep files to leave (the current metadata file, deleted last by the caller); not null
   * @param batchSize paths per delete call on an object store, at least 1
   * @param stop checked between files; true stops the sweep (lease lost, shutdown)
   */
  static Result sweep(FileIO io, PurgeScope scope, Set<LocationPath> keep, int batchSize, BooleanSupplier stop) {
    return run(io, scope, keep, true, batchSize, stop, null);
  }

  /**
   * Lists the scope's roots without deleting anything: whether any file is left outside excluded
   * locations. Stops at the first file found.
   */
  static Result probe(FileIO io, PurgeScope scope) {
    return run(io, scope, Set.of(), false, 1, () -> false, null);
  }

  /**
   * Lists the scope's roots without deleting anything, handing every file the sweep would see to
   * {@code found} with the size in bytes the listing gives (no file is opened) (the purge preview,
   * docs/design/0442-purge-preview.md); streamed, nothing collected.
   */
  static Result census(FileIO io, PurgeScope scope, ObjLongConsumer<String> found) {
    return run(io, scope, Set.of(), false, 1, () -> false, Objects.requireNonNull(found, "found"));
  }

  /**
   * Removes the empty directories from {@code file}'s directory up to (and including) the root that
   * contains it; stops at the first that is not empty. Local roots only; a no-op elsewhere.
   */
  static void removeEmptyParents(LocationPath file, PurgeScope scope) {
    removeEmptyParents(file, scope, null);
  }

  /**
   * As {@link #removeEmptyParents(LocationPath, PurgeScope)}, following no link below {@code io}'s
   * confinement ({@link ConfinedLocalFiles#of(FileIO)}; null: {@link ConfinedLocalFiles#STRICT}).
   */
  static void removeEmptyParents(LocationPath file, PurgeScope scope, FileIO io) {
    if (!file.isFile()) {
      return;
    }
    Optional<LocationPath> root = scope.roots().stream().filter(r -> r.contains(file)).findFirst();
    if (root.isEmpty()) {
      return;
    }
    ConfinedLocalFiles files = ConfinedLocalFiles.of(io);
    for (LocationPath dir = file.parent().orElse(null); dir != null && root.get().contains(dir);
        dir = dir.parent().orElse(null)) {
      try {
        Optional<BasicFileAttributes> attrs = files.attributes(Path.of(dir.path()));
        if (attrs.isPresent() && !attrs.get().isDirectory()) {
          return; // a link (or a file) in its place: not this directory
        }
        files.delete(Path.of(dir.path()));
      } catch (IOException | InvalidLocationException notEmptyDeniedOrThroughALink) {
        return;
      }
    }
  }

  private static Result run(FileIO io, PurgeScope scope, Set<LocationPath> keep, boolean delete, int batchSize,
      BooleanSupplier stop, ObjLongConsumer<String> census) {
    Objects.requireNonNull(io, "Cannot sweep: FileIO is null");
    Counts counts = new Counts();
    for (LocationPath root : scope.roots()) {
      if (stop.getAsBoolean() || (!delete && census == null && counts.remaining > 0)) {
        break;
      }
      if (root.isFile()) {
        walkLocal(root, scope, keep, delete, stop, counts, ConfinedLocalFiles.of(io), census);
      } else if (io instanceof SupportsPrefixOperations prefix) {
        listObjects(prefix, io, root, scope, keep, delete, batchSize, stop, counts, census);
      } else {
        counts.listable = false;
        LOG.warn("Cannot sweep {}: FileIO {} cannot list a prefix", root, io.getClass().getName());
      }
    }
    return new Result(counts.deleted, counts.failed, counts.remaining, counts.directoriesRemoved, counts.listable,
        List.copyOf(counts.examples), counts.bytes);
  }

  private static void walkLocal(LocationPath root, PurgeScope scope, Set<LocationPath> keep, boolean delete,
      BooleanSupplier stop, Counts counts, ConfinedLocalFiles files, ObjLongConsumer<String> census) {
    Path rootDir = Path.of(root.path());
    List<Path> excluded = scope.excludedInside(root).stream().map(p -> Path.of(p.path())).toList();
    List<Path> kept = keep.stream().filter(LocationPath::isFile).map(p -> Path.of(p.path())).toList();
    try {
      // no link followed, the root's own way included: docs/design/0007-no-symbolic-link-below-the-warehouse.md
      files.walk(rootDir, new ConfinedLocalFiles.Visitor() {
        @Override
        public FileVisitResult enter(Path dir) {
          for (Path e : excluded) {
            if (dir.startsWith(e)) {
              return FileVisitResult.SKIP_SUBTREE; // another entry's location: never entered
            }
          }
          return stop.getAsBoolean() ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult entry(Path file, BasicFileAttributes attrs, ConfinedLocalFiles.Remover remove) {
          for (Path e : excluded) {
            if (file.startsWith(e)) {
              return FileVisitResult.CONTINUE;
            }
          }
          if (kept.contains(file) || !delete) {
            counts.remain(file.toString());
            if (census != null) {
              census.accept(file.toString(), attrs.size());
              return FileVisitResult.CONTINUE;
            }
            return delete ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
          }
          try {
            remove.remove(); // a symbolic link itself, never its target
            counts.deleted++;
            counts.bytes += attrs.size();
          } catch (NoSuchFileException gone) {
            counts.deleted++;
          } catch (IOException e) {
            counts.fail(file.toString(), e);
          }
          return stop.getAsBoolean() ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult leave(Path dir, ConfinedLocalFiles.Remover remove) {
          if (delete) {
            try {
              remove.remove();
              counts.directoriesRemoved++;
            } catch (DirectoryNotEmptyException | NoSuchFileException expected) {
              // holds something kept or excluded (or was removed meanwhile)
            } catch (IOException other) {
              counts.fail(dir.toString(), other);
            }
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public void failed(Path path, IOException e) {
          if (!(e instanceof NoSuchFileException)) {
            counts.fail(path.toString(), e);
          }
        }
      });
    } catch (InvalidLocationException throughLink) {
      // the root itself lies behind a link: what is there is not the table's to delete or count
      LOG.warn("Not sweeping {}: {}", root, throughLink.reason());
    } catch (IOException e) {
      counts.fail(rootDir.toString(), e);
    }
  }

  private static void listObjects(SupportsPrefixOperations prefix, FileIO io, LocationPath root, PurgeScope scope,
      Set<LocationPath> keep, boolean delete, int batchSize, BooleanSupplier stop, Counts counts,
      ObjLongConsumer<String> census) {
    List<String> batch = new ArrayList<>(Math.min(batchSize, 1024));
    long[] batchBytes = {0};
    try {
      for (FileInfo info : prefix.listPrefix(root + "/")) {
        if (stop.getAsBoolean()) {
          break;
        }
        Optional<LocationPath> parsed = LocationPath.tryParse(info.location());
        if (parsed.isPresent() && root.contains(parsed.get()) && !scope.sweepable(parsed.get())) {
          continue; // inside another entry's location
        }
        if (parsed.isEmpty() || keep.contains(parsed.get()) || !delete) {
          // a key the parser refuses is never acted on; it stays and keeps the root non-empty
          counts.remain(info.location());
          if (census != null) {
            if (parsed.isPresent()) { // an unparsable key is never swept
              census.accept(info.location(), info.size());
            }
            continue;
          }
          if (!delete) {
            break;
          }
          continue;
        }
        batch.add(info.location());
        batchBytes[0] += info.size();
        if (batch.size() >= batchSize) {
          deleteBatch(io, batch, counts, batchBytes);
        }
      }
    } catch (RuntimeException e) {
      counts.fail(root.toString(), e);
    }
    deleteBatch(io, batch, counts, batchBytes);
  }

  private static void deleteBatch(FileIO io, List<String> batch, Counts counts, long[] batchBytes) {
    if (batch.isEmpty()) {
      return;
    }
    BatchOutcome o = FileBatchDeleter.delete(io, WHAT, List.copyOf(batch));
    counts.deleted += o.deleted();
    if (o.failed() == 0) {
      counts.bytes += batchBytes[0];
    }
    batchBytes[0] = 0;
    if (o.failed() > 0) {
      counts.failed += o.failed();
      if (counts.examples.size() < EXAMPLES) {
        counts.examples.add(batch.get(0) + " (one of " + o.failed() + " that could not be deleted)");
      }
    }
    batch.clear();
  }

  /** Mutable tallies of one run, confined to its thread. */
  private static final class Counts {
    long deleted;
    long failed;
    long remaining;
    long directoriesRemoved;
    long bytes;
    boolean listable = true;
    final List<String> examples = new ArrayList<>();

    void remain(String location) {
      remaining++;
      if (examples.size() < EXAMPLES) {
        examples.add(location);
      }
    }

    void fail(String location, Exception e) {
      failed++;
      LOG.warn("Sweep cannot delete or list {}: {}", location, e.toString());
      if (examples.size() < EXAMPLES) {
        examples.add(location + " (" + e.getClass().getSimpleName() + ")");
      }
    }
  }
}
