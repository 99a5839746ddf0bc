package dev.lethe.catalog.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalFileIO} as {@link FileIOFactory} builds it for a catalog follows no symbolic link
 * below the warehouse on any read, write, delete or listing
 * (docs/design/0007-no-symbolic-link-below-the-warehouse.md); real files and links on the local
 * file system.
 */
class LocalFileIOSymlinkTest {
  private static final String PRECIOUS = "outside the warehouse";

  @TempDir Path dir;
  private Path warehouse;
  private Path outside;
  private Path victim;
  private LocalFileIO io;

  @BeforeEach
  void setUp() throws IOException {
    warehouse = Files.createDirectories(dir.resolve("wh"));
    outside = Files.createDirectories(dir.resolve("outside"));
    victim = Files.writeString(outside.resolve("target.txt"), PRECIOUS);
    io = (LocalFileIO) new FileIOFactory().create(warehouse.toString(), Map.of());
  }

  @Test
  void aDirectoryLinkOnTheWayRefusesReadWriteDeleteAndListing() throws IOException {
    Path link = Files.createDirectories(warehouse.resolve("db/t/data")).resolve("linkdir");
    Files.createSymbolicLink(link, outside);
    String through = link.resolve("target.txt").toString();

    assertThatThrownBy(() -> io.newInputFile(through).newStream()).isInstanceOf(InvalidLocationException.class)
        .hasMessageContaining("symbolic link " + link);
    assertThatThrownBy(() -> io.newInputFile(through).getLength()).isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> io.newOutputFile(link.resolve("new.json").toString()).create())
        .isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> io.newOutputFile(through).createOrOverwrite())
        .isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> io.deleteFile(through)).isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> io.deleteFiles(List.of(through))).isInstanceOf(BulkDeletionFailureException.class);
    assertThatThrownBy(() -> io.listPrefix(link.resolve("sub").toString())).isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> io.deletePrefix(link.resolve("sub").toString())).isInstanceOf(InvalidLocationException.class);
    assertThat(io.listPrefix(link.getParent().toString())).isEmpty(); // a link is neither listed nor entered
    assertThat(io.listPrefix(link.toString())).isEmpty();
    io.deletePrefix(link.toString()); // unlinks the link itself

    assertThat(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(victim).hasContent(PRECIOUS);
    assertThat(outside.resolve("new.json")).doesNotExist();
  }

  @Test
  void aFileLinkIsNeitherReadNorOverwrittenAndDeletingItUnlinksOnlyTheLink() throws IOException {
    Path link = Files.createDirectories(warehouse.resolve("db/t/data")).resolve("f.parquet");
    Files.createSymbolicLink(link, victim);

    assertThatThrownBy(() -> io.newInputFile(link.toString()).newStream()).isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> io.newOutputFile(link.toString()).createOrOverwrite())
        .isInstanceOf(InvalidLocationException.class);
    assertThat(io.newInputFile(link.toString()).exists()).isTrue();
    io.deleteFile(link.toString());

    assertThat(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(victim).hasContent(PRECIOUS);
  }

  @Test
  void aLinkAtTheTableRootOrAtANamespaceDirectoryIsRefusedForEveryFileBelowIt() throws IOException {
    Files.createDirectories(warehouse.resolve("db"));
    Files.createSymbolicLink(warehouse.resolve("db/t"), outside);
    Files.createSymbolicLink(warehouse.resolve("ns"), outside);

    for (String location : List.of(warehouse.resolve("db/t/target.txt").toString(),
        "file:" + warehouse.resolve("ns/target.txt"), "file://" + warehouse.resolve("ns/target.txt"))) {
      assertThatThrownBy(() -> io.newInputFile(location).newStream()).as(location)
          .isInstanceOf(InvalidLocationException.class);
      assertThatThrownBy(() -> io.deleteFile(location)).as(location).isInstanceOf(InvalidLocationException.class);
    }
    assertThat(io.listPrefix(warehouse.resolve("db").toString())).isEmpty(); // the link is not listed
    assertThat(victim).hasContent(PRECIOUS);
  }

  @Test
  void aDirectoryReplacedByALinkAfterACheckIsRefusedAtUse() throws IOException {
    // the check-to-use window of a purge: the file is checked (no link), then a client swaps its
    // directory for a link to outside, then the delete runs
    Path data = Files.createDirectories(warehouse.resolve("db/t/data/a"));
    Path file = Files.writeString(data.resolve("target.txt"), "table's own");
    assertThat(io.confinement().linkOnTheWay(LocationPath.parse(file.toString()))).isEmpty();

    Files.move(data, dir.resolve("moved-away"));
    Files.createSymbolicLink(data, outside);

    assertThatThrownBy(() -> io.deleteFiles(List.of(file.toString()))).isInstanceOf(BulkDeletionFailureException.class);
    assertThat(victim).hasContent(PRECIOUS);
    assertThat(io.confinement().linkOnTheWay(LocationPath.parse(file.toString()))).contains(data);
  }

  @Test
  void theWarehouseItselfMayBeReachedThroughALinkTheOperatorChose() throws IOException {
    Path real = Files.createDirectories(dir.resolve("disk1/wh"));
    Path configured = Files.createSymbolicLink(dir.resolve("wh-link"), real);
    LocalFileIO linked = (LocalFileIO) new FileIOFactory().create(configured.toString(), Map.of());
    String location = configured.resolve("db/t/metadata/v1.json").toString();

    try (PositionOutputStream out = linked.newOutputFile(location).create()) {
      out.write("{}".getBytes(StandardCharsets.UTF_8));
    }
    try (InputStream in = linked.newInputFile(location).newStream()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("{}");
    }
    assertThat(linked.listPrefix(configured.resolve("db").toString())).extracting(FileInfo::location)
        .containsExactly(location);
    linked.deletePrefix(configured.resolve("db").toString());
    assertThat(real.resolve("db")).doesNotExist();
  }

  @Test
  void anAllowedLocationIsAnAnchorToo() throws IOException {
    Path extra = Files.createDirectories(dir.resolve("extra"));
    Path extraLink = Files.createSymbolicLink(dir.resolve("extra-link"), extra);
    LocalFileIO withExtra = (LocalFileIO) new FileIOFactory().create(warehouse.toString(),
        Map.of("allowed-locations", extraLink.toString()));
    String location = extraLink.resolve("t/f.json").toString();

    try (PositionOutputStream out = withExtra.newOutputFile(location).create()) {
      out.write(1);
    }
    assertThat(extra.resolve("t/f.json")).exists();
    // the same path for a FileIO whose anchors do not include it: a link on the way, refused
    assertThatThrownBy(() -> io.newInputFile(location).newStream()).isInstanceOf(InvalidLocationException.class);
  }
}
