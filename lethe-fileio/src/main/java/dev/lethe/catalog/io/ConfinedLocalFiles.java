package dev.lethe.catalog.io;

import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.io.FileIO;

/**
 * Local file operations that follow no symbolic link below a confining directory, so the file
 * acted on is the file its location names (docs/design/0007-no-symbolic-link-below-the-warehouse.md).
 *
 * <p>The confining directories (<em>anchors</em>) are the catalog's allowed locations: its warehouse
 * and the entries of {@code allowed-locations}. An anchor itself may be reached through links (the
 * operator chose it); below it every directory is opened with {@link LinkOption#NOFOLLOW_LINKS},
 * each relative to the one before ({@link SecureDirectoryStream}, {@code openat(O_NOFOLLOW)}), and
 * the file is opened, created or unlinked relative to its opened parent. A link put in place at any
 * moment, before or during the operation, makes the open fail instead of leading elsewhere. A path
 * below no anchor is confined to the file system root: no component of it may be a link.
 *
 * <p>Immutable and thread-safe. Serializable as its anchors' path strings, so a {@link LocalFileIO}
 * that an engine ships to its workers (Spark broadcasts the table with its FileIO) keeps its
 * confinement there (docs/design/0435-lethe-fileio-client-artifact.md).
 */
public final class ConfinedLocalFiles implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
  private static final Path FS_ROOT = Path.of("/");

  /** No anchor but the file system root: no component of any path may be a symbolic link. */
  public static final ConfinedLocalFiles STRICT = new ConfinedLocalFiles(List.of());

  private final List<Path> anchors;

  private ConfinedLocalFiles(List<Path> anchors) {
    List<Path> sorted = new ArrayList<>(anchors);
    sorted.add(FS_ROOT);
    // the deepest anchor containing a path confines it
    sorted.sort(Comparator.comparingInt(Path::getNameCount).reversed());
    this.anchors = List.copyOf(sorted);
  }

  /**
   * Confinement to the given directories; locations that are not local ({@code s3://…}) are
   * ignored.
   *
   * @param anchors the catalog's allowed locations, not null
   */
  public static ConfinedLocalFiles of(List<LocationPath> anchors) {
    Objects.requireNonNull(anchors, "Cannot confine local files: anchors are null");
    return new ConfinedLocalFiles(anchors.stream().filter(LocationPath::isFile).map(a -> Path.of(a.path())).toList());
  }

  /** The confinement of {@code io}'s local files: a {@link LocalFileIO}'s own, else {@link #STRICT}. */
  public static ConfinedLocalFiles of(FileIO io) {
    return io instanceof LocalFileIO local ? local.confinement() : STRICT;
  }

  /** The confining directories, deepest first, the file system root last. */
  public List<Path> anchors() {
    return anchors;
  }

  // a Path is not Serializable: the serialized form is the anchors' strings, root left out
  private Object writeReplace() {
    return new SerializedForm(anchors.stream().filter(a -> !a.equals(FS_ROOT)).map(Path::toString).toList());
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("ConfinedLocalFiles is read through its serialized form only");
  }

  private record SerializedForm(List<String> anchors) implements Serializable {
    private Object readResolve() {
      return anchors.isEmpty() ? STRICT : new ConfinedLocalFiles(anchors.stream().map(Path::of).toList());
    }
  }

  /**
   * The first symbolic link on the way from the anchor confining {@code location} to it, the
   * location itself included; checked with {@code lstat}, component by component, at the time of
   * the call (the operations of this class check again when they open).
   *
   * @param location a local location, not null
   * @return the link's path, or empty when there is none (or the way ends at a missing component)
   */
  public Optional<Path> linkOnTheWay(LocationPath location) {
    Path file = Path.of(location.path());
    Path anchor = anchorFor(file);
    Path at = anchor;
    for (Path name : components(anchor, file)) {
      at = at.resolve(name);
      BasicFileAttributes attrs;
      try {
        attrs = Files.readAttributes(at, BasicFileAttributes.class, NOFOLLOW);
      } catch (IOException missingOrDenied) {
        return Optional.empty();
      }
      if (attrs.isSymbolicLink()) {
        return Optional.of(at);
      }
    }
    return Optional.empty();
  }

  /**
   * Opens a regular file for reading.
   *
   * @throws NoSuchFileException if it (or a directory on the way) does not exist, or is not a
   *     regular file
   * @throws InvalidLocationException if it or a directory on the way is a symbolic link
   */
  public SeekableByteChannel openForRead(Path file) throws IOException {
    try (Parent parent = parent(file, false)) {
      BasicFileAttributes attrs = parent.attributes();
      if (attrs != null && attrs.isSymbolicLink()) {
        throw refused(file, file);
      }
      if (attrs == null || !attrs.isRegularFile()) {
        throw new NoSuchFileException(file.toString());
      }
      return parent.open(Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
    }
  }

  /**
   * Creates a file for writing, creating missing parent directories (each opened without following
   * links once created).
   *
   * @param overwrite false fails on an existing entry ({@link FileAlreadyExistsException}); true
   *     truncates an existing regular file
   * @throws InvalidLocationException if it or a directory on the way is a symbolic link
   */
  public SeekableByteChannel create(Path file, boolean overwrite) throws IOException {
    try (Parent parent = parent(file, true)) {
      Set<OpenOption> options = overwrite
          ? Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
              LinkOption.NOFOLLOW_LINKS)
          : Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW, LinkOption.NOFOLLOW_LINKS);
      return parent.open(options);
    }
  }

  /**
   * The attributes of {@code file} itself (a link is not followed), or empty when it does not
   * exist.
   *
   * @throws InvalidLocationException if a directory on the way is a symbolic link
   */
  public Optional<BasicFileAttributes> attributes(Path file) throws IOException {
    try (Parent parent = parent(file, false)) {
      return Optional.ofNullable(parent.attributes());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * Deletes a file, a symbolic link (never its target) or an empty directory.
   *
   * @return false if there was nothing to delete
   * @throws InvalidLocationException if a directory on the way is a symbolic link
   * @throws IOException if it cannot be deleted (a directory that is not empty, no permission)
   */
  public boolean delete(Path file) throws IOException {
    try (Parent parent = parent(file, false)) {
      return parent.delete();
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /**
   * A deleter for many files, as {@link #delete} deletes one, that keeps the last opened parent
   * directory for the next file in the same directory (a purge's batches come directory by
   * directory). Confined to one thread; close it.
   */
  public Deleter deleter() {
    return new Deleter();
  }

  /** See {@link #deleter()}. */
  public final class Deleter implements AutoCloseable {
    private Parent open;

    private Deleter() {}

    /**
     * Deletes a file, a symbolic link (never its target) or an empty directory.
     *
     * @return false if there was nothing to delete
     * @throws InvalidLocationException if a directory on the way is a symbolic link
     */
    public boolean delete(Path file) throws IOException {
      if (open == null || !open.file.getParent().equals(file.getParent())) {
        close();
        try {
          open = parent(file, false);
        } catch (NoSuchFileException e) {
          return false;
        }
      }
      return open.named(file).delete();
    }

    @Override
    public void close() throws IOException {
      Parent p = open;
      open = null;
      if (p != null) {
        p.close();
      }
    }
  }

  /**
   * Walks the tree at {@code root} without following links: directories are entered relative to
   * their opened parent, so a directory replaced by a link during the walk is never entered. One
   * open directory per level; nothing is collected.
   *
   * @param root a file or directory; a missing root is an empty walk; a root that is itself a
   *     symbolic link is reported to {@link Visitor#entry} (as a link) and not entered
   * @throws InvalidLocationException if a directory on the way to the root is a symbolic link
   */
  public void walk(Path root, Visitor visitor) throws IOException {
    Objects.requireNonNull(visitor, "Cannot walk: visitor is null");
    try (Parent parent = parent(root, false)) {
      BasicFileAttributes attrs = parent.attributes();
      if (attrs == null) {
        return;
      }
      if (!attrs.isDirectory()) {
        visitor.entry(root, attrs, parent::delete);
        return;
      }
      SecureDirectoryStream<Path> dir;
      try {
        dir = parent.dir.newDirectoryStream(parent.name, NOFOLLOW);
      } catch (NoSuchFileException gone) {
        return;
      }
      walkDirectory(dir, root, () -> parent.dir.deleteDirectory(parent.name), visitor);
    } catch (NoSuchFileException missing) {
      // a directory on the way does not exist: nothing to walk
    }
  }

  private FileVisitResult walkDirectory(SecureDirectoryStream<Path> dir, Path path, Remover self, Visitor visitor)
      throws IOException {
    try (dir) {
      FileVisitResult entered = visitor.enter(path);
      if (entered == FileVisitResult.SKIP_SUBTREE) {
        return FileVisitResult.CONTINUE;
      }
      if (entered == FileVisitResult.TERMINATE) {
        return entered;
      }
      Iterator<Path> children = dir.iterator();
      while (true) {
        Path child;
        try {
          if (!children.hasNext()) {
            break;
          }
          child = children.next();
        } catch (DirectoryIteratorException e) {
          visitor.failed(path, e.getCause());
          break;
        }
        Path name = child.getFileName();
        Path childPath = path.resolve(name);
        BasicFileAttributes attrs;
        try {
          attrs = dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW).readAttributes();
        } catch (NoSuchFileException gone) {
          continue;
        } catch (IOException e) {
          visitor.failed(childPath, e);
          continue;
        }
        FileVisitResult r;
        if (attrs.isDirectory()) {
          SecureDirectoryStream<Path> sub;
          try {
            sub = dir.newDirectoryStream(name, NOFOLLOW);
          } catch (NoSuchFileException gone) {
            continue;
          } catch (IOException e) {
            // replaced by a link (or a file) since it was listed: not entered
            visitor.failed(childPath, e);
            continue;
          }
          r = walkDirectory(sub, childPath, () -> dir.deleteDirectory(name), visitor);
        } else {
          r = visitor.entry(childPath, attrs, () -> dir.deleteFile(name));
        }
        if (r == FileVisitResult.TERMINATE) {
          return r;
        }
      }
    }
    return visitor.leave(path, self);
  }

  /** What a {@link #walk} reports; {@link FileVisitResult#TERMINATE} ends the walk. */
  public interface Visitor {
    /** A directory, before its entries: {@code SKIP_SUBTREE} skips it (and its {@link #leave}). */
    FileVisitResult enter(Path dir);

    /**
     * An entry that is not a directory: a regular file, a symbolic link (never followed), or
     * another kind; {@code remove} unlinks it relative to its opened parent.
     */
    FileVisitResult entry(Path file, BasicFileAttributes attrs, Remover remove);

    /** A directory, after its entries; {@code remove} removes it if it is empty. */
    FileVisitResult leave(Path dir, Remover remove);

    /** An entry that could not be read or entered. */
    void failed(Path path, IOException e);
  }

  /** Removes the entry it was handed with. */
  @FunctionalInterface
  public interface Remover {
    /** @throws IOException if it cannot be removed (a directory that is not empty, no permission) */
    void remove() throws IOException;
  }

  /**
   * The deepest anchor containing {@code file}; for an anchor itself, its parent (an anchor is
   * opened by its path, links above it followed: the operator chose it).
   */
  private Path anchorFor(Path file) {
    for (Path a : anchors) {
      if (file.startsWith(a)) {
        return file.equals(a) && a.getParent() != null ? a.getParent() : a;
      }
    }
    return FS_ROOT;
  }

  private static Iterable<Path> components(Path from, Path to) {
    Path rel = from.relativize(to);
    return rel.toString().isEmpty() ? List.of() : rel;
  }

  /**
   * Opens, without following links, every directory from the confining anchor to {@code file}'s
   * parent.
   */
  private Parent parent(Path file, boolean createDirectories) throws IOException {
    Path name = file.getFileName();
    if (name == null) {
      throw new InvalidLocationException(file.toString(), "the file system root is not a file");
    }
    Path anchor = anchorFor(file);
    if (createDirectories && !Files.isDirectory(anchor)) {
      Files.createDirectories(anchor);
    }
    DirectoryStream<Path> opened = Files.newDirectoryStream(anchor);
    if (!(opened instanceof SecureDirectoryStream<Path> dir)) {
      opened.close();
      throw new IOException("Cannot open " + file + " without following links: this platform has no "
          + "SecureDirectoryStream");
    }
    Path at = anchor;
    try {
      for (Path component : components(anchor, file.getParent())) {
        at = at.resolve(component);
        SecureDirectoryStream<Path> next = openDirectory(dir, at, component, file, createDirectories);
        dir.close();
        dir = next;
      }
    } catch (IOException | RuntimeException e) {
      dir.close();
      throw e;
    }
    return new Parent(dir, name, file);
  }

  private static SecureDirectoryStream<Path> openDirectory(SecureDirectoryStream<Path> dir, Path at, Path component,
      Path file, boolean create) throws IOException {
    try {
      return dir.newDirectoryStream(component, NOFOLLOW);
    } catch (NoSuchFileException missing) {
      if (!create) {
        throw missing;
      }
    } catch (IOException e) {
      throw refusedIfLink(dir, component, at, file, e);
    }
    try {
      // no mkdirat in java.nio: created by path, then opened relative to the parent without following
      Files.createDirectory(at);
    } catch (FileAlreadyExistsException raced) {
      // created meanwhile (or a link put there): the open below decides
    }
    try {
      return dir.newDirectoryStream(component, NOFOLLOW);
    } catch (IOException e) {
      throw refusedIfLink(dir, component, at, file, e);
    }
  }

  private static IOException refusedIfLink(SecureDirectoryStream<Path> dir, Path name, Path at, Path file,
      IOException e) {
    if (isLink(dir, name)) {
      throw refused(file, at);
    }
    return e;
  }

  private static boolean isLink(SecureDirectoryStream<Path> dir, Path name) {
    try {
      return dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW).readAttributes().isSymbolicLink();
    } catch (IOException e) {
      return false;
    }
  }

  static InvalidLocationException refused(Path file, Path link) {
    // docs/design/0007-no-symbolic-link-below-the-warehouse.md
    return new InvalidLocationException(file.toString(), "reached through the symbolic link " + link
        + " (Lethe follows no symbolic link below the catalog's warehouse and allowed locations)");
  }

  /** An opened parent directory and the name of the entry in it. */
  private static final class Parent implements AutoCloseable {
    final SecureDirectoryStream<Path> dir;
    final Path name;
    final Path file;

    Parent(SecureDirectoryStream<Path> dir, Path name, Path file) {
      this.dir = dir;
      this.name = name;
      this.file = file;
    }

    /** Another entry of the same opened directory; closing this one closes the directory. */
    Parent named(Path other) {
      return other.equals(file) ? this : new Parent(dir, other.getFileName(), other);
    }

    /** The entry's own attributes (a link is not followed), or null if it does not exist. */
    BasicFileAttributes attributes() throws IOException {
      try {
        return dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW).readAttributes();
      } catch (NoSuchFileException e) {
        return null;
      }
    }

    SeekableByteChannel open(Set<OpenOption> options) throws IOException {
      try {
        return dir.newByteChannel(name, options);
      } catch (FileAlreadyExistsException | NoSuchFileException e) {
        throw e;
      } catch (IOException e) {
        if (isLink(dir, name)) {
          throw refused(file, file);
        }
        throw e;
      }
    }

    boolean delete() throws IOException {
      BasicFileAttributes attrs = attributes();
      if (attrs == null) {
        return false;
      }
      try {
        if (attrs.isDirectory()) {
          dir.deleteDirectory(name);
        } else {
          dir.deleteFile(name);
        }
        return true;
      } catch (NoSuchFileException e) {
        return false;
      }
    }

    @Override
    public void close() throws IOException {
      dir.close();
    }
  }
}
