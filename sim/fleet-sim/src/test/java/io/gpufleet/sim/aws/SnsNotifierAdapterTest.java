package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsQuery;
import io.gpufleet.core.aws.SnsNotifierAdapter;
import io.gpufleet.core.json.Json;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * SnsNotifierAdapter publishes (through {@link AwsQuery}, held to botocore's sns model) to a topic
 * with an SQS subscription, where the message is checked; topic and queue are set up with the SDK
 * clients. SNS's error documents and throttling come from a stub.
 */
class SnsNotifierAdapterTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();

  private static SnsClient sns;
  private static AwsQuery publish;
  private static SqsClient sqs;
  private static String topicArn;
  private static String queueUrl;

  @BeforeAll
  static void subscribeAQueue() {
    var clients = AWS.emulator().clients();
    sns = clients.build(SnsClient.builder());
    publish = AwsQuery.from(clients, AwsQuery.SNS);
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
    var notifier = new SnsNotifierAdapter(publish, topicArn);

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
    var notifier = new SnsNotifierAdapter(publish, topicArn);

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
    var notifier = new SnsNotifierAdapter(publish, topicArn);

    // When
    notifier.notify("Drain of i-0abc\r\nfinished\tok", "7 pods evicted");

    // Then
    var notification = receiveOne();
    assertThat(notification.path("Subject").asText()).isEqualTo("Drain of i-0abc  finished ok");
    assertThat(notification.path("Message").asText()).isEqualTo("7 pods evicted");
  }

  @Test
  void shouldFailWithSnssErrorCodeForATopicThatDoesNotExist() {
    var missing = topicArn + "-gone";
    var notifier = new SnsNotifierAdapter(publish, missing);

    assertThatThrownBy(() -> notifier.notify("subject", "message"))
        .isInstanceOfSatisfying(
            AwsCallException.class,
            e -> {
              assertThat(e.service()).isEqualTo("SNS");
              assertThat(e.operation()).isEqualTo("Publish");
              assertThat(e.code()).isEqualTo("NotFound");
              assertThat(e.retryable()).isFalse();
            });
  }

  /** SNS's error document, as the query protocol writes it. */
  static AwsStubServer.Reply snsError(int status, String type, String code, String message) {
    return new AwsStubServer.Reply(
        status,
        "text/xml",
        """
        <ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>%s</Type>
        <Code>%s</Code><Message>%s</Message></Error><RequestId>req-%s</RequestId></ErrorResponse>
        """
            .formatted(type, code, message, code));
  }

  @Test
  void shouldRetryAThrottledPublishAndThenSucceed() {
    try (var stub = AwsStubServer.start()) {
      var calls = new AtomicInteger();
      stub.on(
          "Publish",
          c ->
              calls.incrementAndGet() == 1
                  ? snsError(400, "Sender", "Throttling", "Rate exceeded")
                  : AwsStubServer.Reply.xml(
                      """
                      <PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">
                      <PublishResult><MessageId>m-1</MessageId></PublishResult>
                      <ResponseMetadata><RequestId>r-2</RequestId></ResponseMetadata>
                      </PublishResponse>
                      """));

      notifier(stub).notify("Drain done", "7 evicted");

      assertThat(stub.calls()).hasSize(2);
      var sent = stub.calls().get(1);
      assertThat(sent.params())
          .containsEntry("Action", "Publish")
          .containsEntry("Version", "2010-03-31")
          .containsEntry("TopicArn", topicArn)
          .containsEntry("Subject", "Drain done")
          .containsEntry("Message", "7 evicted");
      assertThat(sent.region()).isEqualTo("us-east-1");
    }
  }

  @Test
  void shouldReadTheCodeMessageAndRequestIdOfSnssErrorDocument() {
    try (var stub = AwsStubServer.start()) {
      stub.on(
          "Publish",
          c -> snsError(403, "Sender", "AuthorizationError", "not authorized to sns:Publish"));

      assertThatThrownBy(() -> notifier(stub).notify("s", "m"))
          .isInstanceOfSatisfying(
              AwsCallException.class,
              e -> {
                assertThat(e.code()).isEqualTo("AuthorizationError");
                assertThat(e.status()).isEqualTo(403);
                assertThat(e.awsMessage()).isEqualTo("not authorized to sns:Publish");
                assertThat(e.requestId()).isEqualTo("req-AuthorizationError");
                assertThat(e.retryable()).isFalse();
              });
      assertThat(stub.calls()).hasSize(1);
    }
  }

  @Test
  void shouldNameTheStatusWhenTheErrorIsNotSnssDocument() {
    try (var stub = AwsStubServer.start()) {
      stub.on("Publish", c -> new AwsStubServer.Reply(502, "text/html", "<html>Bad Gateway"));

      assertThatThrownBy(() -> notifier(stub).notify("s", "m"))
          .isInstanceOfSatisfying(
              AwsCallException.class,
              e -> {
                assertThat(e.code()).isEqualTo("HTTP502");
                assertThat(e.retryable()).isTrue();
              });
      // a server error is retried: the standard policy's three attempts
      assertThat(stub.calls()).hasSize(3);
    }
  }

  /** A notifier publishing to {@code topicArn} through the stub. */
  private static SnsNotifierAdapter notifier(AwsStubServer stub) {
    return new SnsNotifierAdapter(
        AwsQuery.from(stub.clients(Region.US_EAST_1), AwsQuery.SNS), topicArn);
  }
}
