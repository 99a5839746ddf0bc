package dev.lethe.catalog.purge;

import dev.lethe.catalog.location.LocationPath;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.util.LocationUtil;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;
import org.apache.iceberg.view.ViewProperties;

/**
 * The metadata files of a dropped view besides its current one: what a view purge deletes before the
 * current file (docs/design/0005-a-purged-view-leaves-nothing.md). View metadata keeps no log of its
 * earlier files, so they are found by listing the directories the view writes into (the current
 * file's directory and its {@code write.metadata.path}, else {@code <location>/metadata}) and
 * reading each {@code *.metadata.json} there: a file is the view's when it parses as view metadata
 * with the view's {@code view-uuid}. Views may share a directory, so anything else — another view's
 * file, one that does not parse, a file another entry claims — is never returned.
 */
final class ViewVersions {
  private ViewVersions() {}

  /**
   * The directories a view's metadata files live in, current file's first.
   *
   * @param current the view's current metadata, not null
   * @param currentFile its location
   */
  static List<LocationPath> directories(ViewMetadata current, LocationPath currentFile) {
    Set<LocationPath> out = new LinkedHashSet<>();
    currentFile.parent().ifPresent(out::add);
    String custom = current.properties().get(ViewProperties.WRITE_METADATA_LOCATION);
    String dir = custom != null ? LocationUtil.stripTrailingSlash(custom)
        : LocationUtil.stripTrailingSlash(current.location()) + "/metadata";
    LocationPath.tryParse(dir).ifPresent(out::add);
    return List.copyOf(out);
  }

  /**
   * The view's other metadata files in {@code directories}.
   *
   * @param io reads and lists them
   * @param current the view's current metadata (its {@code uuid} decides), not null
   * @param currentFile the current file, never returned
   * @param claimedByOthers locations other entries claim (e.g. another view's current file), never
   *     returned, nor anything inside them
   * @return locations as listed; empty when the directories cannot be listed
   */
  static List<String> older(FileIO io, ViewMetadata current, LocationPath currentFile, Collection<LocationPath> directories,
      Collection<LocationPath> claimedByOthers) {
    List<String> out = new ArrayList<>();
    for (LocationPath dir : directories) {
      for (String candidate : list(io, dir)) {
        Optional<LocationPath> parsed = LocationPath.tryParse(candidate);
        if (parsed.isEmpty() || parsed.get().equals(currentFile) || !candidate.endsWith(".metadata.json")
            || claimedByOthers.stream().anyMatch(c -> c.contains(parsed.get())) || out.contains(candidate)) {
          continue;
        }
        if (sameView(io, candidate, current.uuid())) {
          out.add(candidate);
        }
      }
    }
    return out;
  }

  private static boolean sameView(FileIO io, String location, String uuid) {
    try {
      return uuid.equals(ViewMetadataParser.read(io.newInputFile(location)).uuid());
    } catch (RuntimeException notAViewFileOrUnreadable) {
      // not provably this view's: kept
      return false;
    }
  }

  /** The files directly inside {@code dir} (no subdirectory, no symbolic link followed). */
  private static List<String> list(FileIO io, LocationPath dir) {
    List<String> out = new ArrayList<>();
    if (dir.isFile()) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of(dir.path()))) {
        for (Path p : entries) {
          if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            out.add(p.toString());
          }
        }
      } catch (NoSuchFileException gone) {
        return out;
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("Cannot list view metadata directory " + dir, e);
      }
      return out;
    }
    if (io instanceof SupportsPrefixOperations prefix) {
      String base = dir.toString() + "/";
      for (FileInfo f : prefix.listPrefix(base)) {
        String name = f.location().substring(Math.min(f.location().length(), base.length()));
        if (f.location().startsWith(base) && !name.isEmpty() && !name.contains("/")) {
          out.add(f.location());
        }
      }
    }
    return out;
  }
}
