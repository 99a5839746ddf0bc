package dev.lethe.store.core;

import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.tombstone.Tombstones;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a revision's hash is, and the one check that a record's revision proves its content
 * (docs/design/0108-records-that-prove-their-content.md, docs/store-format.md "Revisions"). Every
 * read path calls {@link #problem} (every substrate through {@code PlannedStore}, the remote client
 * on every record a server sends, sync through those reads); every writer stamps with {@link
 * #revision}. Pure: no I/O.
 *
 * <ul>
 *   <li>A tombstone's hash is {@code SHA-256("lethe:tombstone:v1")} in every format version, and
 *       its body is empty.
 *   <li>Format 2, a live record: {@code SHA-256("lethe:record:v2\n" + kind + "\n" + length + "\n"
 *       + contentHash)}, UTF-8, where {@code length} is the body's length in bytes (decimal) and
 *       {@code contentHash} the 64 hex of the SHA-256 of its bytes (a blob body: the blob's hash).
 *       A kind is {@code [a-z0-9_-]}, so the input is unambiguous, and it never equals the tombstone
 *       domain string: no live record shares a revision with a tombstone, and records of two kinds
 *       never share one.
 *   <li>Format 3, a live record: {@code SHA-256("lethe:record:v3\n" + kind + "\n" + length + "\n"
 *       + contentHash + "\n" + metadata)}, where {@code metadata} is author, origin, labels (by
 *       name) and links, each string length-prefixed (docs/design/0155-a-revision-covers-what-sync-compares.md,
 *       docs/store-format.md "Revisions"). Times, ancestry and bases are not covered.
 *   <li>Format 2 (read, never stamped): as format 3 without the metadata, so two records that differ
 *       only in metadata share a revision; sync compares their metadata instead.
 *   <li>Format 1 (read, never stamped): a live record's hash is the SHA-256 of its content alone (a
 *       blob body: the blob's hash), so a live body that is exactly {@code lethe:tombstone:v1} has a
 *       tombstone's hash; sync treats such a pair as a conflict.
 * </ul>
 */
public final class RevisionHash {

  /** The domain prefix of every format-2 live record hash. */
  public static final String LIVE_DOMAIN_V2 = "lethe:record:v2\n";
  /** The domain prefix of every format-3 live record hash. */
  public static final String LIVE_DOMAIN_V3 = "lethe:record:v3\n";

  private RevisionHash() {}

  /**
   * Returns the hash a record of {@code format}, {@code kind}, {@code body}, {@code meta} and
   * {@code links} must carry (formats 1 and 2 ignore meta and links).
   *
   * @throws IllegalArgumentException for an unsupported format version
   */
  public static String of(int format, Kind kind, Body body, Meta meta, List<RecordKey> links) {
    if (kind.isTombstone()) {
      return Tombstones.HASH;
    }
    return switch (format) {
      case FormatVersion.V1 -> body.contentHash();
      case FormatVersion.V2 -> ContentHash.ofUtf8(LIVE_DOMAIN_V2 + kind.name() + "\n" + length(body) + "\n"
          + body.contentHash());
      case FormatVersion.V3 -> ContentHash.ofUtf8(LIVE_DOMAIN_V3 + kind.name() + "\n" + length(body) + "\n"
          + body.contentHash() + "\n" + covered(meta, links));
      default -> throw new IllegalArgumentException("Invalid format version " + format);
    };
  }

  /** {@link #of(int, Kind, Body, Meta, List)} of a record with no author, origin, labels or links. */
  public static String of(int format, Kind kind, Body body) {
    return of(format, kind, body, Meta.EMPTY, List.of());
  }

  /** Returns the hash {@code r} must carry: {@link #of} of its own format, kind, body, meta and links. */
  public static String of(Record r) {
    return of(r.format(), r.kind(), r.body(), r.meta(), r.links());
  }

  /** Returns the revision a writer of this build stamps: {@code counter} and the current format's hash. */
  public static Revision revision(long counter, Kind kind, Body body, Meta meta, List<RecordKey> links) {
    return new Revision(counter, of(FormatVersion.CURRENT, kind, body, meta, links));
  }

  /** {@link #revision(long, Kind, Body, Meta, List)} of a record with no author, origin, labels or links. */
  public static Revision revision(long counter, Kind kind, Body body) {
    return revision(counter, kind, body, Meta.EMPTY, List.of());
  }

  /** Returns {@code r} re-stamped with the current format and the hash of its own content and metadata. */
  public static Record restamp(Record r) {
    Record current = r.format() == FormatVersion.CURRENT ? r
        : new Record(r.key(), r.kind(), r.revision(), r.parent(), r.ancestors(), r.body(), r.meta(),
            r.deletedAt(), r.deletedBlob(), r.links(), FormatVersion.CURRENT, r.bases());
    return current.withLineage(new Revision(r.revision().counter(), of(current)), r.parent(), r.ancestors());
  }

  /**
   * Returns the names of the metadata fields in which {@code a} and {@code b} differ among those a
   * format-3 revision covers (author, origin, labels, links), in that order; empty when none.
   */
  public static List<String> metadataDifferences(Record a, Record b) {
    List<String> out = new java.util.ArrayList<>(4);
    if (!java.util.Objects.equals(a.meta().author(), b.meta().author())) {
      out.add("author");
    }
    if (!java.util.Objects.equals(a.meta().origin(), b.meta().origin())) {
      out.add("origin");
    }
    if (!a.meta().labels().equals(b.meta().labels())) {
      out.add("labels");
    }
    if (!a.links().equals(b.links())) {
      out.add("links");
    }
    return out;
  }

  private static String covered(Meta meta, List<RecordKey> links) {
    StringBuilder b = new StringBuilder();
    b.append("author ").append(field(meta.author())).append('\n');
    b.append("origin ").append(field(meta.origin())).append('\n');
    b.append("labels ").append(meta.labels().size()).append('\n');
    meta.labels().forEach((k, v) -> b.append(field(k)).append(' ').append(field(v)).append('\n'));
    b.append("links ").append(links.size()).append('\n');
    links.forEach(l -> b.append(field(l.toString())).append('\n'));
    return b.toString();
  }

  // Length-prefixed (UTF-8 bytes), so no value can be read as another field; null is "-".
  private static String field(String s) {
    return s == null ? "-" : s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + ":" + s;
  }

  /**
   * Returns why {@code r} does not prove its content, one line without the key, or empty when its
   * revision hash is the one its format, kind and body call for (and a tombstone's body is empty).
   * A record with a problem is corrupt: a reader refuses it and sync never copies it.
   */
  public static Optional<String> problem(Record r) {
    if (r.isTombstone() && !r.body().equals(Body.EMPTY)) {
      return Optional.of("a tombstone must have an empty body (the record was edited or damaged)");
    }
    String want = of(r);
    if (!want.equals(r.revision().hash())) {
      return Optional.of("revision hash " + r.revision().hash() + " does not match its "
          + (r.isTombstone() ? "tombstone hash " : (r.format() >= FormatVersion.V3 ? "kind, body and metadata"
              : "kind and body") + " (format " + r.format() + " hash ")
          + want + (r.isTombstone() ? "" : ")") + "; the record was edited or damaged");
    }
    return Optional.empty();
  }

  /**
   * Returns {@code r} if it proves its content.
   *
   * @param location where it was read from (a file, a row, a server), for the message
   * @throws CorruptRecordException naming its key and {@code location} otherwise
   */
  public static Record check(Record r, String location) {
    Optional<String> problem = problem(r);
    if (problem.isPresent()) {
      throw new CorruptRecordException(r.key(), location, problem.get());
    }
    return r;
  }

  /**
   * Checks every record of a listing page, in key order. A corrupt first record throws; a corrupt
   * later one cuts the page before it (its {@code next} is the last sound key), so the next page
   * starts with it and throws. A page therefore fails only with the key right after its {@code
   * after}, and a walk that steps over that key (sync) loses no sound record.
   *
   * @param locationOf where a key's record was read from, for the message
   * @throws CorruptRecordException naming the key and location of a corrupt first record
   */
  public static Page checkPage(Page page, Function<RecordKey, String> locationOf) {
    for (int i = 0; i < page.records().size(); i++) {
      Record r = page.records().get(i);
      if (problem(r).isPresent()) {
        if (i == 0) {
          check(r, locationOf.apply(r.key()));
        }
        return new Page(page.records().subList(0, i), Optional.of(page.records().get(i - 1).key()));
      }
    }
    return page;
  }

  /**
   * Returns why {@code content}, read for the blob reference {@code ref}, is not that blob, or
   * empty when its SHA-256 and length match.
   */
  public static Optional<String> blobProblem(Body.Blob ref, byte[] content) {
    String actual = ContentHash.of(content);
    if (!actual.equals(ref.hash())) {
      return Optional.of("blob " + ref.hash() + " holds content whose SHA-256 is " + actual);
    }
    if (content.length != ref.length()) {
      return Optional.of("blob " + ref.hash() + " is " + content.length + " bytes, the record says " + ref.length());
    }
    return Optional.empty();
  }

  private static long length(Body body) {
    return body instanceof Body.Blob b ? b.length() : ((Body.Inline) body).length();
  }
}
