package dev.lethe.store.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.UnsupportedFormatException;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fs store's on-disk layout and its behaviour with foreign or damaged files. */
class FsStoreFilesTest {

  @TempDir Path root;
  private FsStore store;
  private final RecordKey key = new RecordKey("ns", "col", "rec");
  private final RecordKey other = new RecordKey("ns", "col", "other");

  @BeforeEach
  void open() {
    store = new FsStore(root, 32, MutableClock.at2026());
  }

  private Record put(RecordKey k, String text) {
    return ((Committed) store.put(Record.draft(k, Kind.DOCUMENT, Body.Inline.text(text), Meta.EMPTY),
        Optional.empty())).record();
  }

  @Test
  void aRecordIsOneHumanReadableJsonFileAtNamespaceCollectionId() throws Exception {
    put(key, "hello");
    Path file = root.resolve("ns/col/rec.json");
    assertThat(file).exists();
    String text = Files.readString(file);
    assertThat(text).contains("\"format\" : 3").contains("\"key\" : \"ns/col/rec\"").contains("\"text\" : \"hello\"");
    assertThat(store.pathOf(key)).isEqualTo(file);
  }

  @Test
  void lockFilesTempFilesAndStrayFilesAreIgnoredByReadsAndListings() throws Exception {
    put(key, "hello");
    Path dir = root.resolve("ns/col");
    Files.writeString(dir.resolve("ghost.json.lock"), "garbage");
    Files.writeString(dir.resolve("ghost.json.1234.tmp"), "{ half a rec");
    Files.writeString(dir.resolve("notes.txt"), "hi");
    Files.createDirectories(root.resolve(".git"));
    Files.createDirectories(root.resolve("ns/bad name"));
    Files.writeString(dir.resolve("rec.json.lock"), ""); // the lock file of a store written by an earlier version
    assertThat(Files.list(root).map(p -> p.getFileName().toString())).contains(FsKeyLocks.FILE_NAME);
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
        .containsExactlyInAnyOrder("rec.json", "ghost.json.lock", "ghost.json.1234.tmp", "notes.txt", "rec.json.lock");
    assertThat(store.listRaw(KeyPrefix.all())).extracting(Record::key).containsExactly(key);
    assertThat(store.getRaw(new RecordKey("ns", "col", "ghost"))).isEmpty();
  }

  @Test
  void writesLeaveOneLockFileForTheWholeStoreAndNoneBesideRecords() throws Exception {
    for (int i = 0; i < 50; i++) {
      put(new RecordKey("ns", "col", "k" + i), "v" + i);
    }
    store.deleteAs(new RecordKey("ns", "col", "k0"), Optional.empty(), Optional.empty());
    store.purge(new RecordKey("ns", "col", "k1"), Optional.of(store.getRaw(new RecordKey("ns", "col", "k1"))
        .orElseThrow().revision()));
    try (var files = Files.list(root.resolve("ns/col"))) {
      assertThat(files.map(p -> p.getFileName().toString())).hasSize(49).allMatch(n -> n.endsWith(".json"));
    }
    try (var top = Files.list(root)) {
      assertThat(top.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("ns", FsKeyLocks.FILE_NAME);
    }
  }

  @Test
  void readsOfAStoreNeverWrittenCreateNoLockFile() throws Exception {
    put(key, "hello");
    Files.delete(root.resolve(FsKeyLocks.FILE_NAME));
    FsStore reader = new FsStore(root, 32, MutableClock.at2026());
    assertThat(reader.get(key)).isPresent();
    assertThat(reader.list(KeyPrefix.all())).hasSize(1);
    assertThat(reader.delete(new RecordKey("ns", "col", "absent"), Optional.empty())).isInstanceOf(Deleted.class);
    assertThat(root.resolve(FsKeyLocks.FILE_NAME)).doesNotExist();
  }

  @Test
  void storesOfOneDirectoryShareTheLockFileAndCloseLetsItGoAndAWriteReopensIt() throws Exception {
    FsStore second = new FsStore(root.resolve("."), 32, MutableClock.at2026());
    put(key, "v1");
    Record v1 = store.getRaw(key).orElseThrow();
    assertThat(second.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v2"), Meta.EMPTY), Optional.of(v1.revision())))
        .isInstanceOf(Committed.class);
    second.close();
    second.close(); // idempotent
    put(other, "still locks"); // the first store's use keeps the shared lock file open
    store.close();
    assertThat(second.put(Record.draft(other, Kind.DOCUMENT, Body.Inline.text("again"), Meta.EMPTY),
        Optional.of(store.getRaw(other).orElseThrow().revision()))).isInstanceOf(Committed.class);
    second.close();
  }

  @Test
  void aBatchWithOneInvalidItemWritesNothing() {
    Record good = foreign(key, 1, "a");
    Record forged = new Record(other, Kind.DOCUMENT, new Revision(1, ContentHash.ofUtf8("not the content")), null,
        List.of(), Body.Inline.text("b"), Meta.EMPTY, null, null, List.of());
    List<dev.lethe.store.core.RawPut> items = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      items.add(new dev.lethe.store.core.RawPut(foreign(new RecordKey("ns", "many", "k" + i), 1, "x" + i), Optional.empty()));
    }
    items.add(new dev.lethe.store.core.RawPut(good, Optional.empty()));
    items.add(new dev.lethe.store.core.RawPut(forged, Optional.empty()));
    assertThatThrownBy(() -> store.putRawBatch(items)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot put ns/col/other").hasMessageEndingWith("(nothing written)");
    assertThat(store.listRaw(KeyPrefix.all())).isEmpty();
  }

  private static Record foreign(RecordKey k, long counter, String text) {
    Body body = Body.Inline.text(text);
    return new Record(k, Kind.DOCUMENT, RevisionHash.revision(counter, Kind.DOCUMENT, body), null, List.of(), body,
        Meta.EMPTY, null, null, List.of());
  }

  @Test
  void aDirectoryNamedLikeARecordFileIsNotListedAndReadingItNamesThePath() throws Exception {
    put(key, "hello");
    Path stray = root.resolve("ns/col/backup.json");
    Files.createDirectories(stray);
    assertThat(store.listRaw(KeyPrefix.all())).extracting(Record::key).containsExactly(key);
    assertThatThrownBy(() -> store.getRaw(new RecordKey("ns", "col", "backup")))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .cause().hasMessage(stray + ": is a directory, not a record file");
  }

  @Test
  void aHandEditedInvalidFileIsALoudErrorNamingTheFileWhileOtherKeysAreServed() throws Exception {
    put(key, "hello");
    Record o = put(other, "fine");
    Path file = root.resolve("ns/col/rec.json");
    Files.writeString(file, Files.readString(file).replace("\"kind\"", "kind"));
    assertThatThrownBy(() -> store.get(key)).isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining("invalid JSON");
    assertThatThrownBy(() -> store.list(KeyPrefix.all())).hasMessageContaining(file.toString());
    assertThat(store.get(other)).contains(o);
    assertThat(Files.readString(file)).contains("kind :");
  }

  @Test
  void aFileWithAnUnknownFormatVersionIsRejectedNotGuessed() throws Exception {
    put(key, "hello");
    Path file = root.resolve("ns/col/rec.json");
    Files.writeString(file, Files.readString(file).replace("\"format\" : 3", "\"format\" : 99"));
    assertThatThrownBy(() -> store.getRaw(key)).isInstanceOf(CorruptRecordException.class)
        .hasCauseInstanceOf(UnsupportedFormatException.class).hasMessageContaining("format version 99");
  }

  @Test
  void aHandEditedBodyIsACorruptRecordNamingKeyAndFileOnEveryReadAndWrite() throws Exception {
    Record r = put(key, "hello");
    Record o = put(other, "fine");
    Path file = root.resolve("ns/col/rec.json");
    Files.writeString(file, Files.readString(file).replace("\"text\" : \"hello\"", "\"text\" : \"HELLO\""));
    for (org.assertj.core.api.ThrowableAssert.ThrowingCallable read : List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
        () -> store.get(key), () -> store.getRaw(key), () -> store.list(KeyPrefix.all()),
        () -> store.listRaw(KeyPrefix.all()), () -> store.listRawPage(KeyPrefix.all(), Optional.of(other), 10),
        () -> store.delete(key, Optional.of(r.revision())), () -> store.purge(key, Optional.of(r.revision())),
        () -> store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("x"), Meta.EMPTY), Optional.of(r.revision())))) {
      assertThatThrownBy(read).isInstanceOf(CorruptRecordException.class)
          .hasMessageContaining("ns/col/rec").hasMessageContaining(file.toString())
          .hasMessageContaining("does not match");
    }
    assertThat(Files.readString(file)).contains("HELLO");
    assertThat(store.get(other)).contains(o);
  }

  @Test
  void aRecordOfFormatOneIsReadVerifiedByTheOldRuleAndItsNextEditIsTheCurrentFormat() throws Exception {
    Path file = root.resolve("ns/col/rec.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, V1_RECORD);
    Record old = store.get(key).orElseThrow();
    assertThat(old.format()).isEqualTo(1);
    assertThat(old.revision()).isEqualTo(new Revision(1, ContentHash.ofUtf8("buy milk\n")));
    Record next = ((Committed) store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("buy oat milk\n"), Meta.EMPTY),
        Optional.of(old.revision()))).record();
    assertThat(next.format()).isEqualTo(3);
    assertThat(next.revision()).isEqualTo(RevisionHash.revision(2, Kind.DOCUMENT, Body.Inline.text("buy oat milk\n")));
    assertThat(next.ancestors()).containsExactly(old.revision());
    assertThat(Files.readString(file)).contains("\"format\" : 3");
    // the old rule still catches an edit of an old record
    Files.writeString(file, V1_RECORD.replace("buy milk", "buy gin"));
    assertThatThrownBy(() -> store.get(key)).isInstanceOf(CorruptRecordException.class).hasMessageContaining(file.toString());
  }

  /** A record as a format-1 build wrote it: the revision hash is the SHA-256 of "buy milk\n". */
  static final String V1_RECORD = """
      {
        "format" : 1,
        "key" : "ns/col/rec",
        "kind" : "document",
        "revision" : {
          "counter" : 1,
          "hash" : "%s"
        },
        "parent" : null,
        "ancestors" : [ ],
        "body" : {
          "text" : "buy milk\\n"
        },
        "meta" : {
          "author" : "lethe-cli",
          "origin" : null,
          "created" : 1767225600000,
          "updated" : 1767225600000,
          "labels" : { }
        },
        "deletedAt" : null,
        "deletedBlob" : null,
        "links" : [ ]
      }
      """.formatted(ContentHash.ofUtf8("buy milk\n"));

  @Test
  void anIdUpToTheFileNameLimitIsStoredAndALongerOneIsRejectedBeforeAnyIo() {
    RecordKey longest = new RecordKey("ns", "col", "x".repeat(FsStore.MAX_ID_LENGTH));
    put(longest, "fits");
    assertThat(store.get(longest)).isPresent();
    assertThat(store.delete(longest, Optional.empty())).isInstanceOf(Deleted.class);
    RecordKey tooLong = new RecordKey("ns", "other", "x".repeat(FsStore.MAX_ID_LENGTH + 1));
    assertThatThrownBy(() -> put(tooLong, "too long"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid id '" + "x".repeat(60) + "...': longer than " + FsStore.MAX_ID_LENGTH
            + " characters (" + (FsStore.MAX_ID_LENGTH + 1) + "), the most a file name in an fs store can hold");
    assertThat(root.resolve("ns/other")).doesNotExist();
    assertThat(new RecordKey("ns", "col", "x".repeat(RecordKey.MAX_PART_LENGTH))).isNotNull();
  }

  @Test
  void aFileHoldingAnotherKeyIsCorrupt() throws Exception {
    put(key, "hello");
    Files.copy(root.resolve("ns/col/rec.json"), root.resolve("ns/col/copy.json"));
    assertThatThrownBy(() -> store.getRaw(new RecordKey("ns", "col", "copy")))
        .isInstanceOf(CorruptRecordException.class).hasMessageContaining("holds key ns/col/rec");
  }

  @Test
  void theBlobNamespaceIsReservedAndBlobsAreNotListedAsRecords() {
    store.blobs().put("b".getBytes(StandardCharsets.UTF_8));
    assertThat(root.resolve("_blobs")).isDirectory();
    assertThat(store.listRaw(KeyPrefix.all())).isEmpty();
    RecordKey reserved = new RecordKey("_blobs", "x", "y");
    assertThatThrownBy(() -> put(reserved, "x")).hasMessageContaining("reserved");
  }

  @Test
  void aNoOpDeleteOrPurgeOfAKeyNeverSeenCreatesNoFiles() throws Exception {
    store.delete(key, Optional.empty());
    store.purge(key, Optional.empty());
    try (var files = Files.list(root)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void twoStoreInstancesOnOneRootSeeEachOthersWrites() {
    put(key, "hello");
    FsStore second = new FsStore(root, 3, MutableClock.at2026());
    Record r = second.get(key).orElseThrow();
    assertThat(second.delete(key, Optional.of(r.revision()))).isNotNull();
    assertThat(store.get(key)).isEmpty();
  }
}
