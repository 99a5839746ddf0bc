package dev.lethe.catalog.location;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pure part of docs/design/0004-a-table-owns-every-root-its-snapshots-use.md. */
class FollowedRootsTest {
  private static LocationPath p(String s) {
    return LocationPath.parse(s);
  }

  @Test
  void earlierRootsAreTheHeldOnesOutsideEveryCurrentRoot() {
    List<LocationPath> current = List.of(p("/wh/db/a-moved"), p("/wh/data2"));
    List<LocationPath> held = List.of(p("/wh/db/a"), p("/wh/data2"), p("file:/wh/db/a-moved/x"), p("/wh/data1"));
    assertThat(FollowedRoots.earlier(current, held)).containsExactly(p("/wh/db/a"), p("/wh/data1"));
    assertThat(FollowedRoots.earlier(current, List.of(p("/wh/db/a-moved")))).isEmpty();
  }

  @Test
  void aTableMovedInsideItsOldLocationKeepsTheOldOneOnlyWhileFilesOutsideTheNewOneAreUsed() {
    List<LocationPath> current = List.of(p("/wh/db/a/sub"));
    List<LocationPath> earlier = FollowedRoots.earlier(current, List.of(p("/wh/db/a")));
    assertThat(earlier).containsExactly(p("/wh/db/a"));
    assertThat(FollowedRoots.held(current, Set.of(p("/wh/db/a")))).containsExactly(p("/wh/db/a"));
    assertThat(FollowedRoots.held(current, Set.of())).containsExactly(p("/wh/db/a/sub"));
  }
}
