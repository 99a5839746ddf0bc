package dev.lethe.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which store a server serves: {@link StoreChoice#decide}, case by case and over every input combination. */
class StoreChoiceTest {

  private static final String H2 = "jdbc:h2:file:/srv/a/catalog;DB_CLOSE_ON_EXIT=FALSE";
  private static final String PG = "jdbc:postgresql://db:5432/lethe?user=lethe&password=hunter2";
  private static final String LEGACY = "file:/srv/a/store";

  @Test
  void anH2CatalogWithNoStoreKeepsTheLocalFileStore() {
    assertThat(StoreChoice.decide(H2, null, LEGACY, true)).isEqualTo(new StoreChoice.Serve(LEGACY, false, Optional.empty()));
    assertThat(StoreChoice.decide("jdbc:h2:mem:x", null, LEGACY, false))
        .isEqualTo(new StoreChoice.Serve(LEGACY, false, Optional.empty()));
  }

  @Test
  void aSharedCatalogWithNoStoreServesTheCatalogDatabase() {
    assertThat(StoreChoice.decide(PG, null, LEGACY, false)).isEqualTo(new StoreChoice.Serve(PG, true, Optional.empty()));
    assertThat(StoreChoice.decide("jdbc:mariadb://db/lethe", null, LEGACY, false))
        .isEqualTo(new StoreChoice.Serve("jdbc:mariadb://db/lethe", true, Optional.empty()));
    // the store substrate opens MariaDB and MySQL as jdbc:mariadb:
    assertThat(StoreChoice.decide("jdbc:mysql://db/lethe", null, LEGACY, false))
        .isEqualTo(new StoreChoice.Serve("jdbc:mariadb://db/lethe", true, Optional.empty()));
  }

  @Test
  void aSharedCatalogWithNoStoreAndAnOldStoreHoldingRecordsRefusesSayingHowToChoose() {
    StoreChoice choice = StoreChoice.decide(PG, null, LEGACY, true);
    assertThat(choice).isInstanceOf(StoreChoice.Refuse.class);
    assertThat(((StoreChoice.Refuse) choice).message())
        .contains("lethe.store.uri=" + LEGACY)
        .contains("lethe.store.uri=jdbc:postgresql://db:5432/lethe?user=lethe&password=***")
        .contains("lethe store sync --store jdbc:postgresql://db:5432/lethe?user=lethe&password=*** --peer " + LEGACY)
        .doesNotContain("hunter2")
        .doesNotContain("\n");
  }

  @Test
  void aSharedCatalogWithAnExplicitLocalStoreWarnsNamingBoth() {
    for (String local : List.of(LEGACY, "git:/srv/g", "memory:", "jdbc:h2:file:/srv/s")) {
      StoreChoice.Serve serve = (StoreChoice.Serve) StoreChoice.decide(PG, local, LEGACY, true);
      assertThat(serve.uri()).isEqualTo(local);
      assertThat(serve.inCatalogDatabase()).isFalse();
      assertThat(serve.warning()).get().asString()
          .contains(local).contains("jdbc:postgresql://db:5432/lethe?user=lethe&password=***")
          .doesNotContain("hunter2").doesNotContain("\n");
    }
  }

  @Test
  void anExplicitSharedStoreNeitherWarnsNorRefuses() {
    for (String shared : List.of("jdbc:postgresql://other/store", "s3://bucket/store", "jdbc:h2:tcp://h/store",
        "https://store.example/store/v1")) {
      assertThat(StoreChoice.decide(PG, shared, LEGACY, true)).isEqualTo(new StoreChoice.Serve(shared, false, Optional.empty()));
    }
  }

  @Test
  void anExplicitStoreThatIsTheCatalogDatabaseUsesTheCatalogsCredentials() {
    assertThat(StoreChoice.decide(PG, PG, LEGACY, true)).isEqualTo(new StoreChoice.Serve(PG, true, Optional.empty()));
    assertThat(StoreChoice.decide("jdbc:mysql://db/x", "jdbc:mariadb://db/x", LEGACY, true))
        .isEqualTo(new StoreChoice.Serve("jdbc:mariadb://db/x", true, Optional.empty()));
  }

  private static final List<String> CATALOGS = List.of(H2, "jdbc:h2:mem:x", "jdbc:h2:tcp://h/catalog", PG,
      "jdbc:postgresql://db/lethe", "jdbc:mariadb://db/lethe?password=hunter2", "jdbc:mysql://db/lethe");
  private static final List<String> LEGACIES = List.of("file:/srv/a/store", "file:/srv/b/store");

  /** Every configured value: unset, local, shared, or naming a catalog of {@link #CATALOGS}. */
  private static List<String> configured() {
    List<String> out = new ArrayList<>(Arrays.asList(null, "file:/srv/a/store", "file:/srv/b/store", "git:/srv/g",
        "memory:", "jdbc:h2:file:/srv/s", "JDBC:H2:mem:s", "jdbc:h2:tcp://h/store", "jdbc:h2:ssl://h/store",
        "s3://bucket/store", "jdbc:postgresql://other/store", "https://store.example/store/v1"));
    out.addAll(CATALOGS);
    out.add("jdbc:mariadb://db/lethe"); // the store URI of the jdbc:mysql: catalog
    return out;
  }

  /** A store only the server that serves it reaches: the oracle's own list, written apart from the rule. */
  private static boolean oracleLocal(String uri) {
    return Optional.ofNullable(uri).map(u -> u.toLowerCase(java.util.Locale.ROOT)).filter(u ->
        u.startsWith("file:") || u.startsWith("git:") || u.startsWith("memory:") || u.startsWith("jdbc:h2:file:")
            || u.startsWith("jdbc:h2:mem:")).isPresent();
  }

  private static boolean oracleShared(String catalog) {
    return catalog.startsWith("jdbc:postgresql:") || catalog.startsWith("jdbc:mariadb:") || catalog.startsWith("jdbc:mysql:");
  }

  private record Input(String catalog, String configured, String legacy, boolean holds) {
    StoreChoice decide() {
      return StoreChoice.decide(catalog, configured, legacy, holds);
    }
  }

  private static List<Input> everyInput() {
    List<Input> inputs = new ArrayList<>();
    for (String catalog : CATALOGS) {
      for (String configured : configured()) {
        for (String legacy : LEGACIES) {
          for (boolean holds : new boolean[] {false, true}) {
            inputs.add(new Input(catalog, configured, legacy, holds));
          }
        }
      }
    }
    return inputs;
  }

  /**
   * The input space is small (7 catalogs × 20 configured values × 2 data directories × 2), so every
   * input is checked, not a sample, against the properties the rule exists for.
   */
  @Test
  void everyInputKeepsTheRulesPromises() {
    List<Input> inputs = everyInput();
    for (Input in : inputs) {
      StoreChoice choice = in.decide();
      String what = in.toString();
      // a refusal only where the new default would set records aside
      assertThat(choice instanceof StoreChoice.Refuse).as(what)
          .isEqualTo(in.configured() == null && oracleShared(in.catalog()) && in.holds());
      if (choice instanceof StoreChoice.Serve serve) {
        // what is configured is served (a catalog URL opened as its store URI)
        if (in.configured() != null && !serve.inCatalogDatabase()) {
          assertThat(serve.uri()).as(what).isEqualTo(in.configured());
        }
        // an H2 catalog keeps today's default
        if (in.configured() == null && !oracleShared(in.catalog())) {
          assertThat(serve).as(what).isEqualTo(new StoreChoice.Serve(in.legacy(), false, Optional.empty()));
        }
        // a warning exactly when a shareable catalog is paired with a local store
        assertThat(serve.warning().isPresent()).as(what).isEqualTo(oracleShared(in.catalog()) && oracleLocal(serve.uri()));
        serve.warning().ifPresent(w -> assertThat(w).as(what).doesNotContain("hunter2"));
        // the catalog's credentials go only to the catalog's own database
        if (serve.inCatalogDatabase()) {
          assertThat(oracleShared(in.catalog())).as(what).isTrue();
          assertThat(serve.uri().replace("jdbc:mariadb:", "jdbc:mysql:"))
              .as(what).isEqualTo(in.catalog().replace("jdbc:mariadb:", "jdbc:mysql:"));
        }
      } else {
        assertThat(((StoreChoice.Refuse) choice).message()).as(what).doesNotContain("hunter2").contains(in.legacy());
      }
    }
    // no silent split: two replicas on one shareable catalog with the same store key, whatever their
    // data directories hold, serve one store, or one of them warns or refuses
    for (Input a : inputs) {
      for (Input b : inputs) {
        if (a.catalog().equals(b.catalog()) && oracleShared(a.catalog()) && java.util.Objects.equals(a.configured(), b.configured())
            && a.decide() instanceof StoreChoice.Serve sa && b.decide() instanceof StoreChoice.Serve sb
            && sa.warning().isEmpty() && sb.warning().isEmpty()) {
          assertThat(sa.uri()).as(a + " / " + b).isEqualTo(sb.uri());
        }
      }
    }
  }
}
