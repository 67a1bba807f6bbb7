package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpufleet.core.time.Sleeper;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.real.FunctionIdentity;
import io.gpufleet.sim.real.K8sBinaries;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.Manifests;
import io.gpufleet.sim.real.RealApiServerTest;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier, two clusters: the tier's shared API server ("blue") and a second, separate
 * kube-apiserver + etcd + controllers + kwok ("green") started here with the same deploy/
 * manifests. Nodes are cluster-scoped, so two namespaces of one server could not be two clusters:
 * only a second API server is an honest second cluster. The drain, wired as the Lambda wires a
 * stack of two clusters, runs as its own identity in both.
 */
@RealApiServerTest
class RealApiMultiClusterTest {
  static RealCluster green;

  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();

  @BeforeAll
  static void startSecondCluster() {
    green = RealCluster.start(K8sBinaries.locate());
    green.installCrds();
    green.applyManifests(Manifests.all(Manifests.repoRoot()));
    green.defaultIdentity(FunctionIdentity.named("interruption-drain"));
  }

  @AfterAll
  static void stopSecondCluster() {
    if (green != null) {
      green.close();
    }
  }

  DrainService stack(RealCluster blue) {
    var kubes = new LinkedHashMap<String, io.fabric8.kubernetes.client.KubernetesClient>();
    kubes.put("blue", blue.client());
    kubes.put("green", green.client());
    return DrainWiring.routed(
        kubes,
        ClusterList.of("blue", "green"),
        DrainSettings.defaults("blue"),
        metrics,
        publisher,
        new Recorders.RecordingNotifier(),
        Clock.systemUTC(),
        Sleeper.SYSTEM);
  }

  static List<DrainOutcome> spot(DrainService service, String instanceId) {
    var event =
        DrainFixture.decode(
            """
            {"version":"0","id":"multi-%s","detail-type":"EC2 Spot Instance Interruption Warning",
             "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
             "resources":["arn:aws:ec2:us-east-1a:instance/%s"],
             "detail":{"instance-id":"%s","instance-action":"terminate"}}
            """
                .formatted(instanceId, Instant.now(), instanceId, instanceId));
    return service.handle(event, Instant.now().plus(Duration.ofMinutes(3)));
  }

  @Test
  void shouldDrainTheSecondClustersNodeLeaveTheFirstsAloneAndCallAForeignInstanceNotInCluster(
      RealCluster blue, RealNamespace blueNs) {
    // Given a node in each cluster, the green one running two ReplicaSet pods
    String blueNode =
        blueNs
            .createNode(RealApiDrainTest.spotNode("blue-a", "i-0b1e000000000a001"))
            .getMetadata()
            .getName();
    try (var greenNs = RealNamespace.create(green, "multi-green")) {
      String greenNode =
          greenNs
              .createNode(
                  KwokNodes.Spec.nodeGroup(
                      "green-a",
                      "i-0a2e000000000a002",
                      "us-east-1b",
                      "g6e.12xlarge",
                      "SPOT",
                      "ng-green",
                      4))
              .getMetadata()
              .getName();
      List<Pod> pods = RealApiDrainTest.workloadOn(greenNs, greenNode, "train", 2);
      var service = stack(blue);

      // When the Spot warning for the green instance arrives at the stack
      var outcomes = spot(service, "i-0a2e000000000a002");

      // Then it drained in green, and blue's node was not touched
      assertThat(outcomes)
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
                assertThat(o.cluster()).isEqualTo("green");
                assertThat(o.podsEvicted())
                    .containsExactlyInAnyOrderElementsOf(
                        pods.stream()
                            .map(p -> greenNs.name() + "/" + p.getMetadata().getName())
                            .toList());
              });
      assertThat(green.admin().nodes().withName(greenNode).get().getSpec().getUnschedulable())
          .isTrue();
      assertThat(blue.admin().nodes().withName(blueNode).get().getSpec().getUnschedulable())
          .isNotEqualTo(Boolean.TRUE);

      // And an instance of neither cluster is NOT_IN_CLUSTER, nothing patched anywhere
      var foreign = spot(service, "i-0f0e000000000f003");
      assertThat(foreign)
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.status()).isEqualTo(Status.NOT_IN_CLUSTER);
                assertThat(o.message()).contains("[blue, green]");
              });
    }
    // the drain identity was refused nothing in the second cluster either
    assertThat(green.auditEvents())
        .filteredOn(e -> e.groups().contains("gpufleet-drain"))
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.code()).as(e.verb() + " " + e.uri()).isNotEqualTo(403));
  }
}
