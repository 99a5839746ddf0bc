package dev.lethe.catalog.purge;

import dev.lethe.catalog.location.InvalidLocationException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import org.apache.avro.generic.IndexedRecord;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;

/**
 * Streams the data and delete file paths of a list of manifests in batches, reading one manifest
 * at a time.
 *
 * <p>Every entry counts, whatever its status (ADDED, EXISTING or DELETED), because Iceberg's
 * {@code CatalogUtil.dropTableData} deletes the file of every entry. Iceberg's public {@code
 * ManifestReader} only exposes live (non-DELETED) entries, so the manifest is read with Iceberg's
 * Avro reader projected on the columns needed: {@code data_file.file_path} and {@code
 * data_file.file_size_in_bytes} (the size is handed to {@code facts} for the job's progress,
 * docs/design/0445-job-progress-and-receipts.md).
 */
final class ContentFileBatches implements CloseableIterator<List<String>> {
  /** Field ids from the Iceberg spec: manifest_entry.data_file (2) and data_file.file_path (100). */
  private static final int DATA_FILE_FIELD_ID = 2;

  private static final Schema PATH_PROJECTION =
      new Schema(
          Types.NestedField.required(
              DATA_FILE_FIELD_ID, "data_file", Types.StructType.of(DataFile.FILE_PATH, DataFile.FILE_SIZE)));

  private final FileIO io;
  private final Iterator<ManifestFile> manifests;
  private final int batchSize;
  private final Consumer<ManifestReadFailure> onUnreadableManifest;
  private final Map<String, Boolean> recent;
  private final Map<String, PurgePlan.FileFacts> facts;

  private ManifestFile currentManifest;
  private CloseableIterable<IndexedRecord> currentIterable;
  private Iterator<IndexedRecord> currentEntries;
  private List<String> pending;
  private PurgePlan.FileFacts lastFacts;

  ContentFileBatches(
      FileIO io,
      List<ManifestFile> manifests,
      int batchSize,
      int dedupeWindow,
      Consumer<ManifestReadFailure> onUnreadableManifest,
      Map<String, PurgePlan.FileFacts> facts) {
    this.facts = facts;
    this.io = io;
    this.manifests = manifests.iterator();
    this.batchSize = batchSize;
    this.onUnreadableManifest = onUnreadableManifest;
    this.recent =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > dedupeWindow;
          }
        };
  }

  @Override
  public boolean hasNext() {
    if (pending == null) {
      pending = fill();
    }
    return !pending.isEmpty();
  }

  @Override
  public List<String> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    List<String> batch = pending;
    pending = null;
    return batch;
  }

  private List<String> fill() {
    List<String> batch = new ArrayList<>(Math.min(batchSize, 1024));
    while (batch.size() < batchSize) {
      String path = nextPath();
      if (path == null) {
        break;
      }
      if (recent.put(path, Boolean.TRUE) == null) {
        batch.add(path);
        facts.put(path, lastFacts);
      }
    }
    return List.copyOf(batch);
  }

  /** The next entry's file path, or null when every manifest has been read. */
  private String nextPath() {
    while (true) {
      if (currentEntries != null) {
        try {
          if (currentEntries.hasNext()) {
            IndexedRecord entry = currentEntries.next();
            IndexedRecord file = (IndexedRecord) entry.get(0);
            String path = file.get(0).toString();
            Object size = file.get(1);
            lastFacts = new PurgePlan.FileFacts(
                currentManifest.content() == org.apache.iceberg.ManifestContent.DELETES
                    ? dev.lethe.catalog.jobs.FileKind.DELETE_FILES : dev.lethe.catalog.jobs.FileKind.DATA_FILES,
                size instanceof Long l ? l : null);
            return path;
          }
        } catch (RuntimeException e) {
          fail(e);
        }
        closeCurrent();
      }
      if (!manifests.hasNext()) {
        return null;
      }
      open(manifests.next());
    }
  }

  private void open(ManifestFile manifest) {
    currentManifest = manifest;
    try {
      currentIterable =
          Avro.read(io.newInputFile(manifest.path(), manifest.length()))
              .project(PATH_PROJECTION)
              .build();
      currentEntries = currentIterable.iterator();
    } catch (RuntimeException e) {
      fail(e);
      closeCurrent();
    }
  }

  private void fail(RuntimeException e) {
    boolean notFound = e instanceof NotFoundException || e.getCause() instanceof java.io.FileNotFoundException;
    String reason = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    onUnreadableManifest.accept(new ManifestReadFailure(currentManifest.path(), notFound, reason,
        e instanceof InvalidLocationException));
    currentEntries = null;
  }

  private void closeCurrent() {
    CloseableIterable<IndexedRecord> toClose = currentIterable;
    currentIterable = null;
    currentEntries = null;
    if (toClose != null) {
      try {
        toClose.close();
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to close manifest reader " + currentManifest.path(), e);
      }
    }
  }

  @Override
  public void close() {
    closeCurrent();
  }
}
