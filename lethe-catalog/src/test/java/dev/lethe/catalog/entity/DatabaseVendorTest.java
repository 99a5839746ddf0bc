package dev.lethe.catalog.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.catalog.Namespace;
import org.junit.jupiter.api.Test;

class DatabaseVendorTest {
  @Test
  void vendorAndMigrationFolderFollowTheJdbcUrl() {
    assertThat(DatabaseVendor.fromJdbcUrl("jdbc:h2:file:/x/catalog")).isEqualTo(DatabaseVendor.H2);
    assertThat(DatabaseVendor.fromJdbcUrl("jdbc:postgresql://db/x")).isEqualTo(DatabaseVendor.POSTGRESQL);
    assertThat(DatabaseVendor.fromJdbcUrl("jdbc:mariadb://db/x").migrationLocation()).isEqualTo("classpath:db/migration/mysql");
    assertThat(DatabaseVendor.fromJdbcUrl("jdbc:mysql://db/x")).isEqualTo(DatabaseVendor.MYSQL);
  }

  @Test
  void unsupportedUrlNamesOnlyItsSchemeNeverCredentials() {
    assertThatThrownBy(() -> DatabaseVendor.fromJdbcUrl("jdbc:oracle:thin:scott/tiger@db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:oracle:")
        .hasMessageNotContaining("tiger");
  }

  @Test
  void namespaceLevelsRoundTripThroughTheStoredName() {
    Namespace ns = Namespace.of("a", "b.c", "d");
    assertThat(NamespaceNames.decode(NamespaceNames.encode(ns))).isEqualTo(ns);
    assertThat(NamespaceNames.parentOf(ns)).isEqualTo(NamespaceNames.encode(Namespace.of("a", "b.c")));
    assertThat(NamespaceNames.parentOf(Namespace.of("a"))).isEmpty();
  }
}
