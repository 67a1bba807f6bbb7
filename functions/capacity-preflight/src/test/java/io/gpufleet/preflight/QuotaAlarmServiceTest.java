package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.event.EventMeta;
import io.gpufleet.core.event.FleetEvent.AlarmMetric;
import io.gpufleet.core.event.FleetEvent.AlarmStateChange;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.QuotaPort.QuotaRequest;
import io.gpufleet.preflight.model.AlarmOutcome;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.sim.Recorders;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class QuotaAlarmServiceTest {
  static final Instant T = Instant.parse("2026-11-30T01:58:00Z");
  final FakeAccount aws = new FakeAccount();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final DedupeStorePort dedupe = DedupeStorePort.inMemory(100);

  @BeforeEach
  void seed() {
    aws.offer("us-east-1", "p5.48xlarge", "a")
        .quota("us-east-1", QuotaBucket.P, CapacityType.SPOT, 384)
        .usage("us-east-1", QuotaBucket.P, CapacityType.SPOT, 336)
        .alarm("us-east-1", "gpufleet-quota-P-Spot", "ALARM");
  }

  QuotaAlarmService alarms(boolean increase, double cap) {
    var settings = PreflightSettings.defaults().withIncrease(increase, cap);
    var service =
        new PreflightService(
            aws, aws, aws, OnDemandPrices.none(), settings, Clock.fixed(T, ZoneOffset.UTC));
    return new QuotaAlarmService(service, dedupe, notifier);
  }

  static AlarmStateChange alarm(String id, String state, Instant when) {
    return new AlarmStateChange(
        new EventMeta(
            id,
            "aws.cloudwatch",
            "CloudWatch Alarm State Change",
            "123456789012",
            "us-east-1",
            when,
            List.of()),
        "gpufleet-quota-P-Spot",
        state,
        "OK",
        when,
        "Threshold Crossed",
        "P Spot vCPU above 80 %",
        List.of(
            new AlarmMetric(
                "m1",
                "AWS/Usage",
                "ResourceCount",
                Map.of("Service", "EC2", "Type", "Resource", "Resource", "vCPU", "Class", "P/Spot"),
                "Maximum",
                null),
            new AlarmMetric("e1", null, null, Map.of(), null, "m1 / SERVICE_QUOTA(m1) * 100")));
  }

  static final Plan PLAN =
      new Plan(
          "llm",
          List.of(
              new PlanEntry("trainers", List.of("p5.48xlarge"), 4, CapacityType.SPOT, List.of())),
          List.of("us-east-1"),
          false);
  static final NodePoolSpec POOL =
      new NodePoolSpec(
          "gpu-training",
          Map.of("nvidia.com/gpu", "32"),
          List.of(
              new NodePoolSpec.Requirement(
                  "karpenter.k8s.aws/instance-family", "In", List.of("p5")),
              new NodePoolSpec.Requirement("karpenter.sh/capacity-type", "In", List.of("spot"))));

  @Test
  void shouldNotifyWithUsageQuotaAndWhatIsAtRisk() {
    var o = alarms(false, 0).handle(alarm("e-1", "ALARM", T), Optional.of(PLAN), List.of(POOL));

    assertThat(o.status()).isEqualTo(AlarmOutcome.Status.HANDLED);
    assertThat(o.quota()).isEqualTo("P Spot");
    assertThat(o.quotaCode()).isEqualTo("L-7212CCBC");
    assertThat(o.usageVcpu()).isEqualTo(336);
    assertThat(o.percent()).isEqualTo(87.5);
    assertThat(o.plansAtRisk())
        .singleElement()
        .satisfies(p -> assertThat(p).contains("plan 'llm' needs 768 vCPU of P Spot here: NO_GO"));
    assertThat(o.poolsAtRisk())
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .startsWith("gpu-training (worst case 768 vCPU, more than the headroom left"));
    assertThat(o.increase()).contains("off");
    assertThat(notifier.sent)
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.subject()).isEqualTo("[GPU Fleet] P Spot quota at 88% in us-east-1");
              assertThat(n.message()).contains("336 of 384 vCPU").contains("gpu-training");
            });
    assertThat(aws.requested).isEmpty();
  }

  @Test
  void shouldHandleDuplicateDeliveriesOnceWithOneNotificationAndOneIncreaseRequest()
      throws Exception {
    var service = alarms(true, 1536);
    // the same state change delivered three times, two of them at once, one with a new event id
    var outcomes = new ArrayList<AlarmOutcome>();
    try (var pool = Executors.newFixedThreadPool(2)) {
      Future<AlarmOutcome> a =
          pool.submit(() -> service.handle(alarm("e-1", "ALARM", T), Optional.of(PLAN), List.of()));
      Future<AlarmOutcome> b =
          pool.submit(() -> service.handle(alarm("e-1", "ALARM", T), Optional.of(PLAN), List.of()));
      outcomes.add(a.get());
      outcomes.add(b.get());
    }
    outcomes.add(service.handle(alarm("e-2", "ALARM", T), Optional.of(PLAN), List.of()));

    assertThat(outcomes)
        .extracting(AlarmOutcome::status)
        .containsExactlyInAnyOrder(
            AlarmOutcome.Status.HANDLED,
            AlarmOutcome.Status.ALREADY_HANDLED,
            AlarmOutcome.Status.ALREADY_HANDLED);
    assertThat(notifier.sent).hasSize(1);
    assertThat(aws.requested)
        .singleElement()
        .satisfies(r -> assertThat(r.desiredValue()).isEqualTo(1104));
  }

  @Test
  void shouldNeverAskForMoreThanTheCap() {
    var o = alarms(true, 500).handle(alarm("e-1", "ALARM", T), Optional.of(PLAN), List.of());

    assertThat(aws.requested)
        .singleElement()
        .satisfies(r -> assertThat(r.desiredValue()).isEqualTo(500));
    assertThat(o.increase()).startsWith("requested 500 vCPU");
  }

  @Test
  void shouldNotAskWhenTheAlarmItselfIsNoLongerInAlarm() {
    // Given an ALARM event whose alarm CloudWatch now reports OK (a stale or replayed payload)
    aws.alarm("us-east-1", "gpufleet-quota-P-Spot", "OK");

    // When it is handled with increases on
    var o = alarms(true, 1536).handle(alarm("e-1", "ALARM", T), Optional.empty(), List.of());

    // Then nothing is requested, and the outcome says what DescribeAlarms answered
    assertThat(aws.requested).isEmpty();
    assertThat(o.increase())
        .isEqualTo(
            "not requested (alarm gpufleet-quota-P-Spot is OK now, not ALARM (DescribeAlarms))");
  }

  @Test
  void shouldNotAskForAnAlarmThatDoesNotExist() {
    // Given a forged ALARM event naming an alarm nobody created
    aws.alarms.clear();

    // When it is handled with increases on
    var o = alarms(true, 1536).handle(alarm("e-1", "ALARM", T), Optional.empty(), List.of());

    // Then nothing is requested
    assertThat(aws.requested).isEmpty();
    assertThat(o.increase())
        .isEqualTo(
            "not requested (alarm gpufleet-quota-P-Spot does not exist in us-east-1"
                + " (DescribeAlarms))");
  }

  @Test
  void shouldNotAskWhenTheQuotaIsAlreadyAtTheCap() {
    var o = alarms(true, 384).handle(alarm("e-1", "ALARM", T), Optional.empty(), List.of());

    assertThat(aws.requested).isEmpty();
    assertThat(o.increase()).contains("already at or above the cap of 384 vCPU");
  }

  @Test
  void shouldNotAskWhileARequestIsPendingOrCaseOpened() {
    for (String status : List.of("PENDING", "CASE_OPENED")) {
      aws.history.put(
          "us-east-1/L-7212CCBC", new ArrayList<>(List.of(new QuotaRequest("req-9", status, 768))));
      var o =
          alarms(true, 1536)
              .handle(
                  alarm("e-" + status, "ALARM", T.plusSeconds(status.length())),
                  Optional.empty(),
                  List.of());

      assertThat(o.increase())
          .isEqualTo("not requested (request req-9 for 768 vCPU is already " + status + ")");
    }
    assertThat(aws.requested).isEmpty();
  }

  @Test
  void shouldIgnoreTheReturnToOk() {
    var o = alarms(true, 1536).handle(alarm("e-3", "OK", T), Optional.empty(), List.of());

    assertThat(o.status()).isEqualTo(AlarmOutcome.Status.IGNORED);
    assertThat(notifier.sent).isEmpty();
    assertThat(aws.calls).isEmpty();
  }

  @Test
  void shouldReleaseTheClaimWhenHandlingFailsSoTheRetryActs() {
    aws.fail("us-east-1", "usage", new IllegalStateException("throttled"));
    var service = alarms(false, 0);
    try {
      service.handle(alarm("e-1", "ALARM", T), Optional.empty(), List.of());
    } catch (IllegalStateException expected) {
      // Lambda retries the event
    }
    aws.failures.clear();

    var retry = service.handle(alarm("e-1", "ALARM", T), Optional.empty(), List.of());

    assertThat(retry.status()).isEqualTo(AlarmOutcome.Status.HANDLED);
    assertThat(notifier.sent).hasSize(1);
  }
}
