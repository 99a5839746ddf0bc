package dev.lethe.catalog.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.util.JsonUtil;

/**
 * The tally of one cleanup job: files and bytes deleted per {@link FileKind}, files kept per {@link
 * KeptReason} and files left over (could not be deleted), each with a bounded sample of paths
 * (docs/design/0445-job-progress-and-receipts.md). Stored as JSON on the job row (its progress, and
 * its checkpoint as of the last finished phase) and in the receipt. Thread-safe: the delete pool's
 * threads add to it while the runner's thread writes it.
 *
 * <p>Bytes are the sizes Iceberg's metadata gives (data and delete files, manifests, statistics) or
 * the listing's (swept files); a file of unknown size (manifest lists, metadata files) is counted in
 * {@code unknownSizes} and adds no bytes, so the bytes are then a lower bound.
 */
public final class JobProgress {
  /** Most paths kept in each sample. */
  public static final int SAMPLE = 10;

  /**
   * Files deleted of one kind.
   *
   * @param files files gone (a file already gone counts)
   * @param bytes their bytes, as far as known
   * @param unknownSizes how many of them had no known size (their bytes are not in {@code bytes})
   */
  public record Count(long files, long bytes, long unknownSizes) {
    Count plus(long f, long b, long u) {
      return new Count(files + f, bytes + b, unknownSizes + u);
    }
  }

  /**
   * Files counted for one reason.
   *
   * @param count how many
   * @param sample at most {@link #SAMPLE} of their paths, as stored (absolute)
   */
  public record Sample(long count, List<String> sample) {}

  private final Map<FileKind, Count> deleted = new EnumMap<>(FileKind.class);
  private final Map<KeptReason, Long> keptCounts = new EnumMap<>(KeptReason.class);
  private final Map<KeptReason, List<String>> keptSamples = new EnumMap<>(KeptReason.class);
  private long leftoverCount;
  private final List<String> leftoverSample = new ArrayList<>();

  /** An empty tally. */
  public JobProgress() {
    for (FileKind k : FileKind.values()) {
      deleted.put(k, new Count(0, 0, 0));
    }
  }

  /** Adds deleted files of one kind. */
  public synchronized void deleted(FileKind kind, long files, long bytes, long unknownSizes) {
    deleted.merge(kind, new Count(files, bytes, unknownSizes), (a, b) -> a.plus(b.files(), b.bytes(), b.unknownSizes()));
  }

  /** Adds one kept file. */
  public synchronized void kept(KeptReason reason, String path) {
    keptCounts.merge(reason, 1L, Long::sum);
    List<String> s = keptSamples.computeIfAbsent(reason, r -> new ArrayList<>());
    if (s.size() < SAMPLE && path != null) {
      s.add(path);
    }
  }

  /**
   * Adds files that could not be deleted.
   *
   * @param count how many
   * @param examples some of their paths (only the first {@link #SAMPLE} overall are kept)
   */
  public synchronized void leftovers(long count, List<String> examples) {
    leftoverCount += count;
    for (String p : examples) {
      if (leftoverSample.size() < SAMPLE && !leftoverSample.contains(p)) {
        leftoverSample.add(p);
      }
    }
  }

  /** Files deleted of every kind. */
  public synchronized long files() {
    return deleted.values().stream().mapToLong(Count::files).sum();
  }

  /** Known bytes deleted of every kind. */
  public synchronized long bytes() {
    return deleted.values().stream().mapToLong(Count::bytes).sum();
  }

  /** Deleted files of unknown size: when above 0, {@link #bytes()} is a lower bound. */
  public synchronized long unknownSizes() {
    return deleted.values().stream().mapToLong(Count::unknownSizes).sum();
  }

  /** Files deleted per kind, every kind present. */
  public synchronized Map<FileKind, Count> deletedByKind() {
    return Collections.unmodifiableMap(new EnumMap<>(deleted));
  }

  /** Files kept per reason, only reasons that occurred. */
  public synchronized Map<KeptReason, Sample> kept() {
    Map<KeptReason, Sample> out = new EnumMap<>(KeptReason.class);
    keptCounts.forEach((r, n) -> out.put(r, new Sample(n, List.copyOf(keptSamples.getOrDefault(r, List.of())))));
    return out;
  }

  /** Files that could not be deleted in the latest run. */
  public synchronized Sample leftovers() {
    return new Sample(leftoverCount, List.copyOf(leftoverSample));
  }

  /** A copy without the leftovers: the start of a new run from a stored checkpoint. */
  public synchronized JobProgress withoutLeftovers() {
    JobProgress copy = fromJson(toJson());
    copy.leftoverCount = 0;
    copy.leftoverSample.clear();
    return copy;
  }

  /** The JSON stored on the job row and in the receipt. */
  public synchronized String toJson() {
    ObjectNode root = JsonUtil.mapper().createObjectNode();
    ObjectNode d = root.putObject("deleted");
    deleted.forEach((k, c) -> d.putObject(k.name()).put("files", c.files()).put("bytes", c.bytes())
        .put("unknownSizes", c.unknownSizes()));
    ObjectNode kept = root.putObject("kept");
    keptCounts.forEach((r, n) -> {
      ObjectNode o = kept.putObject(r.name()).put("count", n);
      ArrayNode a = o.putArray("sample");
      keptSamples.getOrDefault(r, List.of()).forEach(a::add);
    });
    ObjectNode left = root.putObject("leftovers").put("count", leftoverCount);
    ArrayNode a = left.putArray("sample");
    leftoverSample.forEach(a::add);
    return root.toString();
  }

  /**
   * A tally read back from its JSON.
   *
   * @param json as {@link #toJson()} wrote it; null or blank gives an empty tally
   * @throws IllegalArgumentException if the text is not such JSON
   */
  public static JobProgress fromJson(String json) {
    JobProgress p = new JobProgress();
    if (json == null || json.isBlank()) {
      return p;
    }
    JsonNode root;
    try {
      root = JsonUtil.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot read job progress: not JSON: " + e.getOriginalMessage(), e);
    }
    root.path("deleted").fields().forEachRemaining(e -> {
      FileKind k = FileKind.valueOf(e.getKey());
      p.deleted.put(k, new Count(e.getValue().path("files").asLong(), e.getValue().path("bytes").asLong(),
          e.getValue().path("unknownSizes").asLong()));
    });
    root.path("kept").fields().forEachRemaining(e -> {
      KeptReason r = KeptReason.valueOf(e.getKey());
      p.keptCounts.put(r, e.getValue().path("count").asLong());
      List<String> s = new ArrayList<>();
      e.getValue().path("sample").forEach(n -> s.add(n.asText()));
      p.keptSamples.put(r, s);
    });
    p.leftoverCount = root.path("leftovers").path("count").asLong();
    root.path("leftovers").path("sample").forEach(n -> p.leftoverSample.add(n.asText()));
    return p;
  }
}
