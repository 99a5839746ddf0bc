package dev.lethe.server.iceberg;

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
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.junit.jupiter.api.Test;

class IcebergErrorsTest {
  @Test
  void catalogFailuresMapToTheSpecStatusCodes() {
    assertThat(IcebergErrors.statusOf(new NoSuchNamespaceException("x"))).isEqualTo(404);
    assertThat(IcebergErrors.statusOf(new NoSuchTableException("x"))).isEqualTo(404);
    assertThat(IcebergErrors.statusOf(new NoSuchViewException("x"))).isEqualTo(404);
    assertThat(IcebergErrors.statusOf(new NotFoundException("x"))).isEqualTo(404);
    assertThat(IcebergErrors.statusOf(new AlreadyExistsException("x"))).isEqualTo(409);
    assertThat(IcebergErrors.statusOf(new CommitFailedException("x"))).isEqualTo(409);
    assertThat(IcebergErrors.statusOf(new NamespaceNotEmptyException("x"))).isEqualTo(409);
    assertThat(IcebergErrors.statusOf(new NotAuthorizedException("x"))).isEqualTo(401);
    assertThat(IcebergErrors.statusOf(new ForbiddenException("x"))).isEqualTo(403);
    assertThat(IcebergErrors.statusOf(new IllegalArgumentException("x"))).isEqualTo(400);
    assertThat(IcebergErrors.statusOf(new UnsupportedOperationException("x"))).isEqualTo(406);
    assertThat(IcebergErrors.statusOf(new IllegalStateException("x"))).isEqualTo(500);
  }

  @Test
  void unexpectedFailuresHideTheirMessage() {
    ErrorResponse r = IcebergErrors.toErrorResponse(new IllegalStateException("jdbc:postgresql://db?password=secret"));
    assertThat(r.code()).isEqualTo(500);
    assertThat(r.type()).isEqualTo("InternalServerError");
    assertThat(r.message()).doesNotContain("secret");
  }

  @Test
  void knownFailuresKeepTypeAndMessage() {
    ErrorResponse r = IcebergErrors.toErrorResponse(new NoSuchTableException("Table does not exist: %s", "db.t"));
    assertThat(r.code()).isEqualTo(404);
    assertThat(r.type()).isEqualTo("NoSuchTableException");
    assertThat(r.message()).isEqualTo("Table does not exist: db.t");
  }
}
