package io.gpufleet.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.event.FleetEvent.LifecycleAction;
import io.gpufleet.core.event.FleetEvent.LifecycleAction.Continuation;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Auto Scaling lifecycle hooks in every form they arrive in. Samples: the EventBridge events and
 * the direct SQS messages of the EC2 Auto Scaling user guide (ec2-auto-scaling-event-reference,
 * configuring-lifecycle-hook-notifications; instance ids made 17-hex where the guide elides them).
 */
class LifecycleEventsTest {
  final EventDecoder decoder = new EventDecoder();

  static final String TERMINATE_EVENTBRIDGE =
      """
      {"version":"0","id":"468fde3b-b9d2-4b7c-5e1f-4b4b2ee4a0e0",
       "detail-type":"EC2 Instance-terminate Lifecycle Action","source":"aws.autoscaling",
       "account":"123456789012","time":"2015-12-22T18:43:48Z","region":"us-west-1",
       "resources":["arn:aws:autoscaling:us-west-1:123456789012:autoScalingGroup:59fcbb81-bd02-485d-80ce-563ef5b237bf:autoScalingGroupName/sampleASG"],
       "detail":{"LifecycleActionToken":"630aa23f-48eb-45e7-aba6-799ea6093a0f",
        "AutoScalingGroupName":"sampleASG","LifecycleHookName":"SampleLifecycleHook-6789",
        "EC2InstanceId":"i-12345678","LifecycleTransition":"autoscaling:EC2_INSTANCE_TERMINATING",
        "NotificationMetadata":"additional-info","Origin":"AutoScalingGroup","Destination":"EC2"}}
      """;

  static final String LAUNCH_DIRECT =
      """
      {"Origin":"EC2","LifecycleHookName":"my-launch-hook","Destination":"AutoScalingGroup",
       "AccountId":"123456789012","RequestId":"63e0c8b1-3c1e-4f13-8b53-4a2f1e7e2a11",
       "LifecycleTransition":"autoscaling:EC2_INSTANCE_LAUNCHING","AutoScalingGroupName":"my-asg",
       "Service":"AWS Auto Scaling","Time":"2021-01-19T00:36:26.533Z",
       "EC2InstanceId":"i-0598c7d356eba48d7","LifecycleActionToken":"71514b9d-6a40-4b26-8523-05e7eEXAMPLE"}
      """;

  static final String TEST_DIRECT =
      """
      {"AccountId":"123456789012","RequestId":"4e6156f4-a9e2-4bda-a7fd-33f2ae528958",
       "AutoScalingGroupARN":"arn:aws:autoscaling:us-west-2:123456789012:autoScalingGroup:042cba90-ad2f-431c-9b4d-6d9055bcc9fb:autoScalingGroupName/my-asg",
       "AutoScalingGroupName":"my-asg","Service":"AWS Auto Scaling",
       "Event":"autoscaling:TEST_NOTIFICATION","Time":"2016-09-30T19:00:36.414Z"}
      """;

  LifecycleAction action(DecodeResult r) {
    assertThat(r).isInstanceOf(DecodeResult.Decoded.class);
    var e = ((DecodeResult.Decoded) r).event();
    assertThat(e).isInstanceOf(LifecycleAction.class);
    return (LifecycleAction) e;
  }

  @Test
  void shouldDecodeTheEventBridgeTerminateHookWithEveryMember() {
    var a = action(decoder.decodeString(TERMINATE_EVENTBRIDGE));

    assertThat(a.terminating()).isTrue();
    assertThat(a.instanceIds()).containsExactly("i-12345678");
    assertThat(a.autoScalingGroupName()).isEqualTo("sampleASG");
    assertThat(a.hookName()).isEqualTo("SampleLifecycleHook-6789");
    assertThat(a.token()).isEqualTo("630aa23f-48eb-45e7-aba6-799ea6093a0f");
    assertThat(a.notificationMetadata()).isEqualTo("additional-info");
    assertThat(a.origin()).isEqualTo("AutoScalingGroup");
    assertThat(a.destination()).isEqualTo("EC2");
    assertThat(a.continuation()).isNull();
    assertThat(a.originalEventId()).isEqualTo("468fde3b-b9d2-4b7c-5e1f-4b4b2ee4a0e0");
    assertThat(a.meta().region()).isEqualTo("us-west-1");
  }

  @Test
  void shouldDecodeTheLaunchHookWithoutTheOptionalWarmPoolMembers() {
    String launch =
        TERMINATE_EVENTBRIDGE
            .replace("Instance-terminate", "Instance-launch")
            .replace("EC2_INSTANCE_TERMINATING", "EC2_INSTANCE_LAUNCHING")
            .replace(
                ",\n  \"NotificationMetadata\":\"additional-info\",\"Origin\":\"AutoScalingGroup\",\"Destination\":\"EC2\"",
                "")
            .replace(
                "\"NotificationMetadata\":\"additional-info\",\"Origin\":\"AutoScalingGroup\",\"Destination\":\"EC2\"",
                "\"Extra\":1");

    var a = action(decoder.decodeString(launch));

    assertThat(a.terminating()).isFalse();
    assertThat(a.transition()).isEqualTo(LifecycleAction.LAUNCHING);
    assertThat(a.origin()).isNull();
    assertThat(a.notificationMetadata()).isNull();
  }

  @Test
  void shouldDecodeTheDirectSqsFormWithTheRecordsRegionAndTheRequestIdAsKey() {
    var a = action(LifecycleEvents.decodeSqsBody(LAUNCH_DIRECT, "us-west-2", decoder));

    assertThat(a.meta().id()).isEqualTo("63e0c8b1-3c1e-4f13-8b53-4a2f1e7e2a11");
    assertThat(a.meta().source()).isEqualTo("aws.autoscaling");
    assertThat(a.meta().detailType()).isEqualTo(EventDecoder.LIFECYCLE_LAUNCH);
    assertThat(a.meta().region()).isEqualTo("us-west-2");
    assertThat(a.meta().account()).isEqualTo("123456789012");
    assertThat(a.meta().time()).isEqualTo(Instant.parse("2021-01-19T00:36:26.533Z"));
    assertThat(a.instanceId()).isEqualTo("i-0598c7d356eba48d7");
    assertThat(a.token()).isEqualTo("71514b9d-6a40-4b26-8523-05e7eEXAMPLE");
  }

  @Test
  void shouldUnwrapAnSnsMessageAroundTheDirectForm() throws Exception {
    var sns = Json.MAPPER.createObjectNode();
    sns.put("Type", "Notification");
    sns.put("MessageId", "b1c2");
    sns.put("Message", LAUNCH_DIRECT);

    var a = action(LifecycleEvents.decodeSqsBody(Json.write(sns), "us-west-2", decoder));

    assertThat(a.hookName()).isEqualTo("my-launch-hook");
  }

  @Test
  void shouldDecodeAnEventBridgeEnvelopeInAnSqsBodyThroughTheTable() {
    var a = action(LifecycleEvents.decodeSqsBody(TERMINATE_EVENTBRIDGE, "eu-west-1", decoder));

    assertThat(a.meta().region()).as("the envelope's own region wins").isEqualTo("us-west-1");
  }

  @Test
  void shouldAcknowledgeTheTestNotificationInEitherFormAsANoOp() {
    var direct = LifecycleEvents.decodeSqsBody(TEST_DIRECT, "us-west-2", decoder);
    var viaEventBridge =
        decoder.decodeString(
            TERMINATE_EVENTBRIDGE.replace(
                "autoscaling:EC2_INSTANCE_TERMINATING", LifecycleEvents.TEST_NOTIFICATION));

    for (var r : java.util.List.of(direct, viaEventBridge)) {
      assertThat(r).isInstanceOf(DecodeResult.Decoded.class);
      var e = ((DecodeResult.Decoded) r).event();
      assertThat(e).isInstanceOf(FleetEvent.Unsupported.class);
      assertThat(((FleetEvent.Unsupported) e).why()).contains("TEST_NOTIFICATION", "acknowledged");
    }
  }

  @Test
  void shouldFallBackToTheInstanceIdWhenTheTokenIsNotOfTheLengthAwsAccepts() {
    var a =
        action(
            decoder.decodeString(
                TERMINATE_EVENTBRIDGE.replace("630aa23f-48eb-45e7-aba6-799ea6093a0f", "short")));

    assertThat(a.token()).isNull();
    assertThat(a.instanceId()).isEqualTo("i-12345678");
  }

  @ParameterizedTest
  @CsvSource({"AutoScalingGroupName, group", "LifecycleHookName, hook"})
  void shouldDrainAHookThatCannotBeCompletedAndSaySo(String member, String what) {
    // NTH's v2 test messages carry only EC2InstanceId and LifecycleTransition
    String partial = TERMINATE_EVENTBRIDGE.replace("\"" + member + "\"", "\"x" + member + "\"");

    var a = action(decoder.decodeString(partial));

    assertThat(a.terminating()).isTrue();
    assertThat(a.completable()).isFalse();
    assertThat(a.instanceId()).isEqualTo("i-12345678");
    assertThat(a.meta().caveats())
        .containsExactly("lifecycle action not completed: no " + what + " name");
  }

  @ParameterizedTest
  @ValueSource(strings = {"EC2InstanceId"})
  void shouldRejectAHookThatCannotBeMatched(String member) {
    String broken = TERMINATE_EVENTBRIDGE.replace("\"" + member + "\"", "\"x" + member + "\"");

    var r = decoder.decodeString(broken);

    assertThat(r).isInstanceOf(DecodeResult.Rejected.class);
    assertThat(((DecodeResult.Rejected) r).reason()).contains(member);
    assertThat(((DecodeResult.Rejected) r).eventId())
        .isEqualTo("468fde3b-b9d2-4b7c-5e1f-4b4b2ee4a0e0");
  }

  @Test
  void shouldTreatAnUnknownTransitionAsNoAction() {
    var r =
        decoder.decodeString(
            TERMINATE_EVENTBRIDGE.replace(
                "autoscaling:EC2_INSTANCE_TERMINATING", "autoscaling:EC2_INSTANCE_WARMING"));

    assertThat(((DecodeResult.Decoded) r).event()).isInstanceOf(FleetEvent.Unsupported.class);
  }

  @Test
  void shouldRoundTripTheContinuationThroughTheDecoderTable() throws Exception {
    var a = action(decoder.decodeString(TERMINATE_EVENTBRIDGE));
    var next = new Continuation(a.meta().id(), 2, Instant.parse("2026-01-01T00:00:00Z"), 7);

    var body =
        Json.write(
            LifecycleEvents.continuationEnvelope(a, next, Instant.parse("2026-01-01T00:05:00Z")));
    var back = action(LifecycleEvents.decodeSqsBody(body, "us-west-1", decoder));

    assertThat(back.continuation()).isEqualTo(next);
    assertThat(back.meta().id()).isEqualTo(a.meta().id() + "#2");
    assertThat(back.originalEventId()).isEqualTo(a.meta().id());
    assertThat(back).usingRecursiveComparison().ignoringFields("meta", "continuation").isEqualTo(a);
  }
}
