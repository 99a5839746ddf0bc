package dev.lethe.server.http;


import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The stop's status rule and its bounded wait (docs/design/0410-operations.md §4). */
class ShutdownGateTest {
  @Test
  void aServerErrorWhileStoppingIs503AndEverythingElseKeepsItsStatus() {
    for (int status : new int[] {200, 204, 400, 401, 403, 404, 409, 413}) {
      assertThat(ShutdownGate.status(true, status)).isEqualTo(status);
      assertThat(ShutdownGate.status(false, status)).isEqualTo(status);
    }
    for (int status : new int[] {500, 502, 503}) {
      assertThat(ShutdownGate.status(true, status)).isEqualTo(503);
      assertThat(ShutdownGate.status(false, status)).isEqualTo(status);
    }
  }

  @Test
  void awaitIdleReturnsAtOnceWhenIdleAndGivesUpAtTheTimeout() throws Exception {
    AtomicLong inFlight = new AtomicLong();
    ShutdownGate gate = new ShutdownGate(inFlight::get);
    assertThat(gate.awaitIdle(0)).isTrue();
    inFlight.set(1);
    long start = System.nanoTime();
    assertThat(gate.awaitIdle(200)).isFalse();
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertThat(ms).isBetween(200L, 2_000L);
  }
}
