package io.gpufleet.drain;

import static io.gpufleet.drain.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.event.EventMeta;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.DrainClusterPort.BudgetInfo;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.drain.model.PodReport;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The pure decisions: deadline, which pods go when, grace periods, the claim patch, refusals. */
class DrainPolicyTest {
  static final Instant T = Instant.parse("2026-11-29T03:02:11Z");
  static final String INSTANCE = "i-0a1b2c3d4e5f60011";

  static DrainSettings settings(
      Duration margin, boolean skipDaemonSets, boolean excludeFromLb, String taintKey) {
    var d = DrainSettings.defaults("test-cluster");
    return new DrainSettings(
        d.clusterName(),
        d.actions(),
        margin,
        skipDaemonSets,
        false,
        taintKey,
        excludeFromLb,
        d.evictionConcurrency());
  }

  static final DrainPolicy DEFAULTS = new DrainPolicy(DrainSettings.defaults("test-cluster"));

  static EventMeta meta(String detailType, Instant time) {
    return new EventMeta(
        "e-1", "aws.ec2", detailType, "123456789012", "us-east-1", time, List.of());
  }

  static FleetEvent.InstanceEvent event(String kind, Instant eventTime, Instant healthStart) {
    return switch (kind) {
      case "spot" ->
          new FleetEvent.SpotInterruption(
              meta("EC2 Spot Instance Interruption Warning", eventTime), INSTANCE, "terminate");
      case "rebalance" ->
          new FleetEvent.RebalanceRecommendation(
              meta("EC2 Instance Rebalance Recommendation", eventTime), INSTANCE);
      case "state-change" ->
          new FleetEvent.InstanceStateChange(
              meta("EC2 Instance State-change Notification", eventTime), INSTANCE, "stopping");
      case "health" ->
          new FleetEvent.HealthScheduledChange(
              meta("AWS Health Event", eventTime),
              "arn:aws:health:us-east-1::event/EC2/X/1",
              "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED",
              healthStart,
              healthStart.plus(Duration.ofHours(2)),
              List.of(INSTANCE));
      default -> throw new IllegalArgumentException(kind);
    };
  }

  @Nested
  class Deadline {
    @ParameterizedTest(
        name = "{0}: event at T{1}s, start T+{2}s, hardStop T+{3}s, margin {4}s -> T+{5}s")
    @CsvSource({
      // kind,       event, healthStart, hardStop, margin, expected
      "spot,         0,     0,           600,      10,     110",
      "spot,         0,     0,           600,      30,     90",
      "spot,         -40,   0,           600,      10,     70",
      "spot,         0,     0,           60,       10,     60",
      "health,       0,     7200,        165,      10,     165",
      "health,       0,     100,         165,      10,     90",
      "health,       0,     100,         600,      45,     55",
      "rebalance,    0,     0,           165,      10,     165",
      "state-change, 0,     0,           165,      10,     165",
    })
    void shouldPlanTheDeadlineFromTheEventBoundedByTheFunctionsTimeLimit(
        String kind,
        long eventOffset,
        long healthStartOffset,
        long hardStopOffset,
        long marginSeconds,
        long expectedOffset) {
      // Given
      var policy = new DrainPolicy(settings(Duration.ofSeconds(marginSeconds), true, true, "k"));
      var event = event(kind, T.plusSeconds(eventOffset), T.plusSeconds(healthStartOffset));

      // When
      var plan = policy.plan(event, T.plusSeconds(hardStopOffset));

      // Then
      assertThat(plan.deadline()).isEqualTo(T.plusSeconds(expectedOffset));
    }

    @Test
    void shouldSayWhenTheDeadlineIsBoundedByTheFunctionsTimeLimit() {
      var bounded = DEFAULTS.plan(event("spot", T, T), T.plusSeconds(60));
      var unbounded = DEFAULTS.plan(event("spot", T, T), T.plusSeconds(600));
      var rebalance = DEFAULTS.plan(event("rebalance", T, T), T.plusSeconds(600));

      assertThat(bounded.deadlineBasis()).contains("spot notice").contains("bounded");
      assertThat(unbounded.deadlineBasis()).contains("spot notice").doesNotContain("bounded");
      assertThat(rebalance.deadlineBasis()).isEqualTo("function time limit");
    }

    @ParameterizedTest
    @CsvSource({
      "spot,         SPOT_INTERRUPTION, TAINT CORDON DRAIN",
      "health,       HEALTH_SCHEDULED,  TAINT CORDON DRAIN",
      "rebalance,    REBALANCE,         TAINT CORDON",
      "state-change, STATE_CHANGE,      CORDON DRAIN",
    })
    void shouldTakeTheConfiguredActionsOfTheEventsKind(
        String kind, DrainKind expectedKind, String expectedActions) {
      var plan = DEFAULTS.plan(event(kind, T, T.plusSeconds(7200)), T.plusSeconds(165));

      assertThat(plan.kind()).isEqualTo(expectedKind);
      assertThat(plan.actions())
          .containsExactlyInAnyOrderElementsOf(
              Stream.of(expectedActions.split(" ")).map(Action::valueOf).toList());
    }
  }

  @Nested
  class Selection {
    enum Bucket {
      FIRST,
      CRITICAL,
      TERMINATING,
      SKIPPED
    }

    static Stream<Arguments> pods() {
      return Stream.of(
          Arguments.of("ReplicaSet pod", (UnaryOperator<PodInfo>) p -> p, true, Bucket.FIRST),
          Arguments.of(
              "mirror annotation", (UnaryOperator<PodInfo>) TestPods::mirror, true, Bucket.SKIPPED),
          Arguments.of(
              "owned by the Node",
              (UnaryOperator<PodInfo>) p -> TestPods.withOwner(p, "Node"),
              true,
              Bucket.SKIPPED),
          Arguments.of(
              "Succeeded",
              (UnaryOperator<PodInfo>) p -> TestPods.withPhase(p, "Succeeded"),
              true,
              Bucket.SKIPPED),
          Arguments.of(
              "Failed",
              (UnaryOperator<PodInfo>) p -> TestPods.withPhase(p, "Failed"),
              true,
              Bucket.SKIPPED),
          Arguments.of(
              "DaemonSet, skipping DaemonSets",
              (UnaryOperator<PodInfo>) p -> TestPods.withOwner(p, "DaemonSet"),
              true,
              Bucket.SKIPPED),
          Arguments.of(
              "DaemonSet, not skipping DaemonSets",
              (UnaryOperator<PodInfo>) p -> TestPods.withOwner(p, "DaemonSet"),
              false,
              Bucket.FIRST),
          Arguments.of(
              "terminating",
              (UnaryOperator<PodInfo>) TestPods::terminating,
              true,
              Bucket.TERMINATING),
          Arguments.of(
              "terminating and critical",
              (UnaryOperator<PodInfo>)
                  p -> TestPods.terminating(TestPods.withPriority(p, "system-node-critical", null)),
              true,
              Bucket.TERMINATING),
          Arguments.of(
              "terminating mirror",
              (UnaryOperator<PodInfo>) p -> TestPods.terminating(TestPods.mirror(p)),
              true,
              Bucket.SKIPPED),
          Arguments.of(
              "system-node-critical",
              (UnaryOperator<PodInfo>) p -> TestPods.withPriority(p, "system-node-critical", null),
              true,
              Bucket.CRITICAL),
          Arguments.of(
              "system-cluster-critical",
              (UnaryOperator<PodInfo>)
                  p -> TestPods.withPriority(p, "system-cluster-critical", null),
              true,
              Bucket.CRITICAL),
          Arguments.of(
              "priority 2000000000",
              (UnaryOperator<PodInfo>) p -> TestPods.withPriority(p, "custom", 2_000_000_000),
              true,
              Bucket.CRITICAL),
          Arguments.of(
              "priority 2000001000",
              (UnaryOperator<PodInfo>) p -> TestPods.withPriority(p, null, 2_000_001_000),
              true,
              Bucket.CRITICAL),
          Arguments.of(
              "priority 1999999999",
              (UnaryOperator<PodInfo>) p -> TestPods.withPriority(p, "high", 1_999_999_999),
              true,
              Bucket.FIRST),
          Arguments.of(
              "critical DaemonSet, skipping DaemonSets",
              (UnaryOperator<PodInfo>)
                  p ->
                      TestPods.withOwner(
                          TestPods.withPriority(p, "system-node-critical", null), "DaemonSet"),
              true,
              Bucket.SKIPPED));
    }

    @ParameterizedTest(name = "{0} -> {3}")
    @MethodSource("pods")
    void shouldPutEachPodInTheRightBucket(
        String description, UnaryOperator<PodInfo> shape, boolean skipDaemonSets, Bucket expected) {
      // Given
      var policy = new DrainPolicy(settings(Duration.ofSeconds(10), skipDaemonSets, true, "k"));
      PodInfo p = shape.apply(pod("apps/p-0"));

      // When
      var selection = policy.select(List.of(p));

      // Then
      assertThat(selection.first()).hasSize(expected == Bucket.FIRST ? 1 : 0);
      assertThat(selection.critical()).hasSize(expected == Bucket.CRITICAL ? 1 : 0);
      assertThat(selection.terminating()).hasSize(expected == Bucket.TERMINATING ? 1 : 0);
      assertThat(selection.skipped()).hasSize(expected == Bucket.SKIPPED ? 1 : 0);
    }

    @Test
    void shouldSaySkippedPodsWereSkippedAndWhy() {
      var selection =
          DEFAULTS.select(
              List.of(
                  TestPods.mirror(pod("kube-system/npd-0")),
                  TestPods.withPhase(pod("batch/job-0"), "Succeeded"),
                  TestPods.withOwner(pod("kube-system/dcgm-0"), "DaemonSet")));

      assertThat(selection.skipped())
          .extracting(PodReport::pod, PodReport::status)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("kube-system/npd-0", PodReport.Status.SKIPPED),
              org.assertj.core.groups.Tuple.tuple("batch/job-0", PodReport.Status.SKIPPED),
              org.assertj.core.groups.Tuple.tuple("kube-system/dcgm-0", PodReport.Status.SKIPPED));
      assertThat(selection.skipped())
          .extracting(PodReport::reason)
          .satisfiesExactly(
              r -> assertThat(r).contains("mirror"),
              r -> assertThat(r).contains("terminal").contains("Succeeded"),
              r -> assertThat(r).contains("DaemonSet"));
    }

    @Test
    void shouldKeepThePodsOrderWithinEachBucket() {
      var pods = List.of(pod("a/p-2"), TestPods.critical("a/c-1"), pod("a/p-0"), pod("a/p-1"));

      var selection = DEFAULTS.select(pods);

      assertThat(selection.first())
          .extracting(PodInfo::key)
          .containsExactly("a/p-2", "a/p-0", "a/p-1");
      assertThat(selection.critical()).extracting(PodInfo::key).containsExactly("a/c-1");
    }
  }

  @Nested
  class Grace {
    @ParameterizedTest(name = "requested {0}, {1} ms left -> {2}")
    @CsvSource(
        nullValues = "unset",
        value = {
          "300,   110000, 110",
          "300,   110999, 110",
          "20,    110000, 20",
          "unset, 500000, 30",
          "unset, 10000,  10",
          "300,   0,      1",
          "300,   500,    1",
          "300,   -5000,  1",
          "unset, -1,     1",
        })
    void shouldGrantTheRequestedGraceCappedToTheWholeSecondsLeftButNeverBelowOne(
        Long requested, long millisLeft, long expected) {
      var p = TestPods.withGrace(pod("apps/p-0"), requested);

      assertThat(DrainPolicy.grantedGrace(p, Duration.ofMillis(millisLeft))).isEqualTo(expected);
    }

    @Test
    void shouldDefaultTheRequestedGraceToThirtySeconds() {
      assertThat(DrainPolicy.requestedGrace(TestPods.withGrace(pod("apps/p-0"), null)))
          .isEqualTo(30);
    }
  }

  @Nested
  class Claim {
    static final DrainMarker MARKER =
        new DrainMarker("e-1", "spot-interruption", DrainMarker.State.IN_PROGRESS, T);

    static NodeInfo node(boolean unschedulable, List<NodeInfo.Taint> taints) {
      return new NodeInfo(
          "gpu-a", "aws:///us-east-1a/" + INSTANCE, "7", unschedulable, taints, Map.of(), Map.of());
    }

    static DrainPolicy.Plan plan(Set<Action> actions) {
      return new DrainPolicy.Plan(DrainKind.SPOT_INTERRUPTION, actions, T, "test");
    }

    @ParameterizedTest(
        name =
            "actions {0}, excludeFromLB {1}, tainted {2}, unschedulable {3} -> taint {4}, label"
                + " {5}, cordon {6}")
    @CsvSource({
      // actions,           excludeLB, tainted, unschedulable, taint, label, cordon
      "TAINT CORDON DRAIN,  true,      false,   false,         true,  true,  true",
      "TAINT CORDON DRAIN,  false,     false,   false,         true,  false, true",
      "TAINT CORDON DRAIN,  true,      true,    false,         false, true,  true",
      "TAINT CORDON DRAIN,  true,      false,   true,          true,  true,  false",
      "TAINT CORDON DRAIN,  true,      true,    true,          false, true,  false",
      "TAINT CORDON,        true,      false,   false,         true,  true,  true",
      "CORDON DRAIN,        true,      false,   false,         false, false, true",
      "CORDON,              true,      false,   true,          false, false, false",
      "TAINT,               true,      false,   false,         true,  true,  false",
    })
    void shouldClaimTheNodeInOnePatchWithOnlyWhatIsMissing(
        String actions,
        boolean excludeFromLb,
        boolean tainted,
        boolean unschedulable,
        boolean expectTaint,
        boolean expectLabel,
        boolean expectCordon) {
      // Given
      var policy =
          new DrainPolicy(
              settings(Duration.ofSeconds(10), true, excludeFromLb, "gpufleet.io/interruption"));
      var taints =
          tainted
              ? List.of(new NodeInfo.Taint("gpufleet.io/interruption", "rebalance", "NoSchedule"))
              : List.<NodeInfo.Taint>of();
      var wanted = EnumSet.noneOf(Action.class);
      Stream.of(actions.split(" ")).map(Action::valueOf).forEach(wanted::add);

      // When
      var change = policy.claim(plan(wanted), node(unschedulable, taints), MARKER);

      // Then
      if (expectTaint) {
        assertThat(change.addTaint())
            .isEqualTo(
                new NodeInfo.Taint("gpufleet.io/interruption", "spot-interruption", "NoSchedule"));
      } else {
        assertThat(change.addTaint()).isNull();
      }
      if (expectLabel) {
        assertThat(change.labels())
            .containsExactly(Map.entry(DrainPolicy.LB_EXCLUSION_LABEL, "true"));
      } else {
        assertThat(change.labels()).isEmpty();
      }
      assertThat(change.cordon()).isEqualTo(expectCordon);
      assertThat(change.annotations())
          .containsExactly(Map.entry(DrainMarker.ANNOTATION, MARKER.toJson()));
      assertThat(change.guarded()).isTrue();
    }

    @Test
    void shouldAddItsTaintWhenTheSameKeyIsThereWithAnotherEffect() {
      var taints =
          List.of(
              new NodeInfo.Taint(DrainSettings.defaults("c").taintKey(), null, "PreferNoSchedule"));

      var change = DEFAULTS.claim(plan(EnumSet.allOf(Action.class)), node(false, taints), MARKER);

      assertThat(change.addTaint()).isNotNull();
      assertThat(change.addTaint().effect()).isEqualTo("NoSchedule");
    }
  }

  @Nested
  class Refusals {
    static BudgetInfo budget(String name, Integer disruptionsAllowed) {
      return new BudgetInfo("inf", name, "maxUnavailable=1", 6, 5, disruptionsAllowed);
    }

    @Test
    void shouldPredictThatABudgetAllowingOneRefusesTheOtherTwo() {
      // Given three pods under one budget that allows one disruption
      var pods = List.of(pod("inf/api-0"), pod("inf/api-1"), pod("inf/api-2"));
      var b = budget("api-pdb", 1);
      var budgets =
          Map.of("inf/api-0", List.of(b), "inf/api-1", List.of(b), "inf/api-2", List.of(b));

      // When
      var refusals = DrainPolicy.predictRefusals(pods, budgets);

      // Then
      assertThat(refusals).containsOnlyKeys("inf/api-1", "inf/api-2");
      assertThat(refusals.values())
          .allSatisfy(
              r -> {
                assertThat(r.status()).isEqualTo(PodReport.Status.BLOCKED);
                assertThat(r.reason()).contains("inf/api-pdb").contains("allows 1 now");
              });
    }

    @Test
    void shouldPredictThatABudgetAllowingNoneRefusesEveryPod() {
      var pods = List.of(pod("inf/api-0"), pod("inf/api-1"));
      var b = budget("api-pdb", 0);

      var refusals =
          DrainPolicy.predictRefusals(
              pods, Map.of("inf/api-0", List.of(b), "inf/api-1", List.of(b)));

      assertThat(refusals).containsOnlyKeys("inf/api-0", "inf/api-1");
      assertThat(refusals.get("inf/api-0").reason()).contains("refused until the budget recovers");
    }

    @Test
    void shouldPredictAConfigurationErrorForAPodUnderTwoBudgets() {
      var pods = List.of(pod("inf/api-0"), pod("inf/free-0"));

      var refusals =
          DrainPolicy.predictRefusals(
              pods, Map.of("inf/api-0", List.of(budget("pdb-a", 3), budget("pdb-b", 3))));

      assertThat(refusals).containsOnlyKeys("inf/api-0");
      assertThat(refusals.get("inf/api-0").status()).isEqualTo(PodReport.Status.CONFIG_ERROR);
      assertThat(refusals.get("inf/api-0").reason()).contains("inf/pdb-a").contains("inf/pdb-b");
    }

    @Test
    void shouldPredictNoRefusalWhenTheBudgetHasNoStatusYet() {
      var pods = List.of(pod("inf/api-0"), pod("inf/api-1"));
      var b = budget("api-pdb", null);

      var refusals =
          DrainPolicy.predictRefusals(
              pods, Map.of("inf/api-0", List.of(b), "inf/api-1", List.of(b)));

      assertThat(refusals).isEmpty();
    }
  }
}
