package dev.lethe.catalog.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;

class FileIOFactoryTest {
  private final FileIOFactory factory = new FileIOFactory();

  @Test
  void s3SchemesChooseS3FileIO() {
    for (String location : new String[] {"s3://bucket/wh", "s3a://bucket/wh", "s3n://bucket/wh", "S3://bucket"}) {
      assertThat(factory.implFor(location, Map.of())).as(location).isEqualTo(FileIOFactory.S3_FILE_IO_IMPL);
    }
  }

  @Test
  void absolutePathsAndFileUrisChooseLocalFileIO() {
    for (String location : new String[] {"/data/wh", "file:/data/wh", "file:///data/wh"}) {
      assertThat(factory.implFor(location, Map.of())).as(location).isEqualTo(LocalFileIO.class.getName());
    }
  }

  @Test
  void explicitIoImplWinsOverTheScheme() {
    Map<String, String> props = Map.of("io-impl", InMemoryFileIO.class.getName());
    assertThat(factory.implFor("s3://bucket/wh", props)).isEqualTo(InMemoryFileIO.class.getName());
    assertThat(factory.implFor("hdfs://nn/wh", props)).isEqualTo(InMemoryFileIO.class.getName());
    assertThat(factory.create("/data/wh", props)).isInstanceOf(InMemoryFileIO.class);
  }

  @Test
  void unsupportedOrRelativeLocationsAreRejectedNamingTheValue() {
    assertThatThrownBy(() -> factory.implFor("hdfs://nn/wh", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'hdfs://nn/wh'");
    assertThatThrownBy(() -> factory.implFor("relative/wh", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'relative/wh'");
    assertThatThrownBy(() -> factory.implFor("gs://bucket/wh", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'gs://bucket/wh'");
    assertThatThrownBy(() -> factory.implFor(" ", Map.of())).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> factory.implFor(null, Map.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void unknownIoImplClassIsRejectedNamingTheClass() {
    assertThatThrownBy(() -> factory.create("/data/wh", Map.of("io-impl", "com.example.NoSuchFileIO")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("com.example.NoSuchFileIO");
  }

  @Test
  void createdFileIOIsInitialisedWithTheCatalogProperties() {
    Map<String, String> props = Map.of("s3.endpoint", "http://127.0.0.1:1", "client.region", "us-east-1");
    try (FileIO local = factory.create("/data/wh", Map.of("k", "v"));
        FileIO s3 = factory.create("s3://bucket/wh", props)) {
      assertThat(local).isInstanceOf(LocalFileIO.class);
      assertThat(local.properties()).containsEntry("k", "v");
      assertThat(s3).isInstanceOf(S3FileIO.class);
      assertThat(s3.properties()).containsAllEntriesOf(props);
    }
  }
}
