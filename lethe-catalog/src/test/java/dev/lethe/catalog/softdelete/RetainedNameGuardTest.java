package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.purge.ParquetTables;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the 409 of a held name tells the user at each stage of the retained deletion. */
class RetainedNameGuardTest extends SoftDeleteFixture {

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theHeldNameMessageSaysWhetherWaitingFreesTheName(String backend) throws Exception {
    open(backend);
    catalog.createTable(id("t"), ParquetTables.SCHEMA);
    SoftDeletes sd = softDeletes(true, 0);
    DeletionRecord r = drop(sd, "t", true);
    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("entity id " + r.entityId()).hasMessageContaining("undrop");

    long jobId = sd.expireDue(10).get(0).purgeJobId();
    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("it is being purged (cleanup job " + jobId + ", PENDING); the name is free once the purge succeeds");

    // the row a purge worker leaves when it gives up (SoftDeleteExpiryTest drives a real worker there)
    db.jdbi().useHandle(h -> h.createUpdate("UPDATE lethe_cleanup_job SET state = 'FAILED', attempts = 5, "
        + "last_error = 'gave up' WHERE job_id = :id").bind("id", jobId).execute());
    assertThatThrownBy(() -> catalog.createTable(id("t"), ParquetTables.SCHEMA))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessageContaining("its purge failed (cleanup job " + jobId + " FAILED); the name stays reserved until an operator")
        .hasMessageNotContaining("free once");
  }
}
