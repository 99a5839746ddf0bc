package dev.lethe.catalog.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransientConnectionException;
import org.h2.api.ErrorCode;
import org.h2.jdbc.JdbcSQLNonTransientConnectionException;
import org.h2.message.DbException;
import org.h2.mvstore.DataUtils;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

class DatabaseUnavailableTest {
  @Test
  void anH2DatabaseClosedOnAFullDiskIsUnavailableAndNamesTheOperatingSystemsReason() {
    // as H2 2.5 throws it on every pooled connection once its store failed to write
    SQLException closed = new JdbcSQLNonTransientConnectionException("The database has been closed [90098-252]", null,
        "90098", ErrorCode.DATABASE_IS_CLOSED, DataUtils.newMVStoreException(DataUtils.ERROR_WRITING_FAILED,
            "Writing to {0} failed", "/srv/lethe/catalog.mv.db", new IOException("No space left on device")), null);
    UnableToExecuteStatementException wrapped = new UnableToExecuteStatementException(closed, null);

    assertThat(DatabaseUnavailable.is(wrapped)).isTrue();
    assertThat(DatabaseUnavailable.message(wrapped)).hasValueSatisfying(m -> assertThat(m)
        .startsWith("catalog database unavailable: The database has been closed")
        .endsWith("(No space left on device)"));
  }

  @Test
  void theFirstFailedWriteOfAnH2StoreIsUnavailableAndHidesThePath() {
    RuntimeException failedWrite = DataUtils.newMVStoreException(DataUtils.ERROR_WRITING_FAILED,
        "Writing to {0} failed", "/srv/lethe/catalog.mv.db", new IOException("No space left on device"));

    assertThat(DatabaseUnavailable.message(failedWrite)).hasValueSatisfying(m -> assertThat(m)
        .doesNotContain("/srv/lethe").contains("<path>").contains("No space left on device"));
  }

  @Test
  void aLostPostgresqlConnectionAndAnEmptyPoolAreUnavailable() {
    assertThat(DatabaseUnavailable.is(new PSQLException("An I/O error occurred while sending to the backend.",
        PSQLState.CONNECTION_FAILURE))).isTrue();
    assertThat(DatabaseUnavailable.is(new SQLException("terminating connection due to administrator command",
        "57P01"))).isTrue();
    SQLTransientConnectionException poolTimeout = new SQLTransientConnectionException(
        "lethe-catalog - Connection is not available, request timed out after 30000ms (total=0, active=0, idle=0, waiting=0)",
        "08003", new SQLException("Connection refused", "08001"));
    assertThat(DatabaseUnavailable.message(new RuntimeException(poolTimeout))).hasValueSatisfying(m -> assertThat(m)
        .startsWith("catalog database unavailable: lethe-catalog - Connection is not available")
        .endsWith("(Connection refused)"));
  }

  @Test
  void aRequestsOwnDatabaseErrorIsNotUnavailability() {
    assertThat(DatabaseUnavailable.is(new SQLIntegrityConstraintViolationException("duplicate key", "23505"))).isFalse();
    assertThat(DatabaseUnavailable.is(DbException.getJdbcSQLException(ErrorCode.DUPLICATE_KEY_1, "x"))).isFalse();
    assertThat(DatabaseUnavailable.is(new IllegalStateException("x", new IOException("y")))).isFalse();
    assertThat(DatabaseUnavailable.message(new IllegalArgumentException("x"))).isEmpty();
    assertThat(DatabaseUnavailable.is(null)).isFalse();
  }
}
