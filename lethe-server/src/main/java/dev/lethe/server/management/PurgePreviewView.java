package dev.lethe.server.management;

import dev.lethe.catalog.jobs.PurgePhase;
import dev.lethe.catalog.purge.PurgePreview;
import dev.lethe.catalog.softdelete.PurgePreviews;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The body of {@code GET …/tables/{t}/purge-preview} (docs/design/0442-purge-preview.md):
 *
 * <pre>{@code
 * {"name", "namespace": [..], "state": "LIVE"|"DELETED", "wouldFail": null|"why",
 *  "metadataLocation", "roots": [..], "excluded": [..], "gcEnabled",
 *  "wouldDelete": {"total", "bytes", "exact",
 *                  "kinds": {"dataAndDeleteFiles": {"files", "bytes", "sample": [..]}, "manifests": …,
 *                  "manifestLists", "statisticsFiles", "partitionStatisticsFiles", "previousMetadataFiles",
 *                  "currentMetadataFile", "unnamedUnderRoots": {"files", "bytes", "sample", "exact"}},
 *                  "bytesByKind": {"dataFiles": {"files", "bytes"}, "deleteFiles", "manifests", "manifestLists",
 *                  "statisticsFiles", "metadataFiles", "other"}},
 *  "alreadyGone": {"files", "bytes", "sample"},
 *  "wouldKeep": {"total", "reasons": {"OUTSIDE_ROOTS": {"files", "bytes": 0, "sample": ["path (reason)"]}, …}},
 *  "filesUnderRoots", "listable"}
 * }</pre>
 *
 * Bytes are sizes in bytes; "alreadyGone" counts files the metadata names that no longer exist (the
 * purge's delete of them changes nothing).
 *
 * Samples hold at most {@link PurgePreview#DEFAULT_SAMPLE} entries each. Every path is as stored
 * for an admin, through {@link LastErrorRedaction#forReader} for anyone else.
 */
final class PurgePreviewView {
  private PurgePreviewView() {}

  static Map<String, Object> of(TableIdentifier id, PurgePreviews.Previewed p, boolean admin) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", id.name());
    m.put("namespace", Arrays.asList(id.namespace().levels()));
    m.put("state", p.state());
    PurgePreview.Report r = p.report();
    if (r == null) {
      m.put("wouldFail", p.wouldFail());
      return m;
    }
    UnaryOperator<String> show = admin ? s -> s : s -> LastErrorRedaction.forReader(s, r.metadataLocation());
    m.put("wouldFail", null);
    m.put("metadataLocation", show.apply(r.metadataLocation()));
    m.put("roots", r.roots().stream().map(show).toList());
    m.put("excluded", r.excluded().stream().map(show).toList());
    m.put("gcEnabled", r.gcEnabled());
    Map<String, Object> kinds = new LinkedHashMap<>();
    r.wouldDelete().forEach((phase, t) -> kinds.put(key(phase), tally(t, show)));
    Map<String, Object> sweep = tally(r.sweep(), show);
    sweep.put("exact", r.exact());
    kinds.put("unnamedUnderRoots", sweep);
    Map<String, Object> byKind = new LinkedHashMap<>();
    r.byKind().forEach((kind, a) -> byKind.put(key(kind.name()), Map.of("files", a.files(), "bytes", a.bytes())));
    Map<String, Object> wouldDelete = new LinkedHashMap<>();
    wouldDelete.put("total", r.totalWouldDelete());
    wouldDelete.put("bytes", r.totalBytes());
    wouldDelete.put("exact", r.exact());
    wouldDelete.put("kinds", kinds);
    wouldDelete.put("bytesByKind", byKind);
    m.put("wouldDelete", wouldDelete);
    m.put("alreadyGone", tally(r.missing(), show));
    Map<String, Object> reasons = new LinkedHashMap<>();
    r.wouldKeep().forEach((reason, t) -> reasons.put(reason.name(), tally(t, show)));
    long kept = r.wouldKeep().values().stream().mapToLong(PurgePreview.Tally::files).sum();
    m.put("wouldKeep", Map.of("total", kept, "reasons", reasons));
    m.put("filesUnderRoots", r.filesUnderRoots());
    m.put("listable", r.listable());
    return m;
  }

  private static Map<String, Object> tally(PurgePreview.Tally t, UnaryOperator<String> show) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("files", t.files());
    m.put("bytes", t.bytes());
    m.put("sample", t.sample().stream().map(show).toList());
    return m;
  }

  /** {@code DATA_AND_DELETE_FILES} → {@code dataAndDeleteFiles}. */
  static String key(PurgePhase phase) {
    return key(phase.name());
  }

  /** {@code DELETE_FILES} → {@code deleteFiles}. */
  private static String key(String name) {
    String[] words = name.toLowerCase(java.util.Locale.ROOT).split("_");
    StringBuilder b = new StringBuilder(words[0]);
    for (int i = 1; i < words.length; i++) {
      b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
    }
    return b.toString();
  }
}
