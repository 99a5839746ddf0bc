package dev.lethe.catalog.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileIOTest {
  @TempDir Path dir;
  private final LocalFileIO io = new LocalFileIO();

  private String write(String location, String content) throws IOException {
    OutputFile out = io.newOutputFile(location);
    try (PositionOutputStream s = out.create()) {
      s.write(content.getBytes(StandardCharsets.UTF_8));
    }
    return out.location();
  }

  @Test
  void writesReadsAndKeepsTheLocationSpelling() throws IOException {
    String plain = dir.resolve("a/b/f1.txt").toString();
    String uri = "file:" + dir.resolve("a/b/f2.txt");
    assertThat(write(plain, "one")).isEqualTo(plain);
    assertThat(write(uri, "two!")).isEqualTo(uri);
    assertThat(io.newInputFile(uri).getLength()).isEqualTo(4);
    assertThat(io.newInputFile("file://" + dir.resolve("a/b/f1.txt")).exists()).isTrue();
    assertThatThrownBy(() -> io.newOutputFile(plain).create()).isInstanceOf(AlreadyExistsException.class);
  }

  @Test
  void deleteOfAMissingFileIsNotAnError() throws IOException {
    String f = write(dir.resolve("x.txt").toString(), "x");
    io.deleteFile(f);
    io.deleteFile(f);
    io.deleteFiles(List.of(f, dir.resolve("never.txt").toString()));
    assertThat(Files.exists(dir.resolve("x.txt"))).isFalse();
  }

  @Test
  void prefixOperationsStayInsideThePrefixDirectory() throws IOException {
    write(dir.resolve("t/data/a.parquet").toString(), "a");
    write(dir.resolve("t/metadata/v1.metadata.json").toString(), "{}");
    write(dir.resolve("t2/data/b.parquet").toString(), "b");
    List<String> listed = new java.util.ArrayList<>();
    for (FileInfo f : io.listPrefix(dir.resolve("t").toString())) {
      listed.add(f.location());
    }
    assertThat(listed).containsExactlyInAnyOrder(
        dir.resolve("t/data/a.parquet").toString(), dir.resolve("t/metadata/v1.metadata.json").toString());
    io.deletePrefix(dir.resolve("t").toString());
    assertThat(Files.exists(dir.resolve("t"))).isFalse();
    assertThat(Files.exists(dir.resolve("t2/data/b.parquet"))).isTrue();
  }

  @Test
  void readingAMissingFileIsNotFoundNamingTheLocation() {
    String missing = "file:" + dir.resolve("metadata/v9.metadata.json");
    assertThatThrownBy(() -> io.newInputFile(missing).newStream())
        .isInstanceOf(org.apache.iceberg.exceptions.NotFoundException.class)
        .hasMessage("Failed to open input stream for file: " + missing);
  }

  @Test
  void relativeOrForeignLocationsAreRejected() {
    assertThatThrownBy(() -> io.newInputFile("relative/path")).hasMessageContaining("not absolute");
    assertThatThrownBy(() -> io.newInputFile("s3://bucket/key")).hasMessageContaining("unsupported scheme");
    assertThatThrownBy(() -> io.newInputFile("")).hasMessageContaining("null or empty");
  }
}
