package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.EventBridgeAdapter;
import io.gpufleet.core.json.Json;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * EventBridgeAdapter puts an event (through {@link AwsJson}, held to botocore's model) that a rule
 * routes to SQS, where its shape is checked; the rule and queue are set up with the SDK clients.
 */
class EventBridgeAdapterTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();

  static final String SOURCE = "gpufleet.interruption-drain";

  record DrainDetail(String instanceId, String nodeName, int evicted, List<String> blocked) {}

  private static EventBridgeClient events;
  private static AwsJson putEvents;
  private static SqsClient sqs;
  private static String queueUrl;

  @BeforeAll
  static void routeOutcomesToAQueue() {
    var clients = AWS.emulator().clients();
    events = clients.build(EventBridgeClient.builder());
    putEvents = AwsJson.from(clients, AwsJson.EVENTBRIDGE);
    sqs = clients.build(SqsClient.builder());
    queueUrl = sqs.createQueue(r -> r.queueName("drain-outcomes")).queueUrl();
    String queueArn =
        sqs.getQueueAttributes(
                r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
            .attributes()
            .get(QueueAttributeName.QUEUE_ARN);
    events.putRule(
        r ->
            r.name("drain-outcomes")
                .eventBusName("default")
                .eventPattern("{\"source\": [\"" + SOURCE + "\"]}"));
    events.putTargets(
        r ->
            r.rule("drain-outcomes")
                .eventBusName("default")
                .targets(t -> t.id("queue").arn(queueArn)));
  }

  @AfterAll
  static void closeClients() {
    events.close();
    sqs.close();
  }

  private static JsonNode receiveOne() throws Exception {
    var messages =
        sqs.receiveMessage(r -> r.queueUrl(queueUrl).maxNumberOfMessages(10).waitTimeSeconds(10))
            .messages();
    assertThat(messages).hasSize(1);
    sqs.deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(messages.get(0).receiptHandle()));
    return Json.MAPPER.readTree(messages.get(0).body());
  }

  @Test
  void shouldPublishTheOutcomeWithSourceDetailTypeResourcesAndDetail() throws Exception {
    // Given
    var publisher = new EventBridgeAdapter(putEvents, "default", SOURCE);
    var instanceArn = "arn:aws:ec2:us-east-1:123456789012:instance/i-0abcd1234ef567890";

    // When
    publisher.publish(
        "Node Drained",
        new DrainDetail(
            "i-0abcd1234ef567890", "ip-10-0-1-5.ec2.internal", 7, List.of("ml/trainer-0")),
        List.of(instanceArn));

    // Then
    var event = receiveOne();
    assertThat(event.path("source").asText()).isEqualTo(SOURCE);
    assertThat(event.path("detail-type").asText()).isEqualTo("Node Drained");
    assertThat(event.path("resources")).hasSize(1);
    assertThat(event.path("resources").get(0).asText()).isEqualTo(instanceArn);
    var detail = event.path("detail");
    assertThat(detail.isObject()).as("detail is a JSON object: %s", event).isTrue();
    assertThat(detail.path("instanceId").asText()).isEqualTo("i-0abcd1234ef567890");
    assertThat(detail.path("nodeName").asText()).isEqualTo("ip-10-0-1-5.ec2.internal");
    assertThat(detail.path("evicted").asInt()).isEqualTo(7);
    assertThat(detail.path("blocked")).hasSize(1);
    assertThat(detail.path("blocked").get(0).asText()).isEqualTo("ml/trainer-0");
  }

  @Test
  void shouldFailWhenTheBusDoesNotExist() {
    // Given
    var publisher = new EventBridgeAdapter(putEvents, "no-such-bus", SOURCE);

    // When / Then
    assertThatThrownBy(
            () ->
                publisher.publish(
                    "Node Drained",
                    new DrainDetail("i-0abcd1234ef567890", "n", 0, List.of()),
                    List.of()))
        .hasMessageContaining("no-such-bus");
  }

  /** A PutEvents that answers 200 but refuses the entry (what moto cannot be made to do). */
  @Test
  void shouldFailWithTheEntrysErrorCodeWhenPutEventsRefusesTheEntry() {
    try (var stub = AwsStubServer.start()) {
      stub.on(
          "AWSEvents.PutEvents",
          c ->
              AwsStubServer.Reply.json(
                  """
                  {"FailedEntryCount":1,"Entries":[{"ErrorCode":"InternalFailure",
                  "ErrorMessage":"the entry could not be put"}]}
                  """));
      var publisher =
          new EventBridgeAdapter(
              AwsJson.from(stub.clients(Region.US_EAST_1), AwsJson.EVENTBRIDGE),
              "outcomes",
              SOURCE);

      assertThatThrownBy(() -> publisher.publish("Node Drained", Map.of("k", 1), List.of()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "EventBridge rejected the outcome event on bus outcomes: InternalFailure the entry"
                  + " could not be put");
      assertThat(stub.calls()).hasSize(1);
    }
  }

  @Test
  void shouldNameTheServicesErrorCodeWhenPutEventsIsRefused() {
    try (var stub = AwsStubServer.start()) {
      stub.failNext("AWSEvents.PutEvents", 1, AwsStubServer.AwsFault.JSON_ACCESS_DENIED);
      var publisher =
          new EventBridgeAdapter(
              AwsJson.from(stub.clients(Region.US_EAST_1), AwsJson.EVENTBRIDGE),
              "outcomes",
              SOURCE);

      assertThatThrownBy(() -> publisher.publish("Node Drained", Map.of(), List.of()))
          .isInstanceOfSatisfying(
              AwsCallException.class,
              e -> {
                assertThat(e.code()).isEqualTo("AccessDeniedException");
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.retryable()).isFalse();
              });
      assertThat(stub.calls()).hasSize(1);
    }
  }

  @Test
  void shouldRefuseAClientOfAnotherService() {
    var pricing = AwsJson.from(AWS.emulator().clients(), AwsJson.PRICING);

    assertThatThrownBy(() -> new EventBridgeAdapter(pricing, "default", SOURCE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not an EventBridge client");
  }
}
