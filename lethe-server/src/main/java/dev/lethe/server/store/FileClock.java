package dev.lethe.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that reads "now" (ms since the epoch, decimal) from a file on every call: the store
 * clock of a test server ({@code lethe.store.testing.clock-file}), so that a conformance suite in
 * another process can move it (docs/design/0104-remote-store-client.md). Never configured in
 * production.
 */
final class FileClock extends Clock {
  private final Path file;

  FileClock(Path file) {
    this.file = file;
  }

  @Override
  public long millis() {
    try {
      return Long.parseLong(Files.readString(file).trim());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the store's clock file " + file, e);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("The store's clock file " + file + " does not hold ms since the epoch");
    }
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
