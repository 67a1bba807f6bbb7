package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.config.Settings;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.model.ScheduleOutcome.Status;
import io.gpufleet.schedule.policy.Guardrails;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import io.gpufleet.sim.SimTime;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Adapter tier: a policy cannot take the cluster down. Guardrails come from the function's settings
 * (never the policy), are on by default, are stated in every outcome, and a policy that breaks one
 * is refused with a precise message before anything is read or written.
 */
class GuardrailsTest {
  static final String SAFE =
      """
      timeZone: Europe/Berlin
      defaultWindow: off-hours
      windows:
        business-hours: { days: mon-fri, hours: "08:00-19:00" }
      gracePeriod: 1h
      nodePools:
        - name: gpu
          selector: { labels: { team: ml } }
          windows:
            business-hours: { budgets: [{ nodes: "10%" }] }
            off-hours: { budgets: [{ nodes: "100%", reasons: [Drifted] }], consolidateAfter: 0s }
      workloads:
        - name: inference
          selector: { namespaces: [ml], labels: { schedule: office } }
          replicas: { off-hours: 0 }
      """;

  SimCluster cluster;
  KubernetesClient client;
  SimObjects objects;
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    client = cluster.newClient();
    objects = cluster.objects();
    objects.create(
        SimObjects.nodePool("gpu-a100", Map.of("team", "ml"), "[{\"nodes\":\"10%\"}]", "30s"));
    var office = Map.of("schedule", "office");
    objects.create(SimObjects.deployment("ml", "chat", 4, office, ReconcileTest.CREATED));
    objects.create(SimObjects.deployment("ml", "embed", 2, office, ReconcileTest.CREATED));
    objects.create(
        SimObjects.deployment("kube-system", "coredns", 2, office, ReconcileTest.CREATED));
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  ScheduleOutcome run(String policy, Guardrails guardrails) {
    var settings = new ScheduleSettings("sim", "inline", false, 64, true, guardrails);
    return ScheduleWiring.service(
            client,
            settings,
            PolicySourcePort.inline(policy, "inline"),
            metrics,
            new Recorders.RecordingPublisher(),
            notifier,
            Clock.fixed(ReconcileTest.NIGHT, ZoneOffset.UTC))
        .reconcile(ReconcileTest.NIGHT, false, null);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          a protected namespace | namespaces: [ml] | namespaces: [ml, kube-system] | workloads[0] (inference).selector.namespaces: 'kube-system' is a protected namespace
          no replica ceiling    | off-hours: 0 }   | off-hours: 0, business-hours: 5000 } | workloads[0] (inference).replicas.business-hours: 5000 is above the ceiling of 100 replicas
          all nodes by day      | nodes: "10%" }]  | nodes: "100%" }]                | nodePools[0] (gpu).windows.business-hours.budgets[0].nodes: '100%' lets more than 20% of the pool be disrupted at once in business-hours
          many nodes by day     | nodes: "10%" }]  | nodes: "5" }]                   | budgets[0].nodes: '5' lets more than 20%
          instant consolidation | nodes: "10%" }]  | nodes: "10%" }], consolidateAfter: 0s | nodePools[0] (gpu).windows.business-hours.consolidateAfter: '0s' is below the floor of 1m
          """)
  void shouldRefuseAPolicyThatBreaksAGuardrailBeforeAnyReadOrWrite(
      String what, String from, String to, String message) {
    // Given a policy that breaks one guardrail
    String policy = SAFE.replaceFirst(java.util.regex.Pattern.quote(from), to);
    assertThat(policy).isNotEqualTo(SAFE);

    // When the schedule runs with the default guardrails
    ScheduleOutcome outcome = run(policy, Guardrails.defaults());

    // Then it is refused with the rule and value named, nothing is read or written, and someone
    // is told
    assertThat(outcome.status()).isEqualTo(Status.INVALID_POLICY);
    assertThat(outcome.message()).contains("(guardrails)").contains(message);
    assertThat(cluster.requests()).as("not even a read").isEmpty();
    assertThat(notifier.sent).hasSize(1);
  }

  @Test
  void shouldWriteNothingAndAlarmWhenARunWouldChangeMoreObjectsThanTheCap() {
    // Given a policy that would change a NodePool and two Deployments, and a cap of 2
    var capped = new Guardrails(Guardrails.BUILT_IN, 100, 2, Set.of("business-hours"), 20);

    // When the schedule runs at night
    ScheduleOutcome outcome = run(SAFE, capped);

    // Then nothing is written, the outcome says why and lists what it would have written, and the
    // run is counted and notified
    assertThat(outcome.status()).isEqualTo(Status.GUARDRAIL);
    assertThat(outcome.message())
        .contains("would change 3 objects, more than the 2 a run may change (SCHEDULE_MAX_CHANGES)")
        .contains("nothing written");
    assertThat(outcome.writes()).isZero();
    assertThat(outcome.changes()).hasSize(3);
    assertThat(objects.writes()).isEmpty();
    assertThat(metrics.total("RunsGuardrail")).isEqualTo(1.0);
    assertThat(notifier.sent).hasSize(1);
  }

  @Test
  void shouldNeverScaleAProtectedNamespaceAndStateTheGuardrailsInTheOutcome() {
    // Given a rule that names no namespace (it selects by label everywhere)
    String everywhere = SAFE.replace("namespaces: [ml], labels", "labels");

    // When the schedule runs at night
    ScheduleOutcome outcome = run(everywhere, Guardrails.defaults());

    // Then the Deployments in ml are scaled, the one in kube-system is not, and the outcome says
    // which guardrails held the run
    assertThat(outcome.status()).isEqualTo(Status.RECONCILED);
    assertThat(objects.require("Deployment", "ml", "chat").at("/spec/replicas").asInt()).isZero();
    assertThat(objects.require("Deployment", "kube-system", "coredns").at("/spec/replicas").asInt())
        .isEqualTo(2);
    assertThat(outcome.guardrails())
        .contains("protected namespaces ")
        .contains("kube-system")
        .contains("at most 100 replicas per rule and 200 objects changed per run");
  }

  @Test
  void shouldTakeTheGuardrailsFromTheSettingsWithProtectionAddedNeverRemoved() {
    var g =
        Guardrails.from(
            new Settings(
                Map.of(
                    "SCHEDULE_PROTECTED_NAMESPACES", "monitoring, ingress",
                    "SCHEDULE_MAX_REPLICAS", "20",
                    "SCHEDULE_MAX_CHANGES", "10")));
    assertThat(g.protectedNamespaces())
        .contains("monitoring", "ingress", "kube-system", "karpenter");
    assertThat(g.maxReplicas()).isEqualTo(20);
    assertThat(g.maxChanges()).isEqualTo(10);
    assertThat(Guardrails.defaults().floorWindows()).containsExactly("business-hours");
  }
}
