package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.SnsNotifierAdapter;
import io.gpufleet.core.json.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * SnsNotifierAdapter publishes to a topic with an SQS subscription, where the message is checked.
 */
class SnsNotifierAdapterTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();

  private static SnsClient sns;
  private static SqsClient sqs;
  private static String topicArn;
  private static String queueUrl;

  @BeforeAll
  static void subscribeAQueue() {
    var clients = AWS.emulator().clients();
    sns = clients.build(SnsClient.builder());
    sqs = clients.build(SqsClient.builder());
    topicArn = sns.createTopic(r -> r.name("gpufleet-alerts")).topicArn();
    queueUrl = sqs.createQueue(r -> r.queueName("alerts-inbox")).queueUrl();
    String queueArn =
        sqs.getQueueAttributes(
                r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
            .attributes()
            .get(QueueAttributeName.QUEUE_ARN);
    sns.subscribe(r -> r.topicArn(topicArn).protocol("sqs").endpoint(queueArn));
  }

  @AfterAll
  static void closeClients() {
    sns.close();
    sqs.close();
  }

  /** The SNS notification envelope SQS received. */
  private static JsonNode receiveOne() throws Exception {
    var messages =
        sqs.receiveMessage(r -> r.queueUrl(queueUrl).maxNumberOfMessages(10).waitTimeSeconds(10))
            .messages();
    assertThat(messages).hasSize(1);
    sqs.deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(messages.get(0).receiptHandle()));
    return Json.MAPPER.readTree(messages.get(0).body());
  }

  @Test
  void shouldCutALongSubjectBelowOneHundredCharactersAndKeepTheMessage() throws Exception {
    // Given a 150-character subject
    var subject =
        ("GPU capacity preflight NO-GO: " + "p5.48xlarge us-east-1 ".repeat(6)).substring(0, 150);
    assertThat(subject).hasSize(150);
    var message = "us-east-1: quota L-417A185B has 192 vCPUs free, plan needs 384\nus-west-2: GO";
    var notifier = new SnsNotifierAdapter(sns, topicArn);

    // When
    notifier.notify(subject, message);

    // Then
    var notification = receiveOne();
    assertThat(notification.path("Type").asText()).isEqualTo("Notification");
    assertThat(notification.path("TopicArn").asText()).isEqualTo(topicArn);
    assertThat(notification.path("Message").asText()).isEqualTo(message);
    var received = notification.path("Subject").asText();
    assertThat(received).hasSize(99).endsWith("…");
    assertThat(subject).startsWith(received.substring(0, 98));
  }

  @ParameterizedTest(name = "{0} characters")
  @CsvSource({"99, 99, false", "100, 99, true"})
  void shouldCutOnlySubjectsOfOneHundredCharactersOrMore(
      int length, int expectedLength, boolean cut) throws Exception {
    // Given
    var subject = "Cost report prod-gpu ".repeat(10).substring(0, length);
    var notifier = new SnsNotifierAdapter(sns, topicArn);

    // When
    notifier.notify(subject, "see the report");

    // Then
    var received = receiveOne().path("Subject").asText();
    assertThat(received).hasSize(expectedLength);
    assertThat(received.endsWith("…")).isEqualTo(cut);
  }

  @Test
  void shouldBlankLineBreaksAndControlCharactersInTheSubject() throws Exception {
    // Given
    var notifier = new SnsNotifierAdapter(sns, topicArn);

    // When
    notifier.notify("Drain of i-0abc\r\nfinished\tok", "7 pods evicted");

    // Then
    var notification = receiveOne();
    assertThat(notification.path("Subject").asText()).isEqualTo("Drain of i-0abc  finished ok");
    assertThat(notification.path("Message").asText()).isEqualTo("7 pods evicted");
  }
}
