package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpufleet.drain.aws.Ec2InstancesAdapter;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimEc2;
import io.gpufleet.sim.real.FunctionIdentity;
import io.gpufleet.sim.real.K8sBinaries;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.Manifests;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

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
        DrainWiring.Parts.of(DrainSettings.defaults("blue"))
            .reportingTo(metrics, publisher, new Recorders.RecordingNotifier()));
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

  /** The drain identity's requests on nodes with {@code verb} since {@code since}. */
  static List<RealCluster.AuditEvent> drainNodeRequests(
      RealCluster cluster, Instant since, String verb) {
    return cluster.auditEvents().stream()
        .filter(e -> e.groups().contains("gpufleet-drain") && !e.at().isBefore(since))
        .filter(e -> e.resource().equals("nodes") && e.verb().equals(verb))
        .toList();
  }

  /** The one outcome: {@code node} drained in green, every one of {@code pods} evicted. */
  static void assertDrainedInGreen(
      List<DrainOutcome> outcomes, RealNamespace ns, String node, List<Pod> pods) {
    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
              assertThat(o.cluster()).isEqualTo("green");
              assertThat(o.node()).isEqualTo(node);
              assertThat(o.podsEvicted())
                  .containsExactlyInAnyOrderElementsOf(
                      pods.stream().map(p -> ns.name() + "/" + p.getMetadata().getName()).toList());
            });
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
      assertDrainedInGreen(outcomes, greenNs, greenNode, pods);
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

  @Test
  void shouldFindTheSecondClustersNodeThroughEc2AndDrainItWithoutListingAnyNodes(
      RealCluster blue, RealNamespace blueNs) {
    // Given a node in green running two ReplicaSet pods, and EC2 answering DescribeInstances as
    // it does for EKS nodes: private DNS name = the node's name, tags naming its cluster
    String instance = "i-0a2e000000000ec21";
    try (var greenNs = RealNamespace.create(green, "multi-green-ec2");
        var ec2 = AwsStubServer.start()) {
      String greenNode =
          greenNs
              .createNode(
                  KwokNodes.Spec.nodeGroup(
                      "green-ec2", instance, "us-east-1b", "g6e.12xlarge", "SPOT", "ng-green", 4))
              .getMetadata()
              .getName();
      List<Pod> pods = RealApiDrainTest.workloadOn(greenNs, greenNode, "infer", 2);
      var nodes = new LinkedHashMap<String, List<io.fabric8.kubernetes.api.model.Node>>();
      nodes.put("blue", blue.admin().nodes().list().getItems());
      nodes.put("green", green.admin().nodes().list().getItems());
      SimEc2.serveNodes(ec2, nodes);
      var service =
          stack(blue)
              .lookUpInstancesWith(
                  InstanceLookupPort.remembering( // as DrainWiring wires it
                      new Ec2InstancesAdapter(
                          ec2.endpoint(),
                          Region.US_EAST_1,
                          StaticCredentialsProvider.create(
                              AwsBasicCredentials.create("AKIDSTUB", "secret")),
                          UrlConnectionHttpClient.create()),
                      16));
      Instant sent = Instant.now();

      // When the Spot warning for the green instance arrives at the stack
      var outcomes = spot(service, instance);

      // Then EC2 was asked for that instance, and the node it named was drained in green
      assertDrainedInGreen(outcomes, greenNs, greenNode, pods);
      assertThat(ec2.calls("DescribeInstances"))
          .singleElement()
          .satisfies(c -> assertThat(c.param("InstanceId.1")).contains(instance));
      // And it was found by one GET of its name: no node listing by the drain in either cluster
      for (var cluster : List.of(blue, green)) {
        assertThat(drainNodeRequests(cluster, sent, "list")).isEmpty();
      }
      assertThat(drainNodeRequests(green, sent, "get"))
          .extracting(RealCluster.AuditEvent::name)
          .containsOnly(greenNode);
    }
  }
}
