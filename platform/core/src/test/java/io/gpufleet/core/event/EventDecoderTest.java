package io.gpufleet.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.gpufleet.core.event.DecodeResult.Decoded;
import io.gpufleet.core.event.DecodeResult.Rejected;
import io.gpufleet.core.event.FleetEvent.HealthScheduledChange;
import io.gpufleet.core.event.FleetEvent.InstanceStateChange;
import io.gpufleet.core.event.FleetEvent.RebalanceRecommendation;
import io.gpufleet.core.event.FleetEvent.SpotInterruption;
import io.gpufleet.core.event.FleetEvent.Unsupported;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventDecoderTest {
  private static final String INSTANCE = "i-0abcd1234ef567890";
  static final String ID = "7bf73129-1428-4cd3-a780-95db273d1602";
  private static final Instant EVENT_TIME = Instant.parse("2023-04-05T11:58:00Z");

  private final EventDecoder decoder = new EventDecoder();

  /** A real-shaped EventBridge envelope around {@code detail} (raw JSON). */
  private static String envelope(String source, String detailType, String detail) {
    return envelope(
        source,
        detailType,
        detail,
        "[\"arn:aws:ec2:us-west-2:123456789012:instance/" + INSTANCE + "\"]");
  }

  private static String envelope(
      String source, String detailType, String detail, String resourcesJson) {
    return """
        {
          "version": "0",
          "id": "7bf73129-1428-4cd3-a780-95db273d1602",
          "detail-type": "%s",
          "source": "%s",
          "account": "123456789012",
          "time": "2023-04-05T11:58:00Z",
          "region": "us-west-2",
          "resources": %s,
          "detail": %s
        }
        """
        .formatted(detailType, source, resourcesJson, detail);
  }

  private static String spot(String detail) {
    return envelope("aws.ec2", EventDecoder.SPOT_WARNING, detail);
  }

  private static String stateChange(String detail) {
    return envelope("aws.ec2", EventDecoder.STATE_CHANGE, detail);
  }

  private static String health(String detail) {
    return envelope("aws.health", EventDecoder.HEALTH, detail, "[]");
  }

  private static String healthDetail(String startTime) {
    return """
        {
          "eventArn": "arn:aws:health:us-west-2::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED_1",
          "service": "EC2",
          "eventTypeCode": "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED",
          "eventTypeCategory": "scheduledChange",
          "startTime": "%s",
          "endTime": "Wed, 05 Apr 2023 14:00:00 GMT",
          "eventDescription": [{"language": "en_US", "latestDescription": "EC2 has detected degradation"}],
          "affectedEntities": [
            {"entityValue": "i-0aaaaaaaaaaaaaaa1", "tags": {}},
            {"entityValue": "i-0bbbbbbbbbbbbbbb2", "tags": {"team": "ml"}}
          ]
        }
        """
        .formatted(startTime);
  }

  private FleetEvent decoded(String payload) {
    var result = decoder.decodeString(payload);
    assertThat(result).isInstanceOf(Decoded.class);
    return ((Decoded) result).event();
  }

  @Nested
  class ValidEvents {

    @ParameterizedTest
    @ValueSource(strings = {"terminate", "stop", "hibernate"})
    void shouldDecodeASpotInterruptionWarning(String action) {
      // Given
      var payload =
          spot(
              "{\"instance-id\": \"%s\", \"instance-action\": \"%s\"}".formatted(INSTANCE, action));

      // When
      var event = decoded(payload);

      // Then
      assertThat(event).isInstanceOf(SpotInterruption.class);
      var spot = (SpotInterruption) event;
      assertThat(spot.instanceId()).isEqualTo(INSTANCE);
      assertThat(spot.instanceAction()).isEqualTo(action);
      assertThat(spot.instanceIds()).containsExactly(INSTANCE);
    }

    @Test
    void shouldCarryTheEnvelopeFieldsInTheMeta() {
      // Given
      var payload =
          spot("{\"instance-id\": \"%s\", \"instance-action\": \"terminate\"}".formatted(INSTANCE));

      // When
      var meta = decoded(payload).meta();

      // Then
      assertThat(meta.id()).isEqualTo("7bf73129-1428-4cd3-a780-95db273d1602");
      assertThat(meta.source()).isEqualTo("aws.ec2");
      assertThat(meta.detailType()).isEqualTo(EventDecoder.SPOT_WARNING);
      assertThat(meta.account()).isEqualTo("123456789012");
      assertThat(meta.region()).isEqualTo("us-west-2");
      assertThat(meta.time()).isEqualTo(EVENT_TIME);
      assertThat(meta.resources())
          .containsExactly("arn:aws:ec2:us-west-2:123456789012:instance/" + INSTANCE);
    }

    @Test
    void shouldDecodeARebalanceRecommendation() {
      // Given
      var payload =
          envelope(
              "aws.ec2", EventDecoder.REBALANCE, "{\"instance-id\": \"%s\"}".formatted(INSTANCE));

      // When
      var event = decoded(payload);

      // Then
      assertThat(event).isEqualTo(new RebalanceRecommendation(event.meta(), INSTANCE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"stopping", "stopped", "shutting-down", "terminated"})
    void shouldDecodeAStateChangeThatMattersAsInstanceStateChange(String state) {
      // Given
      var payload =
          stateChange("{\"instance-id\": \"%s\", \"state\": \"%s\"}".formatted(INSTANCE, state));

      // When
      var event = decoded(payload);

      // Then
      assertThat(event).isEqualTo(new InstanceStateChange(event.meta(), INSTANCE, state));
    }

    @ParameterizedTest
    @ValueSource(strings = {"running", "pending"})
    void shouldDecodeAStateChangeThatNeedsNoActionKeepingItsInstance(String state) {
      // Given
      var payload =
          stateChange("{\"instance-id\": \"%s\", \"state\": \"%s\"}".formatted(INSTANCE, state));

      // When
      var event = decoded(payload);

      // Then
      assertThat(event).isEqualTo(new InstanceStateChange(event.meta(), INSTANCE, state));
      assertThat(((InstanceStateChange) event).actionable()).isFalse();
    }

    @ParameterizedTest(name = "startTime {0}")
    @CsvSource(
        delimiter = '|',
        value = {
          "Wed, 05 Apr 2023 12:00:00 GMT | 2023-04-05T12:00:00Z",
          "2023-04-05T12:00:00Z          | 2023-04-05T12:00:00Z",
          "2023-04-05T12:00:00.000Z      | 2023-04-05T12:00:00Z",
          "2023-04-05T14:00:00+02:00     | 2023-04-05T12:00:00Z",
        })
    void shouldDecodeAHealthScheduledChangeNamingEveryAffectedInstance(
        String startTime, Instant expectedStart) {
      // Given
      var payload = health(healthDetail(startTime));

      // When
      var event = decoded(payload);

      // Then
      assertThat(event).isInstanceOf(HealthScheduledChange.class);
      var change = (HealthScheduledChange) event;
      assertThat(change.instanceIds())
          .containsExactly("i-0aaaaaaaaaaaaaaa1", "i-0bbbbbbbbbbbbbbb2");
      assertThat(change.startTime()).isEqualTo(expectedStart);
      assertThat(change.endTime()).isEqualTo(Instant.parse("2023-04-05T14:00:00Z"));
      assertThat(change.eventTypeCode()).isEqualTo("AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED");
      assertThat(change.eventArn())
          .isEqualTo(
              "arn:aws:health:us-west-2::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED_1");
    }

    @Test
    void shouldTakeHealthInstancesFromResourcesTooWithoutDuplicates() {
      // Given an entity and the same instance plus another one in resources
      var detail =
          """
          {"eventArn": "arn:aws:health:us-west-2::event/EC2/X/1", "service": "EC2",
           "eventTypeCode": "AWS_EC2_INSTANCE_STOP_SCHEDULED", "eventTypeCategory": "scheduledChange",
           "startTime": "Wed, 05 Apr 2023 12:00:00 GMT",
           "affectedEntities": [{"entityValue": "i-0aaaaaaaaaaaaaaa1"}]}
          """;
      var payload =
          envelope(
              "aws.health",
              EventDecoder.HEALTH,
              detail,
              "[\"i-0aaaaaaaaaaaaaaa1\", \"arn:aws:ec2:us-west-2:123456789012:instance/i-0ccccccccccccccc3\"]");

      // When
      var change = (HealthScheduledChange) decoded(payload);

      // Then
      assertThat(change.instanceIds())
          .containsExactly("i-0aaaaaaaaaaaaaaa1", "i-0ccccccccccccccc3");
      assertThat(change.endTime()).isNull();
    }

    @ParameterizedTest(name = "service {0}, category {1}")
    @CsvSource({"RDS, scheduledChange", "EC2, issue", "EC2, accountNotification"})
    void shouldTreatHealthEventsOtherThanEc2ScheduledChangesAsUnsupported(
        String service, String category) {
      // Given
      var detail =
          """
          {"eventArn": "arn:aws:health:us-west-2::event/X/Y/1", "service": "%s",
           "eventTypeCode": "AWS_%s_OPERATIONAL_ISSUE", "eventTypeCategory": "%s",
           "startTime": "Wed, 05 Apr 2023 12:00:00 GMT", "affectedEntities": []}
          """
              .formatted(service, service, category);

      // When
      var event = decoded(health(detail));

      // Then
      assertThat(event).isInstanceOf(Unsupported.class);
      assertThat(((Unsupported) event).why()).contains(service).contains(category);
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource(
        delimiter = '|',
        value = {
          "aws.cloudwatch | CloudWatch Alarm Configuration Change",
          "aws.ec2        | EC2 AMI State Change",
          "custom.app     | EC2 Spot Instance Interruption Warning",
          "aws.health     | EC2 Spot Instance Interruption Warning",
        })
    void shouldTreatAnUnknownSourceOrDetailTypeAsUnsupported(String source, String detailType) {
      // Given
      var payload = envelope(source, detailType, "{\"anything\": true}");

      // When
      var event = decoded(payload);

      // Then
      assertThat(event).isInstanceOf(Unsupported.class);
      assertThat(((Unsupported) event).why()).contains(source).contains(detailType);
      assertThat(event.meta().id()).isEqualTo("7bf73129-1428-4cd3-a780-95db273d1602");
    }
  }

  @Nested
  class WhatAwsActuallySends {
    private final Instant received = Instant.parse("2026-12-01T03:00:00Z");
    private final EventDecoder atReceipt =
        new EventDecoder(java.time.Clock.fixed(received, java.time.ZoneOffset.UTC));

    private FleetEvent decodedAtReceipt(String payload) {
      var result = atReceipt.decodeString(payload);
      assertThat(result).isInstanceOf(Decoded.class);
      return ((Decoded) result).event();
    }

    @ParameterizedTest(name = "id {0}")
    @ValueSource(strings = {"\"id\": \"\",", "\"id\": null,", ""})
    void shouldDeduplicateAnEventWithoutIdOnItsInstanceKindAndTime(String id) {
      // Given NTH's v2 test messages: source, detail-type and detail only
      var payload =
          spot("{\"instance-id\": \"" + INSTANCE + "\", \"instance-action\": \"terminate\"}")
              .replace("\"id\": \"" + ID + "\",", id);

      var first = decodedAtReceipt(payload);
      var again = decodedAtReceipt(payload);
      var otherInstance = decodedAtReceipt(payload.replace(INSTANCE, "i-0fedcba9876543210"));

      assertThat(first).isInstanceOf(FleetEvent.SpotInterruption.class);
      assertThat(first.meta().id())
          .isEqualTo(
              "no-id:aws.ec2/"
                  + EventDecoder.SPOT_WARNING
                  + "/"
                  + INSTANCE
                  + "@2023-04-05T11:58:00Z");
      assertThat(again.meta().id()).isEqualTo(first.meta().id());
      assertThat(otherInstance.meta().id()).isNotEqualTo(first.meta().id());
    }

    @ParameterizedTest(name = "time {0}")
    @ValueSource(strings = {"\"time\": \"\",", "\"time\": null,", ""})
    void shouldUseTheReceiptTimeWhenTheEnvelopeHasNoTime(String time) {
      // Given NTH's fixture with an empty time (EventBridgeEvent.getTime treats it as now)
      var payload =
          spot("{\"instance-id\": \"" + INSTANCE + "\", \"instance-action\": \"terminate\"}")
              .replace("\"time\": \"2023-04-05T11:58:00Z\",", time);

      // When / Then
      assertThat(decodedAtReceipt(payload).meta().time()).isEqualTo(received);
    }

    @ParameterizedTest(name = "startTime {0}")
    @CsvSource(
        delimiter = '|',
        value = {
          "Sat, 05 Jun 2016 15:10:09 GMT | 2016-06-05T15:10:09Z",
          "Thu, 05 Apr 2023 12:00:00 GMT | 2023-04-05T12:00:00Z",
          "Fri, 3 Jun 2022 07:08:09 GMT  | 2022-06-03T07:08:09Z",
          "Mon, 3 Jun 2022 07:08:09 GMT  | 2022-06-03T07:08:09Z",
        })
    void shouldReadAHealthStartTimeWhoseWeekdayIsWrongOrDayUnpadded(String text, String expected) {
      // When
      var event = (HealthScheduledChange) decoded(health(healthDetail(text)));

      // Then
      assertThat(event.startTime()).isEqualTo(Instant.parse(expected));
    }

    @Test
    void shouldActOnAHealthEventThatGivesOnlyServiceCategoryAndInstances() {
      // Given Karpenter's scheduledChangeMessage: no eventArn, eventTypeCode or startTime
      var detail =
          """
          {"service": "EC2", "eventTypeCategory": "scheduledChange",
           "affectedEntities": [{"entityValue": "%s"}]}
          """
              .formatted(INSTANCE);

      // When
      var event = (HealthScheduledChange) decoded(health(detail));

      // Then
      assertThat(event.instanceIds()).containsExactly(INSTANCE);
      assertThat(event.startTime()).isNull();
      assertThat(event.eventArn()).isEqualTo(ID);
      assertThat(event.eventTypeCode()).isNull();
    }

    @Test
    void shouldTakeTheInstanceIdFromAnAffectedEntityArn() {
      var detail =
          healthDetail("Wed, 05 Apr 2023 12:00:00 GMT")
              .replace(
                  "\"entityValue\": \"i-0aaaaaaaaaaaaaaa1\"",
                  "\"entityValue\": \"arn:aws:ec2:us-west-2:123456789012:instance/i-0ccccccccccccccc3\"");

      var event = (HealthScheduledChange) decoded(health(detail));

      assertThat(event.instanceIds()).contains("i-0ccccccccccccccc3");
    }

    @Test
    void shouldDropAnUnreadableHealthEndTimeRatherThanTheEvent() {
      var detail =
          healthDetail("Wed, 05 Apr 2023 12:00:00 GMT")
              .replace("Wed, 05 Apr 2023 14:00:00 GMT", "soon");

      var event = (HealthScheduledChange) decoded(health(detail));

      assertThat(event.endTime()).isNull();
      assertThat(event.startTime()).isEqualTo(Instant.parse("2023-04-05T12:00:00Z"));
    }

    @ParameterizedTest(name = "state {0}")
    @ValueSource(strings = {"creating", "exploded", ""})
    void shouldKeepAnUnknownStateAsANonActionableStateChange(String state) {
      var event =
          (InstanceStateChange)
              decoded(
                  stateChange(
                      "{\"instance-id\": \"%s\", \"state\": \"%s\"}".formatted(INSTANCE, state)));

      assertThat(event.instanceId()).isEqualTo(INSTANCE);
      assertThat(event.actionable()).isFalse();
    }

    @Test
    void shouldReadAnUpperCaseStateAsItsLowerCaseForm() {
      var event =
          (InstanceStateChange)
              decoded(
                  stateChange(
                      "{\"instance-id\": \"%s\", \"state\": \"TERMINATED\"}".formatted(INSTANCE)));

      assertThat(event.state()).isEqualTo("terminated");
      assertThat(event.actionable()).isTrue();
    }

    @ParameterizedTest(name = "instance-action {0}")
    @ValueSource(strings = {"\"reboot\"", "{\"type\": \"stop\"}", "null"})
    void shouldStillTreatASpotWarningWithAnUnknownActionAsAnInterruption(String action) {
      var event =
          decoded(
              spot(
                  "{\"instance-id\": \"%s\", \"instance-action\": %s}"
                      .formatted(INSTANCE, action)));

      assertThat(event).isInstanceOf(SpotInterruption.class);
      assertThat(((SpotInterruption) event).instanceId()).isEqualTo(INSTANCE);
    }

    @Test
    void shouldIgnoreUnknownFieldsEverywhere() {
      var payload =
          spot("{\"instance-id\": \"%s\", \"instance-action\": \"terminate\", \"new\": [1, {}]}"
                  .formatted(INSTANCE))
              .replace("\"version\": \"0\",", "\"version\": \"0\", \"replay-name\": \"x\",");

      assertThat(decoded(payload)).isInstanceOf(SpotInterruption.class);
    }

    @Test
    void shouldReadResourcesGivenAsOneString() {
      var payload =
          envelope(
              "aws.ec2",
              EventDecoder.SPOT_WARNING,
              "{\"instance-id\": \"" + INSTANCE + "\", \"instance-action\": \"terminate\"}",
              "\"arn:aws:ec2:us-west-2:123456789012:instance/" + INSTANCE + "\"");

      assertThat(decoded(payload).meta().resources())
          .containsExactly("arn:aws:ec2:us-west-2:123456789012:instance/" + INSTANCE);
    }

    @Test
    void shouldTakeTheFunctionsRegionForAnEnvelopeWithoutOne() {
      var payload =
          spot("{\"instance-id\": \"" + INSTANCE + "\", \"instance-action\": \"terminate\"}")
              .replace("\"region\": \"us-west-2\",", "");
      var inRegion = new EventDecoder(java.time.Clock.systemUTC(), "eu-west-1");

      var event = ((Decoded) inRegion.decodeString(payload)).event();

      assertThat(event.meta().region()).isEqualTo("eu-west-1");
    }

    @Test
    void shouldTreatAnUnknownKindWithoutDetailAsNoAction() {
      var payload =
          """
          {"version": "0", "id": "%s", "detail-type": "EC2 Fleet Spot Instance Request Change",
           "source": "aws.ec2", "time": "2023-04-05T11:58:00Z", "resources": []}
          """
              .formatted(ID);

      assertThat(decoded(payload)).isInstanceOf(Unsupported.class);
    }
  }

  @Nested
  class ReservationsAndCapacityBlocks {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {EventDecoder.CR_INTERRUPTION, EventDecoder.CR_INTERRUPTION_VARIANT})
    void shouldDecodeACapacityReservationInterruptionWithItsTerminationTime(String detailType) {
      // Given the EC2 user guide's example (monitor-interruptible-cr.html)
      var payload =
          envelope(
              "aws.ec2",
              detailType,
              """
              {"instance-id": "%s", "instance-action": "terminate",
               "instance-termination-time": "2023-04-05T12:00:00Z", "azId": "usw2-az1"}
              """
                  .formatted(INSTANCE));

      // When
      var event = (FleetEvent.CapacityReservationInterruption) decoded(payload);

      // Then
      assertThat(event.instanceId()).isEqualTo(INSTANCE);
      assertThat(event.instanceAction()).isEqualTo("terminate");
      assertThat(event.terminationTime()).isEqualTo(Instant.parse("2023-04-05T12:00:00Z"));
      assertThat(event.meta().detailType()).isEqualTo(detailType);
    }

    @Test
    void shouldDecodeKarpentersCapacityReservationFixtureWithoutATerminationTime() {
      var payload =
          envelope(
              "aws.ec2",
              EventDecoder.CR_INTERRUPTION,
              "{\"instance-id\": \"%s\", \"instance-action\": \"terminate\"}".formatted(INSTANCE));

      var event = (FleetEvent.CapacityReservationInterruption) decoded(payload);

      assertThat(event.terminationTime()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
        strings = {
          EventDecoder.CAPACITY_BLOCK_EXPIRING,
          EventDecoder.CAPACITY_BLOCK_EXPIRING_VARIANT
        })
    void shouldDecodeBothSpellingsOfTheCapacityBlockExpirationWarning(String detailType) {
      var payload =
          envelope(
              "aws.ec2",
              detailType,
              """
              {"capacity-reservation-id": "cr-0123456789abcdef0", "end-date": "2023-04-05T12:40:00Z"}
              """,
              "[\"arn:aws:ec2:us-west-2:123456789012:capacity-reservation/cr-0123456789abcdef0\"]");

      var event = (FleetEvent.CapacityBlockExpiring) decoded(payload);

      assertThat(event.capacityReservationId()).isEqualTo("cr-0123456789abcdef0");
      assertThat(event.endDate()).isEqualTo(Instant.parse("2023-04-05T12:40:00Z"));
      assertThat(event.terminationsStart()).isEqualTo(Instant.parse("2023-04-05T12:10:00Z"));
      assertThat(event.instanceIds()).isEmpty();
    }

    @Test
    void shouldReadTheUserGuidesSampleKeysDetailUnderscoreTypeAndCustomerEventId() {
      var payload =
          """
          {"customer_event_id": "cr-0123456789abcdef0-approaching-expiry",
           "detail_type": "Capacity Block Reservation Expiration Warning", "source": "aws.ec2",
           "account": "123456789012", "time": "2023-04-05T12:00:00Z",
           "resources": ["arn:aws:ec2:us-west-2:123456789012:capacity-reservation/cr-0123456789abcdef0"],
           "detail": {"capacity-reservation-id": "cr-0123456789abcdef0",
                      "end-date": "2023-04-05T12:40:00Z"}}
          """;

      var event = (FleetEvent.CapacityBlockExpiring) decoded(payload);

      assertThat(event.meta().id()).isEqualTo("cr-0123456789abcdef0-approaching-expiry");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
        strings = {
          EventDecoder.CAPACITY_BLOCK_DELIVERED,
          EventDecoder.CAPACITY_BLOCK_DELIVERED_VARIANT
        })
    void shouldTreatADeliveredCapacityBlockAsNoAction(String detailType) {
      var payload =
          envelope(
              "aws.ec2",
              detailType,
              "{\"capacity-reservation-id\": \"cr-0123456789abcdef0\", \"end-date\": \"2023-04-06T12:00:00Z\"}");

      assertThat(decoded(payload)).isInstanceOf(Unsupported.class);
    }

    @ParameterizedTest(name = "end-date {0}")
    @org.junit.jupiter.params.provider.CsvSource(
        delimiter = '|',
        value = {
          "| end-date missing",
          "\"end-date\": \"soon\", | end-date 'soon' unreadable",
          "\"end-date\": 1680699480, | end-date '1680699480' unreadable"
        })
    void shouldDrainACapacityBlockWhoseEndDateCannotBeReadAsAwsDocumentsTheTiming(
        String endDate, String caveat) {
      var payload =
          envelope(
              "aws.ec2",
              EventDecoder.CAPACITY_BLOCK_EXPIRING,
              "{"
                  + (endDate == null ? "" : endDate)
                  + "\"capacity-reservation-id\": \"cr-0123456789abcdef0\"}");

      var block = (FleetEvent.CapacityBlockExpiring) decoded(payload);

      // terminations start 10 minutes after the warning
      assertThat(block.terminationsStart()).isEqualTo(EVENT_TIME.plusSeconds(600));
      assertThat(block.meta().caveats())
          .containsExactly(caveat + ": terminations taken to start at event time + 10 minutes");
    }

    @Test
    void shouldReadACapacityBlockEndDateInTheHealthStyleForm() {
      var payload =
          envelope(
              "aws.ec2",
              EventDecoder.CAPACITY_BLOCK_EXPIRING,
              "{\"end-date\": \"Wed, 5 Apr 2023 12:38:00 GMT\","
                  + " \"capacity-reservation-id\": \"cr-0123456789abcdef0\"}");

      var block = (FleetEvent.CapacityBlockExpiring) decoded(payload);

      assertThat(block.endDate()).isEqualTo(Instant.parse("2023-04-05T12:38:00Z"));
      assertThat(block.meta().caveats()).isEmpty();
    }
  }

  @Nested
  class StrictWhereItMatters {
    @Test
    void shouldRejectTrailingDataAfterTheDocument() {
      var one = spot("{\"instance-id\": \"" + INSTANCE + "\", \"instance-action\": \"terminate\"}");

      var result = decoder.decodeString(one + one);

      assertThat(result).isInstanceOf(Rejected.class);
      assertThat(((Rejected) result).reason()).startsWith("not JSON").contains("Trailing token");
    }

    @Test
    void shouldAcceptTrailingWhitespace() {
      var one = spot("{\"instance-id\": \"" + INSTANCE + "\", \"instance-action\": \"terminate\"}");

      assertThat(decoder.decodeString(one + "\n\t  \n")).isInstanceOf(Decoded.class);
    }

    @Test
    void shouldBoundWhatAReasonEchoesFromThePayload() {
      var huge = "i-" + "z".repeat(100_000);
      var payload = spot("{\"instance-id\": \"" + huge + "\", \"instance-action\": \"terminate\"}");

      var reason = ((Rejected) decoder.decodeString(payload)).reason();

      assertThat(reason).hasSizeLessThan(200).contains("(100002 characters)");
    }

    @Test
    void shouldBoundAnUnknownDetailTypeInTheNoActionReason() {
      var payload = envelope("aws.ec2", "X".repeat(5_000), "{}");

      var why = ((Unsupported) decoded(payload)).why();

      assertThat(why).hasSizeLessThan(250).contains("(5000 characters)");
    }
  }

  @Nested
  class MalformedPayloads {

    /** name, payload, text the reason must contain (naming the offending field or problem). */
    static Stream<Arguments> corpus() {
      var spotOk = "{\"instance-id\": \"" + INSTANCE + "\", \"instance-action\": \"terminate\"}";
      return Stream.of(
          arguments("empty payload", "", "empty payload"),
          arguments("null payload", null, "empty payload"),
          arguments("plain text", "hello EventBridge", "not JSON"),
          arguments(
              "truncated JSON",
              "{\"id\": \"abc\", \"source\": \"aws.ec2\", \"detail\": {",
              "not JSON"),
          arguments("unterminated string", "{\"id\": \"abc", "not JSON"),
          arguments("single quotes", "{'id': 'abc'}", "not JSON"),
          arguments(
              "nesting deeper than Jackson allows",
              "[".repeat(2_000) + "]".repeat(2_000),
              "not JSON"),
          arguments("JSON array", "[" + spot(spotOk) + "]", "not a JSON object"),
          arguments("JSON number", "42", "not a JSON object"),
          arguments(
              "JSON string", "\"EC2 Spot Instance Interruption Warning\"", "not a JSON object"),
          arguments("JSON null", "null", "not a JSON object"),
          arguments("JSON boolean", "true", "not a JSON object"),
          arguments(
              "numeric id",
              spot(spotOk).replace("\"" + ID + "\"", "12345"),
              "'id' must be a string"),
          arguments(
              "missing source",
              spot(spotOk).replace("\"source\": \"aws.ec2\",", ""),
              "'source' is missing"),
          arguments(
              "source is an array",
              spot(spotOk).replace("\"source\": \"aws.ec2\"", "\"source\": [\"aws.ec2\"]"),
              "'source' must be a non-empty string"),
          arguments(
              "missing detail-type",
              spot(spotOk).replace("\"detail-type\": \"" + EventDecoder.SPOT_WARNING + "\",", ""),
              "'detail-type' is missing"),
          arguments(
              "null detail-type",
              spot(spotOk).replace("\"" + EventDecoder.SPOT_WARNING + "\"", "null"),
              "'detail-type' is missing"),
          arguments(
              "time is not a timestamp",
              spot(spotOk).replace("2023-04-05T11:58:00Z", "yesterday"),
              "envelope field 'time' 'yesterday'"),
          arguments(
              "time without a zone",
              spot(spotOk).replace("2023-04-05T11:58:00Z", "2023-04-05T11:58:00"),
              "envelope field 'time' '2023-04-05T11:58:00'"),
          arguments(
              "time as epoch number",
              spot(spotOk).replace("\"2023-04-05T11:58:00Z\"", "1680695880"),
              "'time' must be a string"),
          arguments(
              "resources is a number",
              envelope("aws.ec2", EventDecoder.SPOT_WARNING, spotOk, "42"),
              "'resources' must be an array"),
          arguments(
              "missing detail",
              spot(spotOk).replace(",\n  \"detail\": " + spotOk, ""),
              "'detail' must be an object"),
          arguments("null detail", spot("null"), "'detail' must be an object"),
          arguments(
              "detail is a string", spot("\"" + INSTANCE + "\""), "'detail' must be an object"),
          arguments("detail is an array", spot("[" + spotOk + "]"), "'detail' must be an object"),
          arguments("detail is a number", spot("7"), "'detail' must be an object"),
          arguments(
              "spot without instance-id",
              spot("{\"instance-action\": \"terminate\"}"),
              "detail field 'instance-id' is missing"),
          arguments(
              "spot with a node name instead of instance-id",
              spot(
                  "{\"instance-id\": \"ip-10-0-1-5.ec2.internal\", \"instance-action\": \"terminate\"}"),
              "detail.instance-id 'ip-10-0-1-5.ec2.internal' is not an EC2 instance id"),
          arguments(
              "spot with an upper-case instance-id",
              spot(
                  "{\"instance-id\": \"i-0ABCD1234EF567890\", \"instance-action\": \"terminate\"}"),
              "detail.instance-id 'i-0ABCD1234EF567890'"),
          arguments(
              "spot with a too short instance-id",
              spot("{\"instance-id\": \"i-1234\", \"instance-action\": \"terminate\"}"),
              "detail.instance-id 'i-1234'"),
          arguments(
              "spot with a numeric instance-id",
              spot("{\"instance-id\": 1234567890, \"instance-action\": \"terminate\"}"),
              "detail field 'instance-id' must be a non-empty string"),
          arguments(
              "spot with an empty instance-id",
              spot("{\"instance-id\": \"\", \"instance-action\": \"terminate\"}"),
              "detail field 'instance-id' must be a non-empty string"),
          arguments(
              "rebalance without instance-id",
              envelope("aws.ec2", EventDecoder.REBALANCE, "{}"),
              "detail field 'instance-id' is missing"),
          arguments(
              "health with an unparseable startTime",
              health(healthDetail("next Wednesday at noon")),
              "detail.startTime 'next Wednesday at noon'"),
          arguments(
              "health without any instance",
              health(
                  healthDetail("Wed, 05 Apr 2023 12:00:00 GMT")
                      .replaceAll(
                          "\"entityValue\": \"i-[0-9a-f]+\"", "\"entityValue\": \"AWS_ACCOUNT\"")),
              "names no EC2 instance in affectedEntities or resources"),
          arguments(
              "health naming only volumes",
              health(
                  healthDetail("Wed, 05 Apr 2023 12:00:00 GMT")
                      .replaceAll("\"entityValue\": \"i-", "\"entityValue\": \"vol-")),
              "names no EC2 instance"),
          arguments(
              "huge payload over 256 KiB",
              spot(
                  "{\"instance-id\": \"%s\", \"instance-action\": \"terminate\", \"pad\": \"%s\"}"
                      .formatted(INSTANCE, "x".repeat(256 * 1024))),
              "exceeds the 256 KiB EventBridge limit"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void shouldRejectAMalformedPayloadWithAPreciseReason(
        String name, String payload, String expectedReason) {
      // Given a malformed payload
      var result = new AtomicReference<DecodeResult>();

      // When
      assertThatCode(() -> result.set(decoder.decodeString(payload))).doesNotThrowAnyException();

      // Then
      assertThat(result.get()).isInstanceOf(Rejected.class);
      assertThat(((Rejected) result.get()).reason()).contains(expectedReason);
    }

    @Test
    void shouldHaveACorpusOfAtLeastThirtyPayloads() {
      assertThat(corpus().count()).isGreaterThanOrEqualTo(30);
    }

    @Test
    void shouldRejectBytesThatAreNotUtf8() {
      // Given
      byte[] payload = {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};

      // When
      var result = decoder.decode(payload);

      // Then
      assertThat(result).isInstanceOf(Rejected.class);
      assertThat(((Rejected) result).reason()).startsWith("not JSON").contains("UTF-8");
    }

    @Test
    void shouldRejectAPayloadWithoutDetail() {
      // Given
      var payload =
          """
          {"version": "0", "id": "%s", "detail-type": "%s", "source": "aws.ec2",
           "account": "123456789012", "time": "2023-04-05T11:58:00Z", "region": "us-west-2",
           "resources": []}
          """
              .formatted(ID, EventDecoder.SPOT_WARNING);

      // When
      var result = decoder.decodeString(payload);

      // Then
      assertThat(result)
          .isEqualTo(new Rejected("envelope field 'detail' must be an object", ID, "us-west-2"));
    }

    @Test
    void shouldKeepTheEventIdWhenTheDetailIsRejected() {
      // Given a readable envelope with a bad detail
      var payload = spot("{\"instance-id\": \"node-7\", \"instance-action\": \"terminate\"}");

      // When
      var result = decoder.decodeString(payload);

      // Then the id is kept for logging and dedupe
      assertThat(result)
          .isEqualTo(
              new Rejected(
                  "detail.instance-id 'node-7' is not an EC2 instance id", ID, "us-west-2"));
    }

    @Test
    void shouldRejectAPayloadOfExactlyTheLimitPlusOneByteBeforeParsingIt() {
      // Given 256 KiB + 1 of bytes that are not even JSON
      byte[] payload = new byte[256 * 1024 + 1];
      java.util.Arrays.fill(payload, (byte) '{');

      // When
      var result = decoder.decode(payload);

      // Then
      assertThat(result)
          .isEqualTo(
              new Rejected("payload of 262145 bytes exceeds the 256 KiB EventBridge limit", null));
    }

    @Test
    void shouldAcceptAPayloadOfExactlyTheLimit() {
      // Given a valid event padded to exactly 256 KiB
      var base =
          spot(
              "{\"instance-id\": \"%s\", \"instance-action\": \"terminate\", \"pad\": \"\"}"
                  .formatted(INSTANCE));
      int padding = 256 * 1024 - base.getBytes(StandardCharsets.UTF_8).length;
      var payload = base.replace("\"pad\": \"\"", "\"pad\": \"" + "x".repeat(padding) + "\"");
      assertThat(payload.getBytes(StandardCharsets.UTF_8)).hasSize(256 * 1024);

      // When
      var event = decoded(payload);

      // Then
      assertThat(event).isInstanceOf(SpotInterruption.class);
      assertThat(event.meta().resources())
          .isEqualTo(List.of("arn:aws:ec2:us-west-2:123456789012:instance/" + INSTANCE));
    }
  }
}
