package io.gpufleet.drain.aws;

import io.gpufleet.drain.ContinuationPort;
import java.time.Duration;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Continuations as delayed SQS messages: the queue's event source mapping hands them back to this
 * function. SQS delays a message by at most 15 minutes.
 */
public final class SqsContinuationAdapter implements ContinuationPort {
  public static final Duration MAX_DELAY = Duration.ofMinutes(15);
  private final SqsClient client;
  private final String queueUrl;

  public SqsContinuationAdapter(SqsClient client, String queueUrl) {
    this.client = client;
    this.queueUrl = queueUrl;
  }

  @Override
  public void schedule(String body, Duration delay) {
    long seconds = Math.max(0, Math.min(MAX_DELAY.toSeconds(), delay.toSeconds()));
    client.sendMessage(r -> r.queueUrl(queueUrl).messageBody(body).delaySeconds((int) seconds));
  }
}
