package io.gpufleet.scenario;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.schedule.HoldRecords;
import io.gpufleet.schedule.PolicySourcePort;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * The disruption schedule over the days the cost simulation wrote FOCUS data for: the real schedule
 * service against a simulated API server holding the demo cluster's office-hours GPU workloads, one
 * reconcile per hour, each run's hold record written beside the FOCUS files (what the named query
 * schedule-savings reads).
 */
public final class SavingsSimulation {
  /** Office hours in Berlin; off-hours the vLLM fleet keeps 2 of 6 replicas, notebooks stop. */
  public static final String POLICY =
      """
      timeZone: Europe/Berlin
      defaultWindow: off-hours
      windows:
        business-hours: { days: mon-fri, hours: "08:00-19:00" }
      workloads:
        - name: office-hours-gpu
          selector: { labels: { gpufleet.io/schedule: office-hours } }
          replicas: { off-hours: 2 }
        - name: notebooks
          selector: { namespaces: [research] }
          replicas: { off-hours: 0 }
      """;

  /** Deployment inference/vllm-llama: 6 replicas of 1 GPU (the demo fleet's vLLM pods' team). */
  public static final int VLLM_REPLICAS = 6;

  /** StatefulSet research/notebooks: 2 replicas of 1 GPU, in a namespace the FOCUS rows lack. */
  public static final int NOTEBOOK_REPLICAS = 2;

  private SavingsSimulation() {}

  static ObjectNode gpuWorkload(ObjectNode o, String team) {
    ((ObjectNode) o.at("/spec/template/metadata/labels")).put("team", team);
    ((ObjectNode) o.at("/spec/template/spec/containers/0"))
        .putObject("resources")
        .putObject("limits")
        .put("nvidia.com/gpu", "1");
    return o;
  }

  /** Hourly runs from {@code from} to {@code to} (both included); the number of runs. */
  public static int record(BlobStorePort store, Instant from, Instant to) {
    try (var cluster = SimCluster.start(SimTime.realTime());
        KubernetesClient client = cluster.newClient()) {
      SimObjects o = cluster.objects();
      o.create(
          gpuWorkload(
              SimObjects.deployment(
                  "inference",
                  "vllm-llama",
                  VLLM_REPLICAS,
                  Map.of("gpufleet.io/schedule", "office-hours"),
                  SimObjects.SEEDED),
              "ml-platform"));
      o.create(
          gpuWorkload(
              SimObjects.statefulSet(
                  "research", "notebooks", NOTEBOOK_REPLICAS, Map.of(), SimObjects.SEEDED),
              "ml-research"));
      var service =
          ScheduleWiring.service(
                  client,
                  ScheduleSettings.defaults(DemoFleet.CLUSTER, "inline"),
                  PolicySourcePort.inline(POLICY, "simulated policy"),
                  new Recorders.RecordingMetrics(),
                  new Recorders.RecordingPublisher(),
                  new Recorders.RecordingNotifier(),
                  Clock.fixed(to, ZoneOffset.UTC))
              .withRecords(new HoldRecords.Recorder(store, SimCapacityAccount.ACCOUNT, "team"));
      int runs = 0;
      for (Instant t = from; !t.isAfter(to); t = t.plus(Duration.ofHours(1))) {
        service.reconcile(t, false, null);
        runs++;
      }
      return runs;
    }
  }
}
