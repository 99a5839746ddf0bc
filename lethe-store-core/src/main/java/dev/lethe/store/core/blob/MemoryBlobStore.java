package dev.lethe.store.core.blob;

import dev.lethe.store.core.ContentHash;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** An in-memory {@link BlobStore} for tests and the {@code memory:} store. */
public final class MemoryBlobStore implements BlobStore {

  private record Entry(byte[] content, long storedAt) {}

  private final Map<String, Entry> blobs = new ConcurrentHashMap<>();
  private final Clock clock;

  /** @param clock source of stored times */
  public MemoryBlobStore(Clock clock) {
    this.clock = clock;
  }

  @Override
  public BlobRef put(byte[] content) {
    String hash = ContentHash.of(content);
    blobs.put(hash, new Entry(content.clone(), clock.millis()));
    return new BlobRef(hash, content.length);
  }

  @Override
  public boolean touch(String hash) {
    long now = clock.millis();
    // computeIfPresent is atomic per key, as remove's is: a touch and a removal never interleave
    return blobs.computeIfPresent(hash, (h, e) -> new Entry(e.content(), Math.max(e.storedAt(), now))) != null;
  }

  @Override
  public Optional<byte[]> get(String hash) {
    return Optional.ofNullable(blobs.get(hash)).map(e -> e.content().clone());
  }

  @Override
  public boolean contains(String hash) {
    return blobs.containsKey(hash);
  }

  @Override
  public List<BlobInfo> list() {
    List<BlobInfo> out = new ArrayList<>();
    blobs.forEach((h, e) -> out.add(new BlobInfo(h, e.content().length, e.storedAt())));
    return out;
  }

  @Override
  public boolean remove(String hash, long storedAtOrBeforeMs) {
    boolean[] removed = {false};
    blobs.computeIfPresent(hash, (h, e) -> {
      if (e.storedAt() <= storedAtOrBeforeMs) {
        removed[0] = true;
        return null;
      }
      return e;
    });
    return removed[0];
  }
}
