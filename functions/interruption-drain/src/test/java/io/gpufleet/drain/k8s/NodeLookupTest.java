package io.gpufleet.drain.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.drain.InstanceLookupPort;
import io.gpufleet.drain.InstanceLookupPort.Instance;
import io.gpufleet.sim.ApiRequest;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node of an instance found with one GET of the name EC2 gives (private DNS name), kept only
 * when its providerID carries the instance; every miss or failure falls back to listing the nodes
 * (never worse than without EC2), and a known instance costs no request.
 */
class NodeLookupTest {
  SimCluster cluster;
  KubernetesClient client;
  DrainClusterAdapter gateway;
  final List<String> asked = new ArrayList<>();
  Map<String, Instance> ec2 = Map.of();

  @BeforeEach
  void start() {
    cluster = SimCluster.start(SimTime.realTime());
    for (int i = 1; i <= 5; i++) {
      cluster.create(
          SimCluster.gpuNode(
              "ip-10-0-0-" + i + ".ec2.internal",
              "i-0a0000000000000" + i,
              "us-east-1a",
              "g6e.12xlarge",
              "spot",
              "ml",
              null,
              4));
    }
    client = cluster.newClient();
    gateway = new DrainClusterAdapter(client);
    gateway.useInstanceDirectory(
        id -> {
          asked.add(id);
          return Optional.ofNullable(ec2.get(id));
        });
    cluster.clearRequests();
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  List<String> requests() {
    return cluster.requests().stream().map(r -> r.method() + " " + r.path()).toList();
  }

  boolean listed() {
    return cluster.requests().stream()
        .map(ApiRequest::path)
        .anyMatch(p -> p.startsWith("/api/v1/nodes") && !p.startsWith("/api/v1/nodes/"));
  }

  @Test
  void shouldFindTheNodeWithOneGetOfTheNameEc2GivesAndNoListing() {
    ec2 = Map.of("i-0a00000000000003", new Instance("ip-10-0-0-3.ec2.internal", Set.of("ml")));

    var node = gateway.findNodeByInstanceId("i-0a00000000000003");

    assertThat(node).get().extracting(n -> n.name()).isEqualTo("ip-10-0-0-3.ec2.internal");
    assertThat(requests()).hasSize(1);
    assertThat(requests().get(0)).startsWith("GET /api/v1/nodes/ip-10-0-0-3.ec2.internal");
    assertThat(listed()).isFalse();
  }

  @Test
  void shouldAnswerAKnownInstanceAgainWithoutAnyRequest() {
    ec2 = Map.of("i-0a00000000000003", new Instance("ip-10-0-0-3.ec2.internal", Set.of("ml")));
    gateway.findNodeByInstanceId("i-0a00000000000003");
    cluster.clearRequests();

    assertThat(gateway.findNodeByInstanceId("i-0a00000000000003")).isPresent();

    assertThat(requests()).isEmpty();
    assertThat(asked).hasSize(1);
  }

  @Test
  void shouldNotTakeANodeOfTheSameNameWhoseProviderIdNamesAnotherInstanceButListInstead() {
    // a node name reused (another VPC's address, or a custom hostname): the providerID decides
    ec2 = Map.of("i-0a00000000000004", new Instance("ip-10-0-0-3.ec2.internal", Set.of()));

    var node = gateway.findNodeByInstanceId("i-0a00000000000004");

    assertThat(node).get().extracting(n -> n.name()).isEqualTo("ip-10-0-0-4.ec2.internal");
    assertThat(listed()).isTrue();
  }

  @Test
  void shouldFallBackToTheListingWhenEc2FailsOrKnowsNoName() {
    gateway.useInstanceDirectory(
        id -> {
          throw new IllegalStateException("RequestLimitExceeded");
        });
    assertThat(gateway.findNodeByInstanceId("i-0a00000000000002")).isPresent();
    assertThat(listed()).isTrue();

    gateway.useInstanceDirectory(InstanceLookupPort.NONE);
    assertThat(gateway.findNodeByInstanceId("i-0a00000000000009")).isEmpty();
  }

  @Test
  void shouldFallBackToTheListingWhenTheNamedNodeDoesNotExist() {
    ec2 = Map.of("i-0a00000000000005", new Instance("i-0a00000000000005.ec2.internal", Set.of()));

    assertThat(gateway.findNodeByInstanceId("i-0a00000000000005"))
        .get()
        .extracting(n -> n.name())
        .isEqualTo("ip-10-0-0-5.ec2.internal");
    assertThat(listed()).isTrue();
  }

  @Test
  void shouldRememberEc2AnswersAndAnswerEmptyOnFailureWithoutRemembering() {
    var calls = new ArrayList<String>();
    var failing = new boolean[] {true};
    InstanceLookupPort source =
        id -> {
          calls.add(id);
          if (failing[0]) {
            throw new IllegalStateException("throttled");
          }
          return Optional.of(new Instance("n", Set.of()));
        };
    var remembering = InstanceLookupPort.remembering(source, 2);

    assertThat(remembering.describe("i-1")).isEmpty();
    failing[0] = false;
    assertThat(remembering.describe("i-1")).isPresent();
    assertThat(remembering.describe("i-1")).isPresent();
    assertThat(calls).containsExactly("i-1", "i-1");
  }
}
