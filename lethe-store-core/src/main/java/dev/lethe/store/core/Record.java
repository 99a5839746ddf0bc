package dev.lethe.store.core;

import dev.lethe.store.core.lines.LineBase;
import java.util.List;
import java.util.Objects;

/**
 * One version of one record, as stored (docs/design/0203-store-model.md "Model"). Immutable.
 *
 * <p>A consumer {@code put} takes a record as a draft: the store stamps its revision, parent,
 * ancestors and times. A replication {@code putRaw} stores it verbatim except for normalising the
 * ancestor list to the store's cap.
 *
 * @param key where the record lives, never null
 * @param kind its kind, never null; {@link Kind#TOMBSTONE} for a deleted record
 * @param revision its revision, never null
 * @param parent the revision it was written over, or null for a first version
 * @param ancestors prior revisions, newest first, capped per store; never null
 * @param body its content, never null; empty inline for a tombstone
 * @param meta author, origin, times and labels, never null
 * @param deletedAt for a tombstone, when it was deleted (ms since the epoch); null otherwise or
 *     when unstamped
 * @param deletedBlob for a tombstone of a blob-backed record, the blob hash it pins until the
 *     tombstone is collected; null otherwise
 * @param links keys this record refers to, never null
 * @param format the record format version ({@link FormatVersion}) whose rule its revision hash
 *     follows; {@link FormatVersion#CURRENT} for every record this build stamps
 * @param bases for an append-only record of format 3, the line sets of some of its ancestors, the
 *     base of a three-way merge (docs/design/0156-three-way-line-merge.md); never null, kept only
 *     for revisions among {@code ancestors} (others are dropped), empty for formats 1 and 2
 */
public record Record(
    RecordKey key,
    Kind kind,
    Revision revision,
    Revision parent,
    List<Revision> ancestors,
    Body body,
    Meta meta,
    Long deletedAt,
    String deletedBlob,
    List<RecordKey> links,
    int format,
    List<LineBase> bases) {

  /**
   * @throws IllegalArgumentException for an unsupported format version, an invalid deletedBlob, or
   *     bases on a record of format 1 or 2
   */
  public Record {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(revision, "revision");
    Objects.requireNonNull(body, "body");
    ancestors = List.copyOf(Objects.requireNonNull(ancestors, "ancestors"));
    meta = meta == null ? Meta.EMPTY : meta;
    links = links == null ? List.of() : List.copyOf(links);
    if (deletedBlob != null && !ContentHash.isValid(deletedBlob)) {
      throw new IllegalArgumentException("Invalid deletedBlob hash '" + deletedBlob + "'");
    }
    if (!FormatVersion.isSupported(format)) {
      throw new IllegalArgumentException("Invalid record: format version " + format + " is not supported");
    }
    bases = bases == null ? List.of() : List.copyOf(bases);
    if (!bases.isEmpty()) {
      if (format < FormatVersion.V3) {
        throw new IllegalArgumentException(
            "Invalid record: format version " + format + " keeps no bases (format 3 does)");
      }
      List<Revision> anc = ancestors;
      if (!bases.stream().allMatch(b -> anc.contains(b.revision()))) {
        bases = bases.stream().filter(b -> anc.contains(b.revision())).toList();
      }
    }
  }

  /** A record without bases. */
  public Record(RecordKey key, Kind kind, Revision revision, Revision parent, List<Revision> ancestors,
      Body body, Meta meta, Long deletedAt, String deletedBlob, List<RecordKey> links, int format) {
    this(key, kind, revision, parent, ancestors, body, meta, deletedAt, deletedBlob, links, format,
        List.of());
  }

  /** A record of the {@link FormatVersion#CURRENT current} format version. */
  public Record(RecordKey key, Kind kind, Revision revision, Revision parent, List<Revision> ancestors,
      Body body, Meta meta, Long deletedAt, String deletedBlob, List<RecordKey> links) {
    this(key, kind, revision, parent, ancestors, body, meta, deletedAt, deletedBlob, links,
        FormatVersion.CURRENT);
  }

  /**
   * Returns a draft for a consumer {@code put}: counter 0 and the current format's hash of kind
   * and body; the store stamps the real revision.
   */
  public static Record draft(RecordKey key, Kind kind, Body body, Meta meta) {
    return new Record(key, kind, RevisionHash.revision(0, kind, body, meta, List.of()), null,
        List.of(), body, meta, null, null, List.of());
  }

  /** Returns whether this record is a tombstone. */
  public boolean isTombstone() {
    return kind.isTombstone();
  }

  /** Returns a copy with other revision, parent and ancestors. */
  public Record withLineage(Revision newRevision, Revision newParent, List<Revision> newAncestors) {
    return new Record(key, kind, newRevision, newParent, newAncestors, body, meta, deletedAt,
        deletedBlob, links, format, bases);
  }

  /** Returns a copy with another ancestor list. */
  public Record withAncestors(List<Revision> newAncestors) {
    return new Record(key, kind, revision, parent, newAncestors, body, meta, deletedAt, deletedBlob,
        links, format, bases);
  }

  /** Returns a copy with other metadata. */
  public Record withMeta(Meta newMeta) {
    return new Record(key, kind, revision, parent, ancestors, body, newMeta, deletedAt, deletedBlob,
        links, format, bases);
  }

  /** Returns a copy with other deletion fields (both nullable). */
  public Record withDeletion(Long newDeletedAt, String newDeletedBlob) {
    return new Record(key, kind, revision, parent, ancestors, body, meta, newDeletedAt,
        newDeletedBlob, links, format, bases);
  }

  /** Returns a copy with other bases (dropped where not among its ancestors). */
  public Record withBases(List<LineBase> newBases) {
    return new Record(key, kind, revision, parent, ancestors, body, meta, deletedAt, deletedBlob,
        links, format, newBases);
  }

  /** Returns the blob hashes this record keeps alive: its blob body and its pinned blob. */
  public List<String> referencedBlobs() {
    if (body instanceof Body.Blob blob) {
      return deletedBlob == null ? List.of(blob.hash()) : List.of(blob.hash(), deletedBlob);
    }
    return deletedBlob == null ? List.of() : List.of(deletedBlob);
  }
}
