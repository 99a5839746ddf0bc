package dev.lethe.catalog.io;

import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.exceptions.AlreadyExistsException;
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
 *
 * <p>Every read, write, delete and listing follows no symbolic link below the catalog's allowed
 * locations ({@link ConfinedLocalFiles}): a location reached through one is refused with an {@link
 * InvalidLocationException} (docs/design/0007-no-symbolic-link-below-the-warehouse.md).
 *
 * <p>Clients load it by {@code io-impl} from the {@code lethe-fileio} jar, which depends on nothing
 * but Iceberg's API and SLF4J (docs/design/0435-lethe-fileio-client-artifact.md).
 */
public final class LocalFileIO implements DelegateFileIO {
  private static final Logger LOG = LoggerFactory.getLogger(LocalFileIO.class);

  private final ConfinedLocalFiles files;
  private Map<String, String> properties = Map.of();

  /**
   * Creates an uninitialised FileIO confined to the file system root ({@link
   * ConfinedLocalFiles#STRICT}: no symbolic link anywhere on a path); {@link #initialize} is
   * optional.
   */
  public LocalFileIO() {
    this(ConfinedLocalFiles.STRICT);
  }

  /**
   * Creates an uninitialised FileIO that follows no link below {@code files}' anchors.
   *
   * @param files the confinement, not null (lethe-catalog's {@code FileIOFactory} anchors it at the warehouse)
   */
  public LocalFileIO(ConfinedLocalFiles files) {
    this.files = Objects.requireNonNull(files, "Cannot create LocalFileIO: confinement is null");
  }

  @Override
  public void initialize(Map<String, String> props) {
    this.properties = Map.copyOf(props);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  /** The confinement every operation of this FileIO goes through, not null. */
  public ConfinedLocalFiles confinement() {
    return files;
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
    return new LocalInput(files, location, toPath(location), -1);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return new LocalInput(files, location, toPath(location), length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return new LocalOutput(files, location, toPath(location));
  }

  /**
   * Deletes one file; a missing file is treated as already deleted. A symbolic link is deleted
   * itself, never its target.
   *
   * @throws InvalidLocationException if a directory on the way is a symbolic link
   */
  @Override
  public void deleteFile(String location) {
    try {
      files.delete(toPath(location));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete file " + location, e);
    }
  }

  /**
   * Deletes every given file, continuing past failures (a location reached through a symbolic link
   * is one).
   *
   * @throws BulkDeletionFailureException naming how many files could not be deleted; missing
   *     files are not failures
   */
  @Override
  public void deleteFiles(Iterable<String> locations) throws BulkDeletionFailureException {
    int failures = 0;
    try (ConfinedLocalFiles.Deleter deleter = files.deleter()) {
      for (String location : locations) {
        try {
          deleter.delete(toPath(location));
        } catch (IOException | RuntimeException e) {
          failures++;
          LOG.warn("Failed to delete file {}: {}", location, e.toString());
        }
      }
    } catch (IOException closing) {
      LOG.warn("Cannot close a directory after deleting files: {}", closing.toString());
    }
    if (failures > 0) {
      throw new BulkDeletionFailureException(failures);
    }
  }

  /**
   * Lists every regular file under the prefix directory, recursively; none if it is absent.
   * Symbolic links are neither listed nor followed.
   *
   * @throws InvalidLocationException if the prefix is reached through a symbolic link
   */
  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path root = toPath(prefix);
    List<FileInfo> found = new ArrayList<>();
    try {
      files.walk(root, new ConfinedLocalFiles.Visitor() {
        @Override
        public FileVisitResult enter(Path dir) {
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult entry(Path file, BasicFileAttributes attrs, ConfinedLocalFiles.Remover remove) {
          if (attrs.isRegularFile() && !file.equals(root)) {
            found.add(new FileInfo(locationUnder(prefix, root, file), attrs.size(), attrs.lastModifiedTime().toMillis()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult leave(Path dir, ConfinedLocalFiles.Remover remove) {
          return FileVisitResult.CONTINUE;
        }

        @Override
        public void failed(Path path, IOException e) {
          throw new UncheckedIOException("Cannot list prefix " + prefix + " at " + path, e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list prefix " + prefix, e);
    }
    return found;
  }

  /**
   * Deletes every file under the prefix directory (a symbolic link itself, never its target) and
   * then the emptied directories, the prefix directory included.
   *
   * @throws InvalidLocationException if the prefix is reached through a symbolic link
   */
  @Override
  public void deletePrefix(String prefix) {
    Path root = toPath(prefix);
    try {
      files.walk(root, new ConfinedLocalFiles.Visitor() {
        @Override
        public FileVisitResult enter(Path dir) {
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult entry(Path file, BasicFileAttributes attrs, ConfinedLocalFiles.Remover remove) {
          try {
            remove.remove();
          } catch (NoSuchFileException gone) {
            // deleted meanwhile
          } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + file, e);
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult leave(Path dir, ConfinedLocalFiles.Remover remove) {
          return entry(dir, null, remove);
        }

        @Override
        public void failed(Path path, IOException e) {
          throw new UncheckedIOException("Cannot delete prefix " + prefix + " at " + path, e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete prefix " + prefix, e);
    }
  }

  private static String locationUnder(String prefix, Path root, Path file) {
    String rel = root.relativize(file).toString().replace(File.separatorChar, '/');
    return prefix.endsWith("/") ? prefix + rel : prefix + "/" + rel;
  }

  private static final class LocalInput implements InputFile {
    private final ConfinedLocalFiles files;
    private final String location;
    private final Path file;
    private final long knownLength;

    LocalInput(ConfinedLocalFiles files, String location, Path file, long knownLength) {
      this.files = files;
      this.location = location;
      this.file = file;
      this.knownLength = knownLength;
    }

    /**
     * @throws NotFoundException if the file does not exist
     * @throws InvalidLocationException if it is reached through a symbolic link
     */
    @Override
    public long getLength() {
      if (knownLength >= 0) {
        return knownLength;
      }
      BasicFileAttributes attrs = attributes().orElseThrow(
          () -> new NotFoundException("File does not exist: %s", location));
      if (attrs.isSymbolicLink()) {
        throw ConfinedLocalFiles.refused(file, file);
      }
      return attrs.size();
    }

    /**
     * Opens the file for reading.
     *
     * @throws NotFoundException if the file does not exist, worded as Iceberg's Hadoop FileIO
     *     words it, so clients and the REST Compatibility Kit see the same message
     * @throws InvalidLocationException if it is reached through a symbolic link
     */
    @Override
    public SeekableInputStream newStream() {
      try {
        return new ChannelInputStream(files.openForRead(file));
      } catch (NoSuchFileException e) {
        throw new NotFoundException("Failed to open input stream for file: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to open input stream for file: " + location, e);
      }
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      return attributes().isPresent();
    }

    private java.util.Optional<BasicFileAttributes> attributes() {
      try {
        return files.attributes(file);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read the attributes of " + location, e);
      }
    }
  }

  private static final class LocalOutput implements OutputFile {
    private final ConfinedLocalFiles files;
    private final String location;
    private final Path file;

    LocalOutput(ConfinedLocalFiles files, String location, Path file) {
      this.files = files;
      this.location = location;
      this.file = file;
    }

    /**
     * @throws AlreadyExistsException if the file exists
     * @throws InvalidLocationException if it is reached through a symbolic link
     */
    @Override
    public PositionOutputStream create() {
      try {
        return new ChannelOutputStream(files.create(file, false));
      } catch (FileAlreadyExistsException e) {
        throw new AlreadyExistsException("File already exists: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to create file: " + location, e);
      }
    }

    /** @throws InvalidLocationException if the file is reached through a symbolic link */
    @Override
    public PositionOutputStream createOrOverwrite() {
      try {
        return new ChannelOutputStream(files.create(file, true));
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to create file: " + location, e);
      }
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public InputFile toInputFile() {
      return new LocalInput(files, location, file, -1);
    }
  }
}
