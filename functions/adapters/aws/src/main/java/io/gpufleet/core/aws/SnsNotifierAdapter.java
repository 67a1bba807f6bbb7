package io.gpufleet.core.aws;

import io.gpufleet.core.outcome.NotifierPort;
import software.amazon.awssdk.services.sns.SnsClient;

/**
 * Publishes a summary to an SNS topic. SNS wants subjects "less than 100 characters long" with no
 * line breaks or control characters, so longer subjects are cut and control characters blanked.
 */
public final class SnsNotifierAdapter implements NotifierPort {
  static final int MAX_SUBJECT = 99;

  private final SnsClient sns;
  private final String topicArn;

  public SnsNotifierAdapter(SnsClient sns, String topicArn) {
    this.sns = sns;
    this.topicArn = topicArn;
  }

  @Override
  public void notify(String subject, String message) {
    sns.publish(r -> r.topicArn(topicArn).subject(subject(subject)).message(message));
  }

  static String subject(String subject) {
    String clean = subject.replaceAll("\\p{Cntrl}", " ");
    if (clean.length() <= MAX_SUBJECT) {
      return clean;
    }
    int end = MAX_SUBJECT - 1;
    if (Character.isHighSurrogate(clean.charAt(end - 1))) {
      end--;
    }
    return clean.substring(0, end) + "…";
  }
}
