package io.gpufleet.core.s3;

import io.gpufleet.core.aws.AwsCallException;
import java.util.Set;

/**
 * An S3 request that failed: the HTTP status (0 when no answer came), S3's error code and message
 * (from its {@code <Error><Code>/<Message>/<RequestId>} document, or named from the status when the
 * answer had no body), and the request id. Server errors, {@code SlowDown} and transport failures
 * are {@link #retryable()}.
 */
public final class S3RestException extends AwsCallException {
  /** Codes meaning "try again" (with HTTP 5xx and no answer, always retried). */
  static final Set<String> RETRYABLE =
      Set.of("SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout");

  S3RestException(
      String operation,
      int status,
      String code,
      String awsMessage,
      String requestId,
      Throwable cause) {
    super(
        S3Rest.SERVICE_ID,
        operation,
        status,
        code,
        awsMessage,
        requestId,
        retryable(status, code, RETRYABLE),
        cause);
  }

  /**
   * A conditional write that did not happen: 412 {@code PreconditionFailed} (the object exists for
   * {@code If-None-Match: *}, or its ETag moved for {@code If-Match}) or 409 {@code
   * ConditionalRequestConflict} (a concurrent conditional write of the same key won).
   */
  public boolean conditionRefused() {
    return status() == 412 || status() == 409;
  }

  /** 404 {@code NoSuchKey}: the object is not there. */
  public boolean noSuchKey() {
    return status() == 404 && "NoSuchKey".equals(code());
  }

  /** 404 {@code NoSuchBucket}: the bucket is not there. */
  public boolean noSuchBucket() {
    return status() == 404 && "NoSuchBucket".equals(code());
  }
}
