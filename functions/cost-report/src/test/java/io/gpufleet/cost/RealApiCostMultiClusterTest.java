package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.Utilisation;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.real.FunctionIdentity;
import io.gpufleet.sim.real.K8sBinaries;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.Manifests;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier, two clusters: the tier's shared API server ("blue") and a second
 * kube-apiserver + etcd + kwok ("green") with the same deploy/ manifests (as the drain's
 * RealApiMultiClusterTest does: only a second API server is an honest second cluster, nodes being
 * cluster-scoped). The cost report reads both as its own identity; then green loses the cost
 * report's ClusterRoleBinding (deploy/rbac/ not applied there, the usual mistake) and answers 403,
 * and blue is still reported.
 */
@RealApiServerTest
class RealApiCostMultiClusterTest {
  static RealCluster green;

  @BeforeAll
  static void startSecondCluster() {
    green = RealCluster.start(K8sBinaries.locate());
    green.installCrds();
    green.applyManifests(Manifests.all(Manifests.repoRoot()));
    green.defaultIdentity(FunctionIdentity.COST_REPORT);
  }

  @AfterAll
  static void stopSecondCluster() {
    if (green != null) {
      green.close();
    }
  }

  @Test
  void shouldReportBothClustersThenTheOtherOneWhenOneLosesItsBinding(RealNamespace ns) {
    var blueNode =
        ns.createNode(
            KwokNodes.Spec.karpenter(
                "p5", "i-0b1e0000000000p51", "us-east-1a", "p5.48xlarge", "on-demand", "gpu", 8));
    var greenSpec =
        KwokNodes.Spec.nodeGroup(
            "green-g6e", "i-0a7ee00000000g601", "us-east-1b", "g6e.12xlarge", "on-demand", "ng", 4);
    green.admin().nodes().resource(greenSpec.node()).create();
    Instant created =
        blueNode.getMetadata().getCreationTimestamp() == null
            ? Instant.now()
            : Instant.parse(blueNode.getMetadata().getCreationTimestamp());
    var store = new MemoryBlobStore();
    var metrics = new Recorders.RecordingMetrics();
    var service =
        new CostReportService(
            CostSettings.defaults("blue"),
            "us-east-1",
            List.of(
                new CostReportService.ClusterTarget(
                    "blue",
                    new RealApiCostTest.Scoped(
                        new CostClusterAdapter(ns.cluster().client(), "team"), ns),
                    (w, n) -> Utilisation.none("test")),
                new CostReportService.ClusterTarget(
                    "green",
                    new CostClusterAdapter(green.client(), "team"),
                    (w, n) -> Utilisation.none("test"))),
            (cluster, ids) ->
                cluster.equals("blue")
                    ? List.of(ec2("i-0b1e0000000000p51", "p5.48xlarge", "us-east-1a", created))
                    : List.of(ec2("i-0a7ee00000000g601", "g6e.12xlarge", "us-east-1b", created)),
            new Fixtures.FakeSpot(),
            new StaticPrices(),
            store,
            CostReporting.reporter(
                metrics, new Recorders.RecordingPublisher(), new Recorders.RecordingNotifier()),
            new io.gpufleet.core.time.VirtualTime(created.plus(Duration.ofHours(2))).clock(),
            CommitmentPort.none("test"));

    // When one run reports the stack's two clusters
    var first = service.run(new CostReportService.Request("24h", null, false), m -> {});

    // Then each cluster's report holds its own node, under its own key
    assertThat(first.clusters())
        .extracting(CostOutcome::cluster, CostOutcome::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("blue", CostOutcome.Status.REPORTED),
            org.assertj.core.groups.Tuple.tuple("green", CostOutcome.Status.REPORTED));
    assertThat(service.lastReports().get("blue").nodes())
        .extracting(CostReport.NodeCost::id)
        .containsExactly("i-0b1e0000000000p51");
    assertThat(service.lastReports().get("green").nodes())
        .extracting(CostReport.NodeCost::id)
        .containsExactly("i-0a7ee00000000g601");
    assertThat(first.clusters().get(1).outputs().get("json")).contains("reports/green/");

    // When green loses the cost report's binding (RBAC not applied there) and the next run comes
    green.admin().rbac().clusterRoleBindings().withName("gpufleet-cost-report").delete();
    RealCluster.await(
        "green refuses the cost report's node list",
        Duration.ofSeconds(30),
        () -> {
          try {
            green.client().nodes().list();
            return false;
          } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return e.getCode() == 403;
          }
        });
    // (another window, so its keys are new)
    var second = service.run(new CostReportService.Request("12h", null, false), m -> {});

    // Then blue is reported and green's real 403 is in the answer, nothing written for it
    assertThat(second.status()).isEqualTo(CostOutcome.Status.REPORTED);
    var failed = second.clusters().get(1);
    assertThat(failed.status()).isEqualTo(CostOutcome.Status.FAILED);
    assertThat(failed.message()).contains("green").contains("Forbidden");
    String blueJson = second.outputs().get("json").substring("memory:".length());
    assertThat(store.get(blueJson)).isPresent();
    assertThat(store.get(blueJson.replace("reports/blue/", "reports/green/"))).isEmpty();
    assertThat(metrics.total("ClusterReportsFailed")).isEqualTo(1.0);
  }

  static Ec2Instance ec2(String id, String type, String zone, Instant launch) {
    return new Ec2Instance(
        id, type, zone, Lifecycle.ON_DEMAND, launch, "running", null, null, null);
  }
}
