package io.gpufleet.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.scenario.SyntheticEvents;
import io.gpufleet.sim.real.K8sBinaries;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code gpufleet bench drain --real}: the drain benchmark against a real kube-apiserver (etcd,
 * controller-manager, scheduler and kwok from scripts/k8s-bins.sh) instead of the fabric8 mock.
 * Pods are ReplicaSet pods that kwok runs; evictions go through the real eviction subresource and
 * pods are gone only once kwok has finished deleting them. The baseline is the same as the mock
 * benchmark's: sequential evictions at client-go's default QPS 5 / burst 10, on a second node of
 * the same size.
 */
public final class RealDrainBench {
  private final PrintStream err;

  public RealDrainBench(PrintStream err) {
    this.err = err;
  }

  /** {@code pods} on the measured node (a node admits 110). */
  public Map<String, Object> run(int pods) throws Exception {
    K8sBinaries binaries = K8sBinaries.locate(ProjectHome.path());
    err.println(
        "bench drain --real: kwokctl starting etcd, kube-apiserver, controller-manager, scheduler,"
            + " kwok...");
    long startNanos = System.nanoTime();
    try (var cluster = RealCluster.start(binaries)) {
      long clusterStartMs = (System.nanoTime() - startNanos) / 1_000_000;
      var ns = RealNamespace.create(cluster, "bench");
      KubernetesClient client = cluster.client();
      err.printf(
          "bench drain --real: cluster up in %d ms; seeding 2 nodes x %d pods...%n",
          clusterStartMs, pods);
      seed(ns, "warm", "i-0be0c0000000000c3", 3);
      seed(ns, "bench", "i-0be0c0000000000a1", pods);
      seed(ns, "baseline", "i-0be0c0000000000b2", pods);
      var service = service(client);
      // warm the JVM paths once on a small node so the measurement is of the drain
      service.handle(
          SyntheticEvents.spot("warm", "i-0be0c0000000000c3", Instant.now()),
          Instant.now().plusSeconds(170));

      err.printf("bench drain --real: draining %d pods...%n", pods);
      DrainOutcome o =
          service
              .handle(
                  SyntheticEvents.spot("bench", "i-0be0c0000000000a1", Instant.now()),
                  Instant.now().plusSeconds(170))
              .get(0);
      err.println("bench drain --real: baseline (sequential evictions at QPS 5 / burst 10)...");
      long baselineIssued = DrainBench.sequentialBaseline(client, ns.nodeName("baseline"), pods);

      var t = o.timings();
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "drain");
      r.put("apiServer", "real");
      r.put("pods", pods);
      r.put("clusterStartMs", clusterStartMs);
      double speedup = DrainBench.putDrainFigures(r, o, baselineIssued, err);
      r.put("targetAllGoneMs", TARGET_ALL_GONE_MS);
      r.put("targetSpeedup", TARGET_SPEEDUP);
      r.put(
          "pass",
          o.status() == DrainOutcome.Status.DRAINED
              && o.podsEvicted().size() == pods
              && t.allGoneMs() != null
              && t.allGoneMs() <= TARGET_ALL_GONE_MS
              && speedup >= TARGET_SPEEDUP);
      return r;
    }
  }

  /** Within the Spot notice with room to spare (deadline = 120 s minus a 10 s margin). */
  static final long TARGET_ALL_GONE_MS = 30_000;

  static final double TARGET_SPEEDUP = 10;

  /** A kwok GPU node with {@code pods} Ready pods of a ReplicaSet pinned to it. */
  private static void seed(RealNamespace ns, String node, String instanceId, int pods) {
    ns.createNode(
        KwokNodes.Spec.karpenter(
            node, instanceId, "us-east-1a", "g6e.12xlarge", "spot", "bench", 4));
    if (pods == 0) {
      return;
    }
    var labels = RealNamespace.labels("app", node);
    var rs =
        new io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder()
            .withNewMetadata()
            .withName(node)
            .withNamespace(ns.name())
            .endMetadata()
            .withNewSpec()
            .withReplicas(pods)
            .withNewSelector()
            .withMatchLabels(labels)
            .endSelector()
            .withTemplate(ns.podTemplate(labels, 0))
            .endSpec()
            .build();
    // pinned to the node: replacements of evicted pods stay Pending instead of landing elsewhere
    rs.getSpec()
        .getTemplate()
        .getSpec()
        .setNodeSelector(Map.of("kubernetes.io/hostname", ns.nodeName(node)));
    ns.client().apps().replicaSets().inNamespace(ns.name()).resource(rs).create();
    ns.awaitReadyPods(labels, pods);
  }

  private static DrainService service(KubernetesClient client) {
    return DrainWiring.service(client, DrainWiring.Parts.of(DrainSettings.defaults("bench")));
  }
}
