package io.gpufleet.core.aws;

import io.gpufleet.core.outcome.Notifier;
import software.amazon.awssdk.services.sns.SnsClient;

/** Publishes a summary to an SNS topic (subjects are cut to SNS's 100 characters). */
public final class SnsNotifier implements Notifier {
  private final SnsClient sns;
  private final String topicArn;

  public SnsNotifier(SnsClient sns, String topicArn) {
    this.sns = sns;
    this.topicArn = topicArn;
  }

  @Override
  public void notify(String subject, String message) {
    String cut = subject.length() > 100 ? subject.substring(0, 99) + "…" : subject;
    sns.publish(
        r -> r.topicArn(topicArn).subject(cut.replaceAll("[\\r\\n]", " ")).message(message));
  }
}
