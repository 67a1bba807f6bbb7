package io.gpufleet.core.aws;

/**
 * An EC2 request that failed: the HTTP status (0 when no answer came), EC2's error code and message
 * (from {@code <Response><Errors><Error><Code>/<Message>}), and the request id when EC2 sent one.
 * {@link #retryable()} says whether the same request may succeed later (throttling, server errors,
 * transport failures).
 */
public final class Ec2QueryException extends RuntimeException {
  private final String operation;
  private final int status;
  private final String code;
  private final String awsMessage;
  private final String requestId;

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
        "EC2 "
            + operation
            + (status > 0 ? " answered HTTP " + status : " failed")
            + ": "
            + code
            + (awsMessage == null || awsMessage.isEmpty() ? "" : " (" + awsMessage + ")")
            + (requestId == null ? "" : " [request " + requestId + "]"),
        cause);
    this.operation = operation;
    this.status = status;
    this.code = code;
    this.awsMessage = awsMessage;
    this.requestId = requestId;
  }

  /** The error of a non-2xx answer: EC2's error document, or the start of whatever came. */
  static Ec2QueryException fromAnswer(String operation, int status, byte[] body) {
    Ec2Xml error;
    try {
      error = Ec2Xml.parse(body, operation);
    } catch (Ec2QueryException notXml) {
      String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
      return new Ec2QueryException(
          operation,
          status,
          "HTTP" + status,
          text.substring(0, Math.min(200, text.length())),
          null);
    }
    String code = error.text("Errors/Error/Code");
    return new Ec2QueryException(
        operation,
        status,
        code == null ? "HTTP" + status : code,
        error.text("Errors/Error/Message"),
        error.text("RequestID"),
        null);
  }

  public String operation() {
    return operation;
  }

  /** The HTTP status; 0 when the request got no answer. */
  public int status() {
    return status;
  }

  /** EC2's error code ({@code RequestLimitExceeded}, {@code InvalidInstanceID.NotFound}, ...). */
  public String code() {
    return code;
  }

  /** EC2's error message, or null. */
  public String awsMessage() {
    return awsMessage;
  }

  public String requestId() {
    return requestId;
  }

  /** Throttling, a server error or no answer at all: the same request may succeed later. */
  public boolean retryable() {
    return Ec2Query.RETRYABLE.contains(code) || status >= 500 || status == 0;
  }
}
