package dev.lethe.server.management;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupObjectType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CleanupViewTest {
  @Test
  void aJobWaitingAfterAFailedAttemptShowsWhenItMayBeRetriedAndNeverItsFileIoProperties() {
    CleanupJob job = new CleanupJob(7, CleanupObjectType.TABLE, "default", "c", "main", "db", "t", "/w/t/metadata/1.json",
        "io", "v1:secret", CleanupJobState.PENDING, 2, "store down", null, "alice", 10, 20, 0, null, 5020L);

    Map<String, Object> view = CleanupRoutes.view(job, true);

    assertThat(view).containsEntry("nextAttemptAt", 5020L).containsEntry("attempts", 2).containsEntry("state", "PENDING");
    assertThat(view.values()).doesNotContain("v1:secret", "/w/t/metadata/1.json");
  }
}
