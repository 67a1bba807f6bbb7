package io.gpufleet.core.aws;

import io.gpufleet.core.outcome.NotifierPort;

/**
 * Publishes a summary to an SNS topic with {@code Publish} (through {@link AwsQuery}, no SDK
 * service client). SNS wants subjects "less than 100 characters long" with no line breaks or
 * control characters, so longer subjects are cut and control characters blanked.
 */
public final class SnsNotifierAdapter implements NotifierPort {
  static final int MAX_SUBJECT = 99;

  private final AwsQuery sns;
  private final String topicArn;

  public SnsNotifierAdapter(AwsQuery sns, String topicArn) {
    if (!sns.service().equals(AwsQuery.SNS)) {
      throw new IllegalArgumentException("not an SNS client: " + sns.service());
    }
    this.sns = sns;
    this.topicArn = topicArn;
  }

  @Override
  public void notify(String subject, String message) {
    sns.call(
        sns.params("Publish")
            .put("TopicArn", topicArn)
            .put("Subject", subject(subject))
            .put("Message", message));
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
