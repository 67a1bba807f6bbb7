package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import org.junit.jupiter.api.Test;

/** `gpufleet drain` against a cluster reached through a kubeconfig (the simulated one). */
class DrainCommandTest extends SimClusterCli {

  @Override
  void populate(SimCluster cluster) {
    DemoFleet.populate(cluster);
  }

  @Test
  void shouldPreviewADrainWithoutWritingAnything() throws Exception {
    // Given the p5 Spot node with a training pod whose PDB allows no disruption
    String instance = DemoFleet.NODES.get(0).instanceId();
    String node = DemoFleet.NODES.get(0).name();
    cluster.clearRequests();

    // When
    int code =
        run(
            "drain",
            "--instance",
            instance,
            "--cluster",
            DemoFleet.CLUSTER,
            "--kubeconfig",
            "--dry-run",
            "--json");

    // Then it names what would be evicted, what would block and what is skipped, and wrote nothing
    assertThat(code).as(err()).isZero();
    JsonNode report = Json.MAPPER.readTree(out());
    assertThat(report.path("node").asText()).isEqualTo(node);
    assertThat(report.path("wouldEvict").toString())
        .contains("training/data-loader-0")
        .contains("training/data-loader-1");
    assertThat(report.path("wouldWaitOrBlock").get(0).path("pod").asText())
        .isEqualTo("training/llm-finetune-0");
    assertThat(report.path("wouldWaitOrBlock").get(0).path("reason").asText())
        .contains("training/llm-finetune");
    assertThat(report.path("wouldSkip").toString()).contains("DaemonSet").contains("terminal");
    assertThat(cluster.requests()).allMatch(r -> r.method().equals("GET"));
    assertThat(cluster.node(node).orElseThrow().getSpec().getUnschedulable()).isNotEqualTo(true);
  }

  @Test
  void shouldDrainANodeForReal() throws Exception {
    // Given the On-Demand p5 node whose pods no budget protects (they take 3 s to terminate)
    String instance = DemoFleet.NODES.get(1).instanceId();
    String node = DemoFleet.NODES.get(1).name();

    // When drained as a state change with a short deadline
    int code =
        run(
            "drain",
            "--instance",
            instance,
            "--cluster",
            DemoFleet.CLUSTER,
            "--kubeconfig",
            "--kind",
            "state-change",
            "--deadline",
            "90s",
            "--json");

    // Then the node is cordoned and only its DaemonSet pods remain
    assertThat(code).as(err()).isZero();
    JsonNode outcomes = Json.MAPPER.readTree(out());
    assertThat(outcomes.get(0).path("status").asText()).isEqualTo("DRAINED");
    assertThat(cluster.node(node).orElseThrow().getSpec().getUnschedulable()).isTrue();
    assertThat(cluster.podsOn(node))
        .allSatisfy(
            p ->
                assertThat(p.getMetadata().getOwnerReferences().get(0).getKind())
                    .isEqualTo("DaemonSet"));
  }

  @Test
  void shouldExitThreeWhenNoNodeHasTheInstance() {
    int code =
        run(
            "drain",
            "--instance",
            "i-0ffee00ddba11c0de",
            "--cluster",
            DemoFleet.CLUSTER,
            "--kubeconfig",
            "--dry-run");

    assertThat(code).isEqualTo(3);
    assertThat(out()).contains("no node of cluster").contains("i-0ffee00ddba11c0de");
  }
}
