package dev.lethe.server.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.util.ThreadPools;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The principals of an auth file, re-read when its content changes (docs/design/0425-auth-file-reload.md):
 * a poll every {@code intervalMs} (and {@link #check()} on demand, as on SIGHUP) compares the
 * file's bytes with the last ones looked at; new content is validated in full before it replaces
 * the principals, and content that does not validate keeps the old ones and logs one line, once.
 */
public final class AuthFileWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AuthFileWatch.class);

  private final Path file;
  private final AuthFileLoader loader = new AuthFileLoader();
  private final AtomicReference<Authorizer> current = new AtomicReference<>();
  private final ScheduledExecutorService timer;
  private byte[] seen; // the content last looked at, valid or not; guarded by this
  private int principals; // of the principals in use; guarded by this

  /**
   * Loads the file and, when {@code intervalMs > 0}, starts polling it on a daemon thread.
   *
   * @param intervalMs ms between two looks at the file; 0 = only on {@link #check()}
   * @throws InvalidAuthFileException if the file does not validate (nothing is started)
   */
  public AuthFileWatch(Path file, long intervalMs) {
    this.file = file;
    this.seen = read();
    AuthFile loaded = loader.load(file);
    this.current.set(Authorizer.of(loaded));
    this.principals = loaded.principals().size();
    if (intervalMs > 0) {
      timer = ThreadPools.newScheduledPool("lethe-auth-reload", 1);
      timer.scheduleWithFixedDelay(this::check, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    } else {
      timer = null;
    }
  }

  /** The principals in use now, never null. */
  public Authorizer authorizer() {
    return current.get();
  }

  /** How many principals are in use now. */
  public synchronized int principals() {
    return principals;
  }

  /**
   * Looks at the file once: new content that validates replaces the principals.
   *
   * @return true if the principals were replaced
   */
  public synchronized boolean check() {
    byte[] now = read();
    if (Arrays.equals(now, seen)) {
      return false;
    }
    seen = now;
    try {
      AuthFile loaded = loader.load(file);
      current.set(Authorizer.of(loaded));
      LOG.info("Auth file reloaded: {} principal(s) from {} (before: {})", loaded.principals().size(), file, principals);
      principals = loaded.principals().size();
      return true;
    } catch (InvalidAuthFileException e) {
      LOG.warn("Auth file not reloaded, keeping the {} principal(s) in use: {}", principals, e.getMessage());
      return false;
    } catch (RuntimeException e) {
      LOG.warn("Auth file not reloaded, keeping the {} principal(s) in use: {}: {}", principals, file, e.toString());
      return false;
    }
  }

  /** The file's bytes, or null when it cannot be read (the load then says why). */
  private byte[] read() {
    try {
      return Files.readAllBytes(file);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Stops polling; the principals in use stay in use. */
  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
