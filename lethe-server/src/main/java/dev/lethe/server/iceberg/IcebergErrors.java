package dev.lethe.server.iceberg;

import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.UnprocessableEntityException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * Maps a failure of a catalog call to the Iceberg REST {@link ErrorResponse} with the spec's status
 * code. Unknown failures become a 500 whose message names no internals.
 */
public final class IcebergErrors {
  private IcebergErrors() {}

  /** The error response for a failure; never null. */
  public static ErrorResponse toErrorResponse(Throwable failure) {
    int code = statusOf(failure);
    String type = code == 500 && !(failure instanceof CommitStateUnknownException)
        ? "InternalServerError" : failure.getClass().getSimpleName();
    String message = code == 500 && !(failure instanceof CommitStateUnknownException)
        ? "Internal server error; see the server log"
        : String.valueOf(failure.getMessage());
    return ErrorResponse.builder().responseCode(code).withType(type).withMessage(message).build();
  }

  /** The HTTP status of a failure. */
  public static int statusOf(Throwable failure) {
    if (failure instanceof NoSuchNamespaceException
        || failure instanceof NoSuchTableException
        || failure instanceof NoSuchViewException
        || failure instanceof NotFoundException) {
      return 404;
    }
    if (failure instanceof AlreadyExistsException
        || failure instanceof CommitFailedException
        || failure instanceof NamespaceNotEmptyException) {
      return 409;
    }
    if (failure instanceof NotAuthorizedException) {
      return 401;
    }
    if (failure instanceof ForbiddenException) {
      return 403;
    }
    if (failure instanceof UnprocessableEntityException) {
      return 422;
    }
    if (failure instanceof UnsupportedOperationException) {
      return 406;
    }
    if (failure instanceof IllegalArgumentException || failure instanceof ValidationException) {
      return 400;
    }
    return 500;
  }
}
