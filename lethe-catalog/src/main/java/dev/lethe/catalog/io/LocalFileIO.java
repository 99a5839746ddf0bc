package dev.lethe.catalog.io;

import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.DelegateFileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link org.apache.iceberg.io.FileIO} for the local filesystem without Hadoop, with bulk and
 * prefix operations (docs/design/0200-catalog-architecture.md "Drop paths": the purge deletes through this interface).
 *
 * <p>Locations are either absolute paths ({@code /data/wh/t/metadata/v1.metadata.json}) or
 * {@code file:} URIs ({@code file:/data/...} or {@code file:///data/...}), mapped to files by
 * {@link #toPath} (one parser for every rule, no URI decoding). Every file handed
 * out keeps the exact location string it was asked for, so metadata written through this FileIO
 * records the same spelling the catalog was configured with.
 *
 * <p>Deleting a file that does not exist is not an error: for a purge, "not found" counts as
 * deleted. Prefix operations only ever touch paths under the given prefix directory.
 */
public final class LocalFileIO implements DelegateFileIO {
  private static final Logger LOG = LoggerFactory.getLogger(LocalFileIO.class);

  private Map<String, String> properties = Map.of();

  /** Creates an uninitialised FileIO; {@link #initialize} is optional. */
  public LocalFileIO() {}

  @Override
  public void initialize(Map<String, String> props) {
    this.properties = Map.copyOf(props);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  /**
   * Maps a location to a local path through {@link LocationPath#parse}, the parser every rule that
   * compares or confines locations uses (docs/design/0001-purge-confinement-and-ownership.md §1), so
   * the file opened is the file the rules reasoned about. Characters are literal ({@code %20} is
   * three characters, as Hadoop's {@code Path} reads it); {@code /p}, {@code file:/p}, {@code
   * file:///p} and {@code file://localhost/p} are one file.
   *
   * @param location an absolute path or a {@code file:} URI, as written
   * @return the absolute local path, never null
   * @throws dev.lethe.catalog.location.InvalidLocationException (an {@link IllegalArgumentException})
   *     if the location is null, empty, relative, has a query {@code ?}, a fragment {@code #}, a
   *     {@code .} or {@code ..} segment, a {@code file:} authority other than empty or {@code
   *     localhost}, or is not a local location ({@code s3://…}); the message names it
   */
  public static Path toPath(String location) {
    LocationPath parsed = LocationPath.parse(location);
    if (!parsed.isFile()) {
      throw new InvalidLocationException(location, "not a local file location (scheme " + parsed.scheme()
          + "); LocalFileIO serves absolute paths and file: URIs only");
    }
    return Paths.get(parsed.path());
  }

  @Override
  public InputFile newInputFile(String location) {
    return new LocalInput(location, toPath(location).toFile(), -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return new LocalInput(location, toPath(location).toFile(), length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return new LocalOutput(location, toPath(location).toFile());
  }

  /** Deletes one file; a missing file is treated as already deleted. */
  @Override
  public void deleteFile(String location) {
    try {
      Files.deleteIfExists(toPath(location));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete file " + location, e);
    }
  }

  /**
   * Deletes every given file, continuing past failures.
   *
   * @throws BulkDeletionFailureException naming how many files could not be deleted; missing
   *     files are not failures
   */
  @Override
  public void deleteFiles(Iterable<String> locations) throws BulkDeletionFailureException {
    int failures = 0;
    for (String location : locations) {
      try {
        Files.deleteIfExists(toPath(location));
      } catch (IOException | RuntimeException e) {
        failures++;
        LOG.warn("Failed to delete file {}: {}", location, e.toString());
      }
    }
    if (failures > 0) {
      throw new BulkDeletionFailureException(failures);
    }
  }

  /** Lists every regular file under the prefix directory, recursively; none if it is absent. */
  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path root = toPath(prefix);
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    List<FileInfo> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      Iterator<Path> it = walk.iterator();
      while (it.hasNext()) {
        Path p = it.next();
        BasicFileAttributes attrs;
        try {
          attrs = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue;
        }
        if (attrs.isRegularFile()) {
          files.add(new FileInfo(locationUnder(prefix, root, p), attrs.size(), attrs.lastModifiedTime().toMillis()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list prefix " + prefix, e);
    }
    return files;
  }

  /** Deletes every file under the prefix directory and then the emptied directories. */
  @Override
  public void deletePrefix(String prefix) {
    Path root = toPath(prefix);
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      // deepest first so directories are empty when their turn comes
      for (Path p : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete prefix " + prefix, e);
    }
  }

  private static String locationUnder(String prefix, Path root, Path file) {
    String rel = root.relativize(file).toString().replace(File.separatorChar, '/');
    return prefix.endsWith("/") ? prefix + rel : prefix + "/" + rel;
  }

  private static final class LocalInput implements InputFile {
    private final String location;
    private final File file;
    private final long knownLength;

    LocalInput(String location, File file, long knownLength) {
      this.location = location;
      this.file = file;
      this.knownLength = knownLength;
    }

    @Override
    public long getLength() {
      return knownLength >= 0 ? knownLength : org.apache.iceberg.Files.localInput(file).getLength();
    }

    /**
     * Opens the file for reading.
     *
     * @throws NotFoundException if the file does not exist, worded as Iceberg's Hadoop FileIO
     *     words it, so clients and the REST Compatibility Kit see the same message
     */
    @Override
    public SeekableInputStream newStream() {
      if (!file.isFile()) {
        throw new NotFoundException("Failed to open input stream for file: %s", location);
      }
      return org.apache.iceberg.Files.localInput(file).newStream();
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      return file.exists();
    }
  }

  private static final class LocalOutput implements OutputFile {
    private final String location;
    private final File file;

    LocalOutput(String location, File file) {
      this.location = location;
      this.file = file;
    }

    @Override
    public PositionOutputStream create() {
      return org.apache.iceberg.Files.localOutput(file).create();
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return org.apache.iceberg.Files.localOutput(file).createOrOverwrite();
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public InputFile toInputFile() {
      return new LocalInput(location, file, -1);
    }
  }
}
