package dev.lethe.server;

import dev.lethe.server.config.ServerConfig;

import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.StoreConfig;
import dev.lethe.server.config.ConfigKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

/**
 * The local paths the server writes, checked by a real write before it serves a request
 * (docs/design/0410-operations.md §3): a directory gets a probe file written and removed, an
 * existing database file is opened for writing. A path that fails stops start-up with a {@link
 * ConfigException} naming the path and the key that set it (exit 2), instead of a server that
 * reports healthy and answers 500 to every write (H2 silently opens a read-only file read-only).
 *
 * <p>A permission check ({@code Files.isWritable}) would pass for root on a read-only directory,
 * and fail for a file system that ignores modes; only a write tells.
 */
final class WritablePaths {
  /**
   * One path to probe.
   *
   * @param what the path's role and the key that sets it, e.g. {@code data directory (lethe.data-dir)}
   * @param path the directory or file
   * @param file true for a file that may exist (opened for writing, never changed); false for a
   *     directory (created if missing, then written)
   */
  record Target(String what, Path path, boolean file) {}

  private WritablePaths() {}

  /**
   * The local paths of a configuration, in the order they are checked: the data directory, the
   * embedded H2 database (its directory and, when it exists, its {@code .mv.db} file) and a
   * {@code file:} store's directory. A server database or a {@code jdbc:} store has no local path.
   */
  static List<Target> of(ServerConfig config) {
    List<Target> targets = new ArrayList<>();
    targets.add(new Target("data directory (" + ConfigKeys.DATA_DIR + ")", config.dataDir(), false));
    h2File(config.effectiveJdbcUrl()).ifPresent(file -> {
      String what = "H2 database" + (config.jdbcUrl() == null ? " (" + ConfigKeys.DATA_DIR + ")" : " (" + ConfigKeys.JDBC_URL + ")");
      targets.add(new Target(what + " directory", file.toAbsolutePath().getParent(), false));
      targets.add(new Target(what + " file", file, true));
    });
    storeDirectory(config).ifPresent(dir -> targets.add(new Target("store directory (" + ConfigKeys.STORE_URI + ")", dir, false)));
    return targets;
  }

  /** The store URI a configuration serves; empty when start-up refuses it (with its own message, later). */
  private static Optional<String> storeUri(ServerConfig config) {
    try {
      return Optional.of(StoreConfig.choice(config).uri());
    } catch (ConfigException e) {
      return Optional.empty();
    }
  }

  /**
   * The {@code .mv.db} file of an embedded H2 URL ({@code jdbc:h2:[file:]PATH[;…]}); empty for an
   * in-memory, TCP or SSL URL and for any other database.
   */
  static Optional<Path> h2File(String jdbcUrl) {
    if (!jdbcUrl.startsWith("jdbc:h2:")) {
      return Optional.empty();
    }
    String rest = jdbcUrl.substring("jdbc:h2:".length());
    if (rest.startsWith("file:")) {
      rest = rest.substring("file:".length());
    } else if (rest.matches("(?i)^[a-z]{2,}:.*")) {
      return Optional.empty(); // mem:, tcp:, ssl:, zip:…: nothing local to write
    }
    int semicolon = rest.indexOf(';');
    String path = semicolon < 0 ? rest : rest.substring(0, semicolon);
    if (path.isEmpty()) {
      return Optional.empty();
    }
    if (path.startsWith("~")) {
      path = System.getProperty("user.home") + path.substring(1);
    }
    return Optional.of(Path.of(path + ".mv.db"));
  }

  /** The directory of the store a configuration serves (docs/design/0434-one-store-for-every-replica.md); empty when not local. */
  static Optional<Path> storeDirectory(ServerConfig config) {
    return storeUri(config).flatMap(WritablePaths::storeDirectory);
  }

  /** The directory of a {@code file:} or {@code git:} store URI; empty for a {@code jdbc:} store. */
  static Optional<Path> storeDirectory(String storeUri) {
    if (storeUri.startsWith(dev.lethe.store.git.GitStore.SCHEME)) {
      try {
        return dev.lethe.store.git.GitStore.directoryOf(storeUri);
      } catch (IllegalArgumentException e) {
        return Optional.empty(); // refused with its key by StoreConfig
      }
    }
    if (!storeUri.startsWith("file:")) {
      return Optional.empty();
    }
    String dir = storeUri.substring("file:".length());
    return Optional.of(Path.of(dir.startsWith("//") ? dir.substring(2) : dir));
  }

  /**
   * The local directory of a warehouse location (an absolute path or a {@code file:} URI); empty
   * for an object store ({@code s3://…}).
   */
  static Optional<Path> localWarehouse(String warehouse) {
    if (warehouse.startsWith("/")) {
      return Optional.of(Path.of(warehouse));
    }
    if (warehouse.toLowerCase(Locale.ROOT).startsWith("file:")) {
      String rest = warehouse.substring("file:".length());
      while (rest.startsWith("//")) {
        rest = rest.substring(1);
      }
      return Optional.of(Path.of(rest));
    }
    return Optional.empty();
  }

  /** Probes every target of {@link #of}. */
  static void check(ServerConfig config) {
    for (Target t : of(config)) {
      probe(t);
    }
  }

  /**
   * Writes to {@code target}: creates a missing directory and writes and removes a probe file in
   * it, or opens an existing file for writing (writing nothing).
   *
   * @throws ConfigException "Cannot write the {what} {path}: {reason}" when the write fails
   */
  static void probe(Target target) {
    Path path = target.path();
    try {
      if (target.file()) {
        if (Files.exists(path) || Files.isSymbolicLink(path)) {
          try (FileChannel ignored = FileChannel.open(path, StandardOpenOption.WRITE)) {
            // opening for writing is the probe: the database is not changed
          }
        }
        return;
      }
      Files.createDirectories(path);
      Path probe = path.resolve(".lethe-write-probe-" + UUID.randomUUID());
      try (FileChannel channel = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(new byte[] {1}));
      } finally {
        Files.deleteIfExists(probe);
      }
    } catch (IOException e) {
      throw new ConfigException("Cannot write the " + target.what() + " " + path + ": " + reason(e, path));
    }
  }

  /** The operating system's reason, naming the path it failed on when that is not {@code path}. */
  static String reason(IOException e, Path path) {
    String reason;
    if (e instanceof FileAlreadyExistsException) {
      reason = "exists and is not a directory";
    } else if (e instanceof AccessDeniedException) {
      reason = "permission denied";
    } else if (e instanceof NoSuchFileException) {
      reason = "no such file or directory";
    } else if (e instanceof FileSystemException f && f.getReason() != null) {
      reason = f.getReason();
    } else {
      return String.valueOf(e.getMessage());
    }
    String file = e instanceof FileSystemException f ? f.getFile() : null;
    return file == null || Path.of(file).equals(path) ? reason : reason + " (" + file + ")";
  }
}
