package dev.lethe.store.s3;

import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What an S3 failure means to the store (docs/design/0130-s3-store-substrate.md "Writes"): a lost
 * race to plan again from a fresh read, a transient server failure to try again, or a failure to
 * report, in one line that names no secret.
 */
final class S3Errors {

  private S3Errors() {}

  /**
   * Whether a conditional write lost to another writer: {@code 412 PreconditionFailed}, {@code 409
   * ConditionalRequestConflict}, or {@code 404 NoSuchKey} (the key vanished between the read and an
   * {@code If-Match} write).
   */
  static boolean lostRace(SdkException e) {
    if (!(e instanceof S3Exception s3)) {
      return false;
    }
    int status = s3.statusCode();
    String code = code(s3);
    return status == 412 || (status == 409 && "ConditionalRequestConflict".equals(code))
        || (status == 404 && !"NoSuchBucket".equals(code));
  }

  /** Whether a request failed in a way the same request may not fail again: a 5xx or a throttle. */
  static boolean transientFailure(SdkException e) {
    return e instanceof S3Exception s3 && (s3.statusCode() >= 500 || s3.statusCode() == 429);
  }

  /** Whether a read found no object (and the bucket exists). */
  static boolean noSuchKey(SdkException e) {
    return e instanceof S3Exception s3 && s3.statusCode() == 404 && !"NoSuchBucket".equals(code(s3));
  }

  /** One line saying what went wrong, for a message after "Cannot … in s3://…: ". */
  static String describe(SdkException e) {
    if (e instanceof S3Exception s3) {
      String code = code(s3);
      if (s3.statusCode() == 404 && "NoSuchBucket".equals(code)) {
        return "the bucket does not exist";
      }
      if (s3.statusCode() == 403) {
        return "access denied (HTTP 403" + (code == null ? "" : " " + code) + "): check the credentials";
      }
      String message = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorMessage();
      return "HTTP " + s3.statusCode() + (code == null ? "" : " " + code)
          + (message == null || message.isBlank() ? "" : ": " + firstLine(message));
    }
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : firstLine(e.getMessage());
    if (e instanceof SdkClientException && m.startsWith("Unable to load credentials")) {
      return "no credentials found (set " + S3Settings.ACCESS_KEY_ID + " and " + S3Settings.SECRET_ACCESS_KEY
          + ", AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or an AWS profile)";
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != e && root.getMessage() != null) {
      return m + " (" + root.getClass().getSimpleName() + ": " + firstLine(root.getMessage()) + ")";
    }
    return m;
  }

  private static String code(S3Exception e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
