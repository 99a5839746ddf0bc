package dev.lethe.store.s3.qualify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The probe's own logic, against in-process servers whose atomicity is known. */
class QualificationTest {

  private static final int RACERS = 8;
  private static final int ROUNDS = 5;

  /** An in-memory object server; every conditional operation atomic unless {@code racy}. */
  static class FakeServer implements ConditionalObjects {
    final Map<String, byte[]> bodies = new HashMap<>();
    final Map<String, String> etags = new HashMap<>();
    private final AtomicLong versions = new AtomicLong();
    private final boolean racy;
    private final boolean ifMatchOnMissingWrites;
    /** The racy server lets every racer check before any of them acts. */
    private final CyclicBarrier checked = new CyclicBarrier(RACERS);

    FakeServer(boolean racy, boolean ifMatchOnMissingWrites) {
      this.racy = racy;
      this.ifMatchOnMissingWrites = ifMatchOnMissingWrites;
    }

    private final Object lock = new Object();

    /** Between the check and the act: the atomic server holds its lock across both, the racy one lets others in. */
    private void betweenCheckAndAct() {
      if (racy && Thread.currentThread().getName().startsWith("lethe-qualify-s3")) {
        try {
          checked.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (BrokenBarrierException | TimeoutException e) {
          // fewer racers than parties: act anyway
        }
      }
    }

    private String put(String key, byte[] body) {
      String etag = "\"" + versions.incrementAndGet() + "\"";
      synchronized (lock) {
        bodies.put(key, body);
        etags.put(key, etag);
      }
      return etag;
    }

    private String etagNow(String key) {
      synchronized (lock) {
        return etags.get(key);
      }
    }

    @Override
    public Optional<String> createIfAbsent(String key, byte[] body) {
      if (racy) {
        boolean absent = etagNow(key) == null;
        betweenCheckAndAct();
        return absent ? Optional.of(put(key, body)) : Optional.empty();
      }
      synchronized (lock) {
        return etags.containsKey(key) ? Optional.empty() : Optional.of(put(key, body));
      }
    }

    @Override
    public Optional<String> replaceIfMatch(String key, String etag, byte[] body) {
      if (racy) {
        String now = etagNow(key);
        betweenCheckAndAct();
        return (etag.equals(now) || (now == null && ifMatchOnMissingWrites)) ? Optional.of(put(key, body)) : Optional.empty();
      }
      synchronized (lock) {
        String now = etags.get(key);
        return etag.equals(now) || (now == null && ifMatchOnMissingWrites) ? Optional.of(put(key, body)) : Optional.empty();
      }
    }

    @Override
    public boolean deleteIfMatch(String key, String etag) {
      if (racy) {
        String now = etagNow(key);
        betweenCheckAndAct();
        if (!etag.equals(now)) {
          return false;
        }
        delete(key);
        return true;
      }
      synchronized (lock) {
        if (!etag.equals(etags.get(key))) {
          return false;
        }
        delete(key);
        return true;
      }
    }

    @Override
    public Optional<byte[]> read(String key) {
      synchronized (lock) {
        return Optional.ofNullable(bodies.get(key)).map(b -> Arrays.copyOf(b, b.length));
      }
    }

    @Override
    public Optional<String> etag(String key) {
      return Optional.ofNullable(etagNow(key));
    }

    @Override
    public List<String> keys(String prefix) {
      synchronized (lock) {
        return bodies.keySet().stream().filter(k -> k.startsWith(prefix)).sorted().toList();
      }
    }

    @Override
    public void delete(String key) {
      synchronized (lock) {
        bodies.remove(key);
        etags.remove(key);
      }
    }
  }

  private static Map<String, Boolean> holds(List<Property> properties) {
    Map<String, Boolean> out = new HashMap<>();
    properties.forEach(p -> out.put(p.name(), p.holds()));
    return out;
  }

  @Test
  void anAtomicServerQualifiesOnEveryPropertyAndTheProbeLeavesNoKeyBehind() {
    FakeServer server = new FakeServer(false, false);
    server.put("store/records/n/c/r", new byte[] {1});
    List<Property> result = new Qualification(server, "store/", RACERS, ROUNDS).run();
    result.forEach(p -> System.out.println("atomic fake: " + p.line()));
    assertThat(holds(result)).isEqualTo(Map.of("create-if-absent", true, "update-if-match", true,
        "delete-if-match-vs-create", true, "if-match-on-missing-key", true));
    assertThat(result.get(0).line()).isEqualTo(
        "create-if-absent: ok (8 racers x 5 rounds: exactly one winner in every round)");
    // only what was there before
    assertThat(server.keys("")).containsExactly("store/records/n/c/r");
  }

  @Test
  void aServerThatChecksBeforeItActsFailsEveryRaceAndTheProbeSaysHowOften() {
    FakeServer server = new FakeServer(true, false);
    List<Property> result = new Qualification(server, "", RACERS, ROUNDS).run();
    result.forEach(p -> System.out.println("racy fake: " + p.line()));
    assertThat(holds(result)).isEqualTo(Map.of("create-if-absent", false, "update-if-match", false,
        "delete-if-match-vs-create", false, "if-match-on-missing-key", true));
    assertThat(result.get(0).line()).isEqualTo(
        "create-if-absent: FAILED (8 racers x 5 rounds: 5 of 5 rounds wrong, winners per round {8=5})");
    assertThat(result.get(2).line()).isEqualTo(
        "delete-if-match-vs-create: FAILED (8 racers x 5 rounds: violations 5 of 5)");
    assertThat(server.keys("")).isEmpty();
  }

  @Test
  void aServerThatWritesAnIfMatchOnAMissingKeyFailsThatProperty() {
    List<Property> result = new Qualification(new FakeServer(false, true), "", RACERS, 1).run();
    assertThat(result.get(3).line()).isEqualTo("if-match-on-missing-key: FAILED (accepted, object written)");
  }
}
