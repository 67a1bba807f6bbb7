package io.gpufleet.core.aws;

/**
 * An EC2 request that failed: the HTTP status (0 when no answer came), EC2's error code and message
 * (from {@code <Response><Errors><Error><Code>/<Message>}), and the request id when EC2 sent one.
 * {@link #retryable()} says whether the same request may succeed later (throttling, server errors,
 * transport failures).
 */
public final class Ec2QueryException extends AwsCallException {
  Ec2QueryException(String operation, int status, String code, String awsMessage, Throwable cause) {
    this(operation, status, code, awsMessage, null, cause);
  }

  Ec2QueryException(
      String operation,
      int status,
      String code,
      String awsMessage,
      String requestId,
      Throwable cause) {
    super(
        "EC2",
        operation,
        status,
        code,
        awsMessage,
        requestId,
        retryable(status, code, Ec2Query.RETRYABLE),
        cause);
  }

  /** The error of a non-2xx answer: EC2's error document, or the start of whatever came. */
  static Ec2QueryException fromAnswer(String operation, int status, byte[] body) {
    var error = Ec2Xml.Error.of(status, body, "Errors/Error", "RequestID");
    return new Ec2QueryException(
        operation, status, error.code(), error.message(), error.requestId(), null);
  }
}
