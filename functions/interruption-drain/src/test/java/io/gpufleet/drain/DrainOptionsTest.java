package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.sim.SimCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The options users of aws-node-termination-handler and Karpenter rely on: taint effect, node
 * exclusions (label selector, Karpenter nodes), dry run, message template, lifecycle limits.
 */
class DrainOptionsTest {

  static DrainSettings from(String... keyValues) {
    var env = new HashMap<String, String>();
    env.put("CLUSTER_NAME", "sim-cluster");
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return DrainSettings.from(new Settings(env));
  }

  // ---- settings: defaults and precise errors ----

  @Test
  void shouldDefaultToNoScheduleNoExclusionsNoDryRunAndTheBuiltInSummary() {
    var o = from().options();

    assertThat(o.taintEffect()).isEqualTo("NoSchedule");
    assertThat(o.exclude()).isNull();
    assertThat(o.leaveKarpenterNodes()).isFalse();
    assertThat(o.dryRun()).isFalse();
    assertThat(o.messageTemplate()).isNull();
    assertThat(o.lifecycle()).isEqualTo(DrainSettings.Lifecycle.DEFAULTS);
  }

  @ParameterizedTest
  @ValueSource(strings = {"NoSchedule", "NoExecute", "PreferNoSchedule"})
  void shouldAcceptEveryKubernetesTaintEffect(String effect) {
    assertThat(from("DRAIN_TAINT_EFFECT", effect).options().taintEffect()).isEqualTo(effect);
  }

  @Test
  void shouldRejectAnUnknownTaintEffectNamingTheChoices() {
    assertThatThrownBy(() -> from("DRAIN_TAINT_EFFECT", "noschedule"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("DRAIN_TAINT_EFFECT='noschedule'")
        .hasMessageContaining("NoExecute");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "gpufleet.io/no-drain=true              | gpufleet.io/no-drain=true    | true",
        "gpufleet.io/no-drain=true              | gpufleet.io/no-drain=false   | false",
        "team in (research, infra)              | team=infra                   | true",
        "team notin (research)                  | team=research                | false",
        "team!=research                         | other=x                      | true",
        "!gpufleet.io/drain                     | other=x                      | true",
        "gpufleet.io/drain                      | other=x                      | false",
        "tier==critical,team in (a,b)           | tier=critical                | false",
      })
  void shouldMatchNodesAsAKubectlLabelSelectorWould(String selector, String label, boolean hit) {
    var kv = label.split("=", 2);
    var s = from("DRAIN_EXCLUDE_NODES", selector).options().exclude();

    assertThat(s.matches(Map.of(kv[0], kv[1]))).isEqualTo(hit);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "team in (a                    | unclosed '('",
        "team=a)                       | unmatched ')'",
        "team=a,,x=y                   | empty requirement",
        "-bad-key=x                    | not a valid label key",
        "team=has space                | not a valid label value",
      })
  void shouldRejectABadSelectorNamingTheOffendingPart(String selector, String error) {
    assertThatThrownBy(() -> from("DRAIN_EXCLUDE_NODES", selector))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("DRAIN_EXCLUDE_NODES")
        .hasMessageContaining(error);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "'{status} {nodee}'            | unknown placeholder {nodee} at position 9",
        "'{status'                     | '{' at position 0 is not closed",
        "'done }'                      | '}' at position 5 has no opening '{'",
      })
  void shouldRejectABadTemplateAtInitWithThePosition(String template, String error) {
    assertThatThrownBy(() -> from("DRAIN_MESSAGE_TEMPLATE", template))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("DRAIN_MESSAGE_TEMPLATE")
        .hasMessageContaining(error);
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "LIFECYCLE_HEARTBEAT_INTERVAL, 10s, at least 30s",
    "LIFECYCLE_CHECK_INTERVAL, 16m, between 0 and",
    "LIFECYCLE_MAX_DRAIN, 49h, between 0 and",
    "LIFECYCLE_RESULT_AT_LIMIT, continue, is not CONTINUE or ABANDON",
  })
  void shouldRejectLifecycleLimitsOutsideWhatAutoScalingAllows(
      String name, String value, String error) {
    assertThatThrownBy(() -> from(name, value))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(name)
        .hasMessageContaining(error);
  }

  @Test
  void shouldReadTheLifecycleSettings() {
    var l =
        from(
                "LIFECYCLE_HEARTBEAT_INTERVAL", "2m",
                "LIFECYCLE_CHECK_INTERVAL", "5m",
                "LIFECYCLE_MAX_DRAIN", "6h",
                "LIFECYCLE_RESULT_AT_LIMIT", "ABANDON",
                "LIFECYCLE_LAUNCH_READY_TIMEOUT", "0")
            .options()
            .lifecycle();

    assertThat(l)
        .isEqualTo(
            new DrainSettings.Lifecycle(
                Duration.ofMinutes(2),
                Duration.ofMinutes(5),
                Duration.ofHours(6),
                "ABANDON",
                Duration.ZERO));
  }

  // ---- behaviour over the simulated cluster ----

  static DrainFixture fixture(DrainSettings.Options options) {
    var f = new DrainFixture(DrainSettings.defaults("sim-cluster").withOptions(options));
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 2);
    return f;
  }

  @ParameterizedTest
  @ValueSource(strings = {"NoExecute", "PreferNoSchedule"})
  void shouldTaintWithTheConfiguredEffect(String effect) {
    try (var f = fixture(DrainSettings.Options.DEFAULTS.withTaintEffect(effect))) {
      var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

      assertThat(o.status()).isEqualTo(Status.DRAINED);
      assertThat(f.cluster.node("gpu-a").orElseThrow().getSpec().getTaints())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.getKey()).isEqualTo("gpufleet.io/interruption");
                assertThat(t.getEffect()).isEqualTo(effect);
              });
    }
  }

  @Test
  void shouldLeaveANodeMatchingTheExclusionSelectorUntouchedAndSaySo() {
    var selector =
        NodeSelector.parse("DRAIN_EXCLUDE_NODES", "topology.kubernetes.io/zone=us-east-1a");
    try (var f = fixture(DrainSettings.Options.DEFAULTS.withExclude(selector))) {
      var o = f.service.handle(f.spot("e-2", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

      assertThat(o.status()).isEqualTo(Status.EXCLUDED);
      assertThat(o.message())
          .contains("DRAIN_EXCLUDE_NODES", "topology.kubernetes.io/zone=us-east-1a");
      assertThat(f.cluster.requests()).noneMatch(r -> !r.method().equals("GET"));
      assertThat(f.metrics.total("EventsExcluded")).isEqualTo(1);
    }
  }

  @Test
  void shouldLeaveKarpenterNodesToKarpentersInterruptionQueueWhenAsked() {
    try (var f = fixture(DrainSettings.Options.DEFAULTS.withLeaveKarpenterNodes(true))) {
      f.cluster.create(
          SimCluster.gpuNode(
              "ng-b", "i-0bbbbbbbbbbbbbbb1", "us-east-1a", "g5.xlarge", "spot", null, "ng", 1));

      var karpenter = f.service.handle(f.spot("e-3", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);
      var nodeGroup = f.service.handle(f.spot("e-4", "i-0bbbbbbbbbbbbbbb1"), f.hardStop()).get(0);

      assertThat(karpenter.status()).isEqualTo(Status.EXCLUDED);
      assertThat(karpenter.message()).contains("karpenter.sh/nodepool=gpu-inference", "Karpenter");
      assertThat(nodeGroup.status()).isEqualTo(Status.DRAINED);
      assertThat(f.cluster.node("gpu-a").orElseThrow().getSpec().getUnschedulable()).isNull();
    }
  }

  @Test
  void shouldPlanButNotActInADryRun() {
    try (var f = fixture(DrainSettings.Options.DEFAULTS.withDryRun(true))) {
      var o = f.service.handle(f.spot("e-5", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

      assertThat(o.status()).isEqualTo(Status.DRY_RUN);
      assertThat(o.node()).isEqualTo("gpu-a");
      assertThat(o.planned())
          .containsSubsequence(
              "taint gpufleet.io/interruption=spot-interruption:NoSchedule",
              "label node.kubernetes.io/exclude-from-external-load-balancers=true",
              "cordon")
          .contains("evict apps/gpu-a-web-0", "evict apps/gpu-a-web-1")
          .anyMatch(s -> s.startsWith("skip kube-system/gpu-a-dcgm"));
      assertThat(o.message()).contains("nothing was changed");
      assertThat(f.cluster.requests()).noneMatch(r -> !r.method().equals("GET"));
      assertThat(f.publisher.published).isEmpty();
      assertThat(f.notifier.sent).isEmpty();
    }
  }

  @Test
  void shouldWriteTheSummaryFromTheTemplate() {
    var template =
        MessageTemplate.parse(
            "DRAIN_MESSAGE_TEMPLATE",
            "{{gpufleet}} {status}: {kind} on {node} ({instance}) in {cluster}: {evicted} evicted,"
                + " {left} left {podsLeft}");
    try (var f = fixture(DrainSettings.Options.DEFAULTS.withMessageTemplate(template))) {
      f.service.handle(f.spot("e-6", "i-0aaaaaaaaaaaaaaa1"), f.hardStop());

      assertThat(f.notifier.sent)
          .singleElement()
          .satisfies(
              n ->
                  assertThat(n.message())
                      .isEqualTo(
                          "{gpufleet} DRAINED: spot-interruption on gpu-a (i-0aaaaaaaaaaaaaaa1) in"
                              + " sim-cluster: 2 evicted, 0 left "));
    }
  }
}
