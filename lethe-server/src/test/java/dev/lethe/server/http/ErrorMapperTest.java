package dev.lethe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.junit.jupiter.api.Test;

class ErrorMapperTest {
  private static int status(Throwable e) {
    return ErrorMapper.answer(ErrorMapper.Surface.ICEBERG, e, false).status();
  }

  @Test
  void catalogFailuresMapToTheSpecStatusCodes() {
    assertThat(status(new NoSuchNamespaceException("x"))).isEqualTo(404);
    assertThat(status(new NoSuchTableException("x"))).isEqualTo(404);
    assertThat(status(new NoSuchViewException("x"))).isEqualTo(404);
    assertThat(status(new NotFoundException("x"))).isEqualTo(404);
    assertThat(status(new AlreadyExistsException("x"))).isEqualTo(409);
    assertThat(status(new CommitFailedException("x"))).isEqualTo(409);
    assertThat(status(new NamespaceNotEmptyException("x"))).isEqualTo(409);
    assertThat(status(new NotAuthorizedException("x"))).isEqualTo(401);
    assertThat(status(new ForbiddenException("x"))).isEqualTo(403);
    assertThat(status(new IllegalArgumentException("x"))).isEqualTo(400);
    assertThat(status(new UnsupportedOperationException("x"))).isEqualTo(406);
    assertThat(status(new IllegalStateException("x"))).isEqualTo(500);
  }

  @Test
  void aCatalogDatabaseThatClosedItselfIs503WithRetryAfterAndItsCause() {
    java.sql.SQLException closed = new java.sql.SQLNonTransientConnectionException(
        "The database has been closed [90098-252]", "90098", 90098, new java.io.IOException("No space left on device"));
    for (ErrorMapper.Surface surface : new ErrorMapper.Surface[] {ErrorMapper.Surface.ICEBERG, ErrorMapper.Surface.API}) {
      ErrorMapper.Answer r = ErrorMapper.answer(surface, new org.jdbi.v3.core.statement.UnableToExecuteStatementException(
          closed, null), false);
      assertThat(r.status()).isEqualTo(503);
      assertThat(r.type()).isEqualTo("ServiceUnavailableException");
      assertThat(r.message()).isEqualTo(
          "catalog database unavailable: The database has been closed [90098-252] (No space left on device)");
      assertThat(r.retryAfterSeconds()).isEqualTo(ErrorMapper.RETRY_AFTER_SECONDS);
    }
    // an empty pool (HikariCP's timeout) too
    assertThat(status(new org.jdbi.v3.core.ConnectionException(new java.sql.SQLTransientConnectionException(
        "lethe-catalog - Connection is not available, request timed out after 30000ms")))).isEqualTo(503);
  }

  @Test
  void aDatabaseErrorOfTheRequestItselfStaysAHidden500() {
    ErrorMapper.Answer r = ErrorMapper.answer(ErrorMapper.Surface.ICEBERG,
        new org.jdbi.v3.core.statement.UnableToExecuteStatementException(
            new java.sql.SQLIntegrityConstraintViolationException("duplicate key", "23505"), null), false);
    assertThat(r.status()).isEqualTo(500);
    assertThat(r.retryAfterSeconds()).isZero();
  }

  @Test
  void unexpectedFailuresHideTheirMessage() {
    ErrorMapper.Answer r = ErrorMapper.answer(ErrorMapper.Surface.ICEBERG, new IllegalStateException("jdbc:postgresql://db?password=secret"), false);
    assertThat(r.status()).isEqualTo(500);
    assertThat(r.type()).isEqualTo("InternalServerError");
    assertThat(r.message()).doesNotContain("secret");
  }

  @Test
  void knownFailuresKeepTypeAndMessage() {
    ErrorMapper.Answer r = ErrorMapper.answer(ErrorMapper.Surface.ICEBERG, new NoSuchTableException("Table does not exist: %s", "db.t"), false);
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.type()).isEqualTo("NoSuchTableException");
    assertThat(r.message()).isEqualTo("Table does not exist: db.t");
  }

  @Test
  void eachSurfaceNamesAFailureInItsOwnVocabulary() {
    IllegalArgumentException bad = new NumberFormatException("Invalid limit");
    assertThat(ErrorMapper.answer(ErrorMapper.Surface.ICEBERG, bad, false).type()).isEqualTo("NumberFormatException");
    assertThat(ErrorMapper.answer(ErrorMapper.Surface.API, bad, false).type()).isEqualTo("IllegalArgumentException");
    assertThat(ErrorMapper.answer(ErrorMapper.Surface.STORE, bad, false).type()).isEqualTo("BadRequest");
    assertThat(ErrorMapper.answer(ErrorMapper.Surface.STORE, new java.io.UncheckedIOException("down",
        new java.io.IOException("refused")), false))
        .extracting(ErrorMapper.Answer::status, ErrorMapper.Answer::type, ErrorMapper.Answer::message)
        .containsExactly(503, "StoreUnavailable", "down: refused");
    assertThat(ErrorMapper.answer(ErrorMapper.Surface.ICEBERG, new java.io.UncheckedIOException("down",
        new java.io.IOException("refused")), false).status()).isEqualTo(500);
    assertThat(ErrorMapper.answer(ErrorMapper.Surface.STORE, new NoSuchTableException("x"), false).status()).isEqualTo(500);
    assertThat(ErrorMapper.answer(ErrorMapper.Surface.API, new ApiException(410, "TableNotRecoverableException", "gone"),
        true)).extracting(ErrorMapper.Answer::status, ErrorMapper.Answer::type).containsExactly(410,
        "TableNotRecoverableException");
  }

  /**
   * Seeded: whatever the failure and surface, a client error keeps its answer while the server
   * stops, a server error becomes the stop's 503 (an HTTP refusal keeps its own status), and a
   * hidden 500 names nothing of its cause.
   */
  @Test
  void randomFailuresKeepTheStopAndHidingRules() {
    long seed = Long.getLong("lethe.test.seed", System.nanoTime());
    java.util.Random random = new java.util.Random(seed);
    java.util.List<java.util.function.Supplier<Throwable>> failures = java.util.List.of(
        () -> new NoSuchTableException("secret-t"), () -> new AlreadyExistsException("secret-a"),
        () -> new IllegalArgumentException("secret-i"), () -> new IllegalStateException("secret-s"),
        () -> new NotAuthorizedException("secret-n"), () -> new ForbiddenException("secret-f"),
        () -> new java.io.UncheckedIOException("secret-u", new java.io.IOException("x")),
        () -> new io.javalin.http.HttpResponseException(503, "secret-h"),
        () -> new io.javalin.http.HttpResponseException(413, "secret-l"),
        () -> new ApiException(404, "NoSuchMetalakeException", "secret-m"),
        () -> new UnsupportedOperationException("secret-o"), () -> new RuntimeException("secret-r"));
    for (int i = 0; i < 2_000; i++) {
      Throwable failure = failures.get(random.nextInt(failures.size())).get();
      ErrorMapper.Surface surface = ErrorMapper.Surface.values()[random.nextInt(3)];
      ErrorMapper.Answer running = ErrorMapper.answer(surface, failure, false);
      ErrorMapper.Answer stopping = ErrorMapper.answer(surface, failure, true);
      String what = "seed " + seed + ": " + failure + " on " + surface;
      assertThat(running.status()).as(what).isBetween(400, 599);
      assertThat(running.type()).as(what).isNotBlank();
      if (running.status() < 500 || failure instanceof io.javalin.http.HttpResponseException) {
        assertThat(stopping).as(what).isEqualTo(running);
      } else {
        assertThat(stopping.status()).as(what).isEqualTo(503);
        assertThat(stopping.message()).as(what).isEqualTo(ShutdownGate.MESSAGE);
        assertThat(stopping.close()).as(what).isTrue();
      }
      if (running.type().equals("InternalServerError")) {
        assertThat(running.message()).as(what).isEqualTo(ErrorMapper.INTERNAL);
      }
    }
  }
}
