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
    assertThatThrownBy(() -> io.newInputFile("relative/path")).hasMessageContaining("relative path");
    assertThatThrownBy(() -> io.newInputFile("s3://bucket/key")).hasMessageContaining("not a local file location");
    assertThatThrownBy(() -> io.newInputFile("")).hasMessageContaining("location is empty");
    assertThatThrownBy(() -> io.newInputFile("file://otherhost/x")).hasMessageContaining("not this machine");
  }

  @Test
  void queryFragmentAndDotSegmentsAreRefusedSoTheNamedFileIsNeverTouched() throws IOException {
    String existing = write(dir.resolve("existing.txt").toString(), "keep me");
    for (String bad : List.of("file:" + existing + "?", "file:" + existing + "#", existing + "?/metadata/v1.json",
        "file:" + dir + "/sub/../existing.txt", dir + "/./existing.txt")) {
      assertThatThrownBy(() -> io.newOutputFile(bad)).as(bad)
          .isInstanceOf(dev.lethe.catalog.location.InvalidLocationException.class);
      assertThatThrownBy(() -> io.deleteFile(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(Files.readString(Path.of(existing))).isEqualTo("keep me");
  }

  @Test
  void everySpellingOfALocalPathIsOneFileAndPercentIsLiteral() throws IOException {
    String plain = dir.resolve("a%20b/f.txt").toString();
    write(plain, "x");
    assertThat(Files.exists(dir.resolve("a%20b").resolve("f.txt"))).isTrue();
    assertThat(Files.exists(dir.resolve("a b"))).isFalse();
    for (String spelling : List.of("file:" + plain, "file://" + plain, "file://localhost" + plain,
        dir + "//a%20b/f.txt")) {
      assertThat(io.newInputFile(spelling).exists()).as(spelling).isTrue();
      assertThat(LocalFileIO.toPath(spelling)).isEqualTo(Path.of(plain));
    }
  }
}
