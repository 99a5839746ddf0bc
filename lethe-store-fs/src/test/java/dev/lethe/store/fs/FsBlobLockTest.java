package dev.lethe.store.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gc's removal of an fs blob holds the blob's lock (docs/design/0120-a-reused-blob-is-refreshed.md):
 * a write or refresh of the same blob by another writer never lands between its check of the
 * stored time and the unlink.
 */
class FsBlobLockTest {

  @TempDir Path root;
  private final MutableClock clock = MutableClock.at2026();
  private final ExecutorService gc = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    gc.shutdownNow();
  }

  @Test
  void aRemovalWaitsForARefreshOfTheSameBlobAndThenKeepsIt() throws Exception {
    try (FsStore store = new FsStore(root, 32, clock)) {
      BlobRef blob = store.blobs().put("old".getBytes(StandardCharsets.UTF_8));
      Path file = root.resolve(FsBlobStore.DIR).resolve(blob.hash().substring(0, 2)).resolve(blob.hash());
      clock.advance(Duration.ofHours(2));
      long cutoff = clock.millis() - Duration.ofHours(1).toMillis();
      FsKeyLocks locks = FsKeyLocks.open(root);
      try {
        boolean removed = locks.lockedBlob(blob.hash(), () -> {
          // another writer holds the blob's lock: the gc's removal must wait for it, not check
          // the (old) time and unlink now
          Future<Boolean> removal = gc.submit(() -> store.blobs().remove(blob.hash(), cutoff));
          assertThatThrownBy(() -> removal.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
          assertThat(file).exists();
          Files.setLastModifiedTime(file, FileTime.fromMillis(clock.millis())); // the writer's refresh
          return removal;
        }).get(30, TimeUnit.SECONDS);
        assertThat(removed).isFalse();
        assertThat(store.blobs().get(blob.hash())).isPresent();
      } finally {
        locks.register(new Object()).clean();
      }
    }
  }
}
