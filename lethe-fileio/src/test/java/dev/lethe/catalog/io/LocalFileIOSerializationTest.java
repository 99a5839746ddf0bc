package dev.lethe.catalog.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.location.InvalidLocationException;
import dev.lethe.catalog.location.LocationPath;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine ships a table's FileIO to its workers by Java serialization (Spark broadcasts Iceberg's
 * {@code SerializableTable}, FileIO included): the copy keeps its properties and its confinement
 * (docs/design/0435-lethe-fileio-client-artifact.md).
 */
class LocalFileIOSerializationTest {
  @TempDir Path dir;

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  @Test
  void aSerializedCopyKeepsItsPropertiesAndWritesAndReads() throws Exception {
    LocalFileIO io = new LocalFileIO();
    io.initialize(Map.of("k", "v"));
    LocalFileIO copy = roundTrip(io);

    assertThat(copy.properties()).isEqualTo(Map.of("k", "v"));
    assertThat(copy.confinement()).isSameAs(ConfinedLocalFiles.STRICT);
    String location = dir.resolve("t/data/f.parquet").toString();
    try (PositionOutputStream out = copy.newOutputFile(location).create()) {
      out.write("rows".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(io.newInputFile(location).getLength()).isEqualTo(4);
  }

  @Test
  void aSerializedCopyKeepsItsAnchorsAndStillRefusesALinkBelowThem() throws Exception {
    Path real = Files.createDirectories(dir.resolve("disk1/wh"));
    Path warehouse = Files.createSymbolicLink(dir.resolve("wh-link"), real);
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.createSymbolicLink(real.resolve("db"), outside);
    LocalFileIO io = new LocalFileIO(ConfinedLocalFiles.of(List.of(LocationPath.parse(warehouse.toString()))));

    LocalFileIO copy = roundTrip(io);

    assertThat(copy.confinement().anchors()).isEqualTo(io.confinement().anchors());
    // the anchor itself is a link the operator chose: allowed
    String inWarehouse = warehouse.resolve("t/f.json").toString();
    try (PositionOutputStream out = copy.newOutputFile(inWarehouse).create()) {
      out.write(1);
    }
    assertThat(real.resolve("t/f.json")).exists();
    // a link below it: refused, nothing written outside
    assertThatThrownBy(() -> copy.newOutputFile(warehouse.resolve("db/t/f.json").toString()).create())
        .isInstanceOf(InvalidLocationException.class);
    assertThat(outside).isEmptyDirectory();
  }
}
