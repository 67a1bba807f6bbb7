package io.gpufleet.core.aws;

/**
 * A request to an AWS service that failed: the service and operation, the HTTP status (0 when no
 * answer came), the service's error code and message, and the request id when one was sent. {@link
 * #retryable()} says whether the same request may succeed later (throttling, server errors,
 * transport failures), as the protocol client that raised it judged.
 */
public class AwsCallException extends RuntimeException {
  private final String service;
  private final String operation;
  private final int status;
  private final String code;
  private final String awsMessage;
  private final String requestId;
  private final boolean retryable;

  public AwsCallException(
      String service,
      String operation,
      int status,
      String code,
      String awsMessage,
      String requestId,
      boolean retryable,
      Throwable cause) {
    super(
        service
            + " "
            + operation
            + (status > 0 ? " answered HTTP " + status : " failed")
            + ": "
            + code
            + (awsMessage == null || awsMessage.isEmpty() ? "" : " (" + awsMessage + ")")
            + (requestId == null ? "" : " [request " + requestId + "]"),
        cause);
    this.service = service;
    this.operation = operation;
    this.status = status;
    this.code = code;
    this.awsMessage = awsMessage;
    this.requestId = requestId;
    this.retryable = retryable;
  }

  /** Whether a status and code mean "try again later": 5xx, no answer, or a throttling code. */
  protected static boolean retryable(
      int status, String code, java.util.Set<String> retryableCodes) {
    return status >= 500 || status == 0 || retryableCodes.contains(code);
  }

  public String service() {
    return service;
  }

  public String operation() {
    return operation;
  }

  /** The HTTP status; 0 when the request got no answer. */
  public int status() {
    return status;
  }

  /** The service's error code ({@code ThrottlingException}, {@code NoSuchKey}, ...). */
  public String code() {
    return code;
  }

  /** The service's error message, or null. */
  public String awsMessage() {
    return awsMessage;
  }

  public String requestId() {
    return requestId;
  }

  /** Throttling, a server error or no answer at all: the same request may succeed later. */
  public boolean retryable() {
    return retryable;
  }
}
