package dev.lethe.catalog.location;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClaimOverlapTest {
  private static final ClaimOwner T1 = ClaimOwner.table("t1");
  private static final ClaimOwner T2 = ClaimOwner.table("t2");
  private static final ClaimOwner JOB = ClaimOwner.job(7);

  private static LocationClaim claim(long id, ClaimOwner owner, String root) {
    return new LocationClaim(id, owner, LocationPath.parse(root));
  }

  private static List<LocationPath> roots(String... spellings) {
    return java.util.Arrays.stream(spellings).map(LocationPath::parse).toList();
  }

  @Test
  void everySpellingOfTheSameRootConflictsWithAnotherOwnersClaim() {
    List<LocationClaim> held = List.of(claim(1, T1, "/wh/db/t"));
    for (String spelling : List.of("/wh/db/t", "file:/wh/db/t", "file:///wh/db/t", "file://localhost/wh/db/t",
        "/wh//db/t/", "file:/wh/db///t", "/wh/db/t/data", "/wh", "/")) {
      assertThat(ClaimOverlap.conflicts(roots(spelling), T2, held)).as(spelling).hasSize(1);
    }
    for (String free : List.of("/wh/db/t2", "/wh/db/t%20", "/wh/db/u", "s3://wh/db/t")) {
      assertThat(ClaimOverlap.conflicts(roots(free), T2, held)).as(free).isEmpty();
    }
  }

  @Test
  void anOwnersOwnClaimsAndTheHandOverTargetNeverConflict() {
    List<LocationClaim> held = List.of(claim(1, T1, "/wh/db/t"), claim(2, JOB, "/wh/db/t/data"));
    assertThat(ClaimOverlap.conflicts(roots("/wh/db/t"), T1, held)).extracting(c -> c.other().owner()).containsExactly(JOB);
    assertThat(ClaimOverlap.conflicts(roots("/wh/db/t"), Set.of(T1, JOB), held)).isEmpty();
  }

  @Test
  void aHashCollisionCandidateThatDoesNotOverlapIsNoConflict() {
    // the database finds candidates by hash; the decision is on the normalised paths
    List<LocationClaim> candidates = List.of(claim(1, T1, "/elsewhere/x"), claim(2, T1, "s3://b/wh/db/t"));
    assertThat(ClaimOverlap.conflicts(roots("/wh/db/t"), T2, candidates)).isEmpty();
  }

  @Test
  void prefixHashesAreTheRootAndEveryAncestorAndMatchTheAncestorsOwnHash() {
    LocationPath t = LocationPath.parse("file:///wh/db/t");
    List<String> hashes = ClaimOverlap.prefixHashes(t);
    assertThat(hashes).hasSize(4).doesNotHaveDuplicates();
    assertThat(hashes.get(0)).isEqualTo(ClaimOverlap.hash(LocationPath.parse("/")));
    assertThat(hashes.get(2)).isEqualTo(ClaimOverlap.hash(LocationPath.parse("file://localhost/wh/db/")));
    assertThat(hashes.get(3)).isEqualTo(ClaimOverlap.hash(LocationPath.parse("/wh/db/t"))).hasSize(64).matches("[0-9a-f]{64}");
    assertThat(ClaimOverlap.hash(LocationPath.parse("s3://b/wh"))).isEqualTo(ClaimOverlap.hash(LocationPath.parse("s3a://b/wh/")))
        .isNotEqualTo(ClaimOverlap.hash(LocationPath.parse("/wh")));
  }

  @Test
  void minimalRootsDropDuplicatesAndContainedRoots() {
    assertThat(ClaimOverlap.minimal(roots("/wh/t/data", "/wh/t", "file:/wh/t", "/wh/meta/t")))
        .extracting(LocationPath::toString).containsExactly("/wh/t", "/wh/meta/t");
  }

  @Test
  void theAssumedRootOfAMetadataFileIsTheDirectoryHoldingItsMetadataDirectory() {
    assertThat(TableRoots.assumedFromMetadataFile("file:/wh/db/t/metadata/00001-x.metadata.json"))
        .extracting(LocationPath::toString).containsExactly("/wh/db/t");
    assertThat(TableRoots.assumedFromMetadataFile("s3://b/meta/t/v1.metadata.json"))
        .extracting(LocationPath::toString).containsExactly("s3://b/meta/t");
    assertThat(TableRoots.assumedFromMetadataFile("/metadata/v1.metadata.json"))
        .extracting(LocationPath::toString).containsExactly("/metadata");
  }
}
