package io.gpufleet.sim;

import java.util.Map;

/**
 * The demo cluster's NodePools and workloads for the disruption schedule, matching
 * deploy/policy/disruption-schedule.example.yaml: two GPU NodePools and a CPU one; office-hours
 * inference Deployments and a StatefulSet; KEDA-scaled queue workers (one already paused at 2 by
 * its team); an HPA; a pinned (excluded) Deployment.
 */
public final class DemoWorkloads {
  private DemoWorkloads() {}

  public static final Map<String, String> GPU = Map.of("gpufleet.io/pool-class", "gpu");
  public static final Map<String, String> OFFICE = Map.of("gpufleet.io/schedule", "office-hours");

  public static void populate(SimCluster cluster) {
    SimObjects o = cluster.objects();
    o.create(SimObjects.nodePool("gpu-h100", GPU, "[{\"nodes\":\"10%\"}]", "30m"));
    o.create(SimObjects.nodePool("gpu-l40s", GPU, "[{\"nodes\":\"10%\"}]", "10m"));
    o.create(
        SimObjects.nodePool(
            "cpu-general", Map.of("gpufleet.io/pool-class", "cpu"), "[{\"nodes\":\"20%\"}]", "1m"));
    o.create(SimObjects.deployment("ml", "chat-inference", 4, OFFICE, SimObjects.SEEDED));
    o.create(SimObjects.deployment("ml", "embeddings", 2, OFFICE, SimObjects.SEEDED));
    o.create(SimObjects.statefulSet("ml", "vector-db", 3, OFFICE, SimObjects.SEEDED));
    var pinned = SimObjects.deployment("ml", "fraud-scoring", 2, OFFICE, SimObjects.SEEDED);
    pinned.with("metadata").putObject("annotations").put("gpufleet.io/exclude", "true");
    o.create(pinned);
    o.create(SimObjects.deployment("jobs", "batch-worker", 3, Map.of(), SimObjects.SEEDED));
    o.create(SimObjects.scaledObject("jobs", "batch-worker", "batch-worker", null, Map.of()));
    o.create(SimObjects.deployment("jobs", "reindexer", 0, Map.of(), SimObjects.SEEDED));
    o.create(SimObjects.scaledObject("jobs", "reindexer", "reindexer", "2", Map.of()));
    o.create(SimObjects.deployment("jobs", "api", 5, Map.of(), SimObjects.SEEDED));
    o.create(SimObjects.hpa("jobs", "api", "api", 3, 10, Map.of()));
  }
}
