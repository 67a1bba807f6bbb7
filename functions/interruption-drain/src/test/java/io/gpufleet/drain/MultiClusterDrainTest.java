package io.gpufleet.drain;

import static io.gpufleet.drain.FakeCluster.evicted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.NodeChange;
import io.gpufleet.drain.model.NodeInfo;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.sim.Recorders;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * One stack, several clusters: each event goes to the cluster whose node has the instance as
 * providerID; an instance of no listed cluster is NOT_IN_CLUSTER and, for events without a
 * deadline, remembered for the negative cache's TTL (fake clock, no sleeps).
 */
class MultiClusterDrainTest {
  static final Instant START = Instant.parse("2026-12-01T03:00:00Z");
  final VirtualTime time = new VirtualTime(START);
  final FakeCluster blue = new FakeCluster(time.clock());
  final FakeCluster green = new FakeCluster(time.clock());
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final List<String> reservationLookups = new ArrayList<>();

  DrainService stack(DrainClusterPort first, DrainClusterPort second, Duration ttl, int max) {
    var members = List.of(member("blue", first), member("green", second));
    return new DrainService(new ClusterRouter(members, new NegativeCache(ttl, max, time.clock())));
  }

  DrainService stack() {
    return stack(blue, green, Duration.ofSeconds(60), 100);
  }

  ClusterRouter.Member member(String name, DrainClusterPort port) {
    var settings = DrainSettings.defaults(name);
    var reporter =
        DrainReporting.reporter(
            port, new Recorders.RecordingMetrics(), publisher, new Recorders.RecordingNotifier());
    return new ClusterRouter.Member(
        name, new ClusterDrain(settings, port, reporter, time.clock(), time.sleeper()));
  }

  Instant hardStop() {
    return time.now().plus(Duration.ofMinutes(14));
  }

  FleetEvent spot(String id, String instance) {
    return DrainFixture.decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Spot Instance Interruption Warning",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":["arn:aws:ec2:us-east-1:123456789012:instance/%s"],
         "detail":{"instance-id":"%s","instance-action":"terminate"}}
        """
            .formatted(id, time.now(), instance, instance));
  }

  FleetEvent stateChange(String id, String instance, String state) {
    return DrainFixture.decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Instance State-change Notification",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":[],"detail":{"instance-id":"%s","state":"%s"}}
        """
            .formatted(id, time.now(), instance, state));
  }

  FleetEvent capacityBlock(String id, String reservation) {
    return DrainFixture.decode(
        """
        {"version":"0","id":"%s","detail-type":"Capacity Block Expiration Warning",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":["arn:aws:ec2:us-east-1:123456789012:capacity-reservation/%s"],
         "detail":{"capacity-reservation-id":"%s","end-date":"%s"}}
        """
            .formatted(id, time.now(), reservation, reservation, time.now().plusSeconds(2400)));
  }

  long lookups(FakeCluster c, String instance) {
    return c.calls(FakeCluster.FindNode.class).stream()
        .filter(f -> f.instanceId().equals(instance))
        .count();
  }

  @Test
  void shouldDrainTheNodeOfTheSecondClusterAndLeaveTheFirstUntouched() {
    green.givenNode(TestPods.node("g-1", "i-0a00000000000001"), TestPods.pod("apps/web-1"));
    green.onEvict("apps/web-1").answer(evicted());

    var outcomes = stack().handle(spot("e-1", "i-0a00000000000001"), hardStop());

    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).isEqualTo(Status.DRAINED);
              assertThat(o.cluster()).isEqualTo("green");
              assertThat(o.node()).isEqualTo("g-1");
              assertThat(o.podsEvicted()).containsExactly("apps/web-1");
              assertThat(o.region()).isEqualTo("us-east-1");
            });
    assertThat(blue.calls(FakeCluster.PatchNode.class)).isEmpty();
    assertThat(green.calls(FakeCluster.PatchNode.class)).isNotEmpty();
    assertThat(publisher.published).hasSize(1);
  }

  @Test
  void shouldAskOnlyTheClusterTheInstancesEc2TagsNameWhenItHasTheNode() {
    green.givenNode(TestPods.node("g-1", "i-0a00000000000001"));
    var stack = stack();
    var asked = new ArrayList<String>();
    stack.lookUpInstancesWith(
        id -> {
          asked.add(id);
          return Optional.of(
              new InstanceLookupPort.Instance(
                  "g-1", java.util.Set.of("green", "some-other-cluster")));
        });

    var outcomes = stack.handle(spot("e-1", "i-0a00000000000001"), hardStop());

    assertThat(outcomes).extracting(DrainOutcome::cluster).containsExactly("green");
    assertThat(lookups(green, "i-0a00000000000001")).isPositive();
    assertThat(lookups(blue, "i-0a00000000000001")).isZero();
    assertThat(asked).contains("i-0a00000000000001");
  }

  @Test
  void shouldStillAskEveryClusterWhenTheTaggedClusterDoesNotHaveTheNode() {
    blue.givenNode(TestPods.node("b-1", "i-0a00000000000002"));
    var stack = stack();
    stack.lookUpInstancesWith(
        id -> Optional.of(new InstanceLookupPort.Instance("b-1", java.util.Set.of("green"))));

    var outcomes = stack.handle(spot("e-1", "i-0a00000000000002"), hardStop());

    assertThat(outcomes).extracting(DrainOutcome::cluster).containsExactly("blue");
    assertThat(lookups(blue, "i-0a00000000000002")).isPositive();
  }

  @Test
  void shouldFallBackToAskingEveryClusterWhenEc2Fails() {
    green.givenNode(TestPods.node("g-1", "i-0a00000000000003"));
    var stack = stack();
    stack.lookUpInstancesWith(
        id -> {
          throw new IllegalStateException("RequestLimitExceeded");
        });

    var outcomes = stack.handle(spot("e-1", "i-0a00000000000003"), hardStop());

    assertThat(outcomes).extracting(DrainOutcome::cluster).containsExactly("green");
  }

  @Test
  void shouldReportAnInstanceOfNoListedClusterAsNotInClusterNotNodeGone() {
    var outcomes = stack().handle(stateChange("e-1", "i-0f00000000000001", "stopping"), hardStop());

    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).isEqualTo(Status.NOT_IN_CLUSTER);
              assertThat(o.instanceId()).isEqualTo("i-0f00000000000001");
              assertThat(o.cluster()).isEqualTo("blue,green");
              assertThat(o.message()).contains("[blue, green]").contains(".../i-0f00000000000001");
            });
    assertThat(lookups(blue, "i-0f00000000000001")).isEqualTo(1);
    assertThat(lookups(green, "i-0f00000000000001")).isEqualTo(1);
  }

  @Test
  void shouldAnswerAForeignInstancesRepeatedStateChangesFromTheNegativeCacheUntilItsTtlEnds() {
    var stack = stack();
    stack.handle(stateChange("e-1", "i-0f00000000000001", "stopping"), hardStop());

    time.advance(Duration.ofSeconds(59));
    var again = stack.handle(stateChange("e-2", "i-0f00000000000001", "stopped"), hardStop());

    assertThat(again.get(0).status()).isEqualTo(Status.NOT_IN_CLUSTER);
    assertThat(again.get(0).message()).contains("not looked up again");
    assertThat(lookups(blue, "i-0f00000000000001")).isEqualTo(1);
    assertThat(lookups(green, "i-0f00000000000001")).isEqualTo(1);

    time.advance(Duration.ofSeconds(1));
    stack.handle(stateChange("e-3", "i-0f00000000000001", "terminated"), hardStop());

    assertThat(lookups(blue, "i-0f00000000000001")).isEqualTo(2);
    assertThat(lookups(green, "i-0f00000000000001")).isEqualTo(2);
  }

  @Test
  void shouldLookAgainForASpotWarningEvenRightAfterFindingTheInstanceInNoCluster() {
    var stack = stack();
    stack.handle(stateChange("e-1", "i-0c00000000000001", "stopping"), hardStop());
    // the node registers in green after the first lookup
    green.givenNode(TestPods.node("g-late", "i-0c00000000000001"));

    var outcomes = stack.handle(spot("e-2", "i-0c00000000000001"), hardStop());

    assertThat(outcomes.get(0).status()).isEqualTo(Status.DRAINED);
    assertThat(outcomes.get(0).cluster()).isEqualTo("green");
    // and the instance is forgotten by the negative cache once found
    var change = stack.handle(stateChange("e-3", "i-0c00000000000001", "stopping"), hardStop());
    assertThat(change.get(0).cluster()).isEqualTo("green");
  }

  @Test
  void shouldNotLookUpStateChangesThatNeedNoNode() {
    var outcomes = stack().handle(stateChange("e-1", "i-0d00000000000001", "running"), hardStop());

    assertThat(outcomes.get(0).status()).isEqualTo(Status.NO_ACTION);
    assertThat(blue.calls(FakeCluster.FindNode.class)).isEmpty();
    assertThat(green.calls(FakeCluster.FindNode.class)).isEmpty();
  }

  @Test
  void shouldKeepTheNegativeCacheBoundedDroppingTheOldestEntry() {
    var cache = new NegativeCache(Duration.ofSeconds(60), 2, time.clock());
    cache.add("i-1");
    cache.add("i-2");
    cache.add("i-3");

    assertThat(cache.size()).isEqualTo(2);
    assertThat(cache.contains("i-1")).isFalse();
    assertThat(cache.contains("i-2")).isTrue();
    assertThat(cache.contains("i-3")).isTrue();
  }

  @Test
  void shouldNotRememberAnythingWhenTheTtlIsZero() {
    var cache = new NegativeCache(Duration.ZERO, 10, time.clock());
    cache.add("i-1");

    assertThat(cache.contains("i-1")).isFalse();
  }

  @Test
  void shouldDrainInTheReachableClusterThatHasTheNodeWhileAnotherClusterIsDown() {
    green.givenNode(TestPods.node("g-1", "i-0a00000000000001"));
    var stack = stack(new Unreachable(), green, Duration.ofSeconds(60), 100);

    var outcomes = stack.handle(spot("e-1", "i-0a00000000000001"), hardStop());

    assertThat(outcomes.get(0).status()).isEqualTo(Status.DRAINED);
    assertThat(outcomes.get(0).cluster()).isEqualTo("green");
  }

  @Test
  void shouldRetryRatherThanCallTheInstanceForeignWhenAClusterCouldNotBeAsked() {
    var stack = stack(new Unreachable(), green, Duration.ofSeconds(60), 100);

    assertThatThrownBy(
            () -> stack.handle(stateChange("e-1", "i-0e00000000000001", "stopping"), hardStop()))
        .isInstanceOf(DrainClusterPort.ClusterUnavailableException.class);
    // not remembered as foreign: the retry asks again
    assertThat(lookups(green, "i-0e00000000000001")).isEqualTo(1);
    assertThatThrownBy(
            () -> stack.handle(stateChange("e-1", "i-0e00000000000001", "stopping"), hardStop()))
        .isInstanceOf(DrainClusterPort.ClusterUnavailableException.class);
    assertThat(lookups(green, "i-0e00000000000001")).isEqualTo(2);
  }

  @Test
  void shouldDrainCapacityBlockNodesWithoutKarpentersLabelFoundByInstanceIdThroughEc2() {
    // a managed node group node: no karpenter.k8s.aws/capacity-reservation-id label
    green.givenNode(TestPods.node("mng-1", "i-0b00000000000001"), TestPods.pod("ml/train-0"));
    green.onEvict("ml/train-0").answer(evicted());
    blue.givenNode(
        new NodeInfo(
            "karp-1",
            "aws:///us-east-1a/i-0b00000000000002",
            "1",
            false,
            List.of(),
            Map.of(DrainClusterPort.CAPACITY_RESERVATION_LABEL, "cr-0123456789abcdef0"),
            Map.of()));
    var stack = stack();
    stack.findReservationInstancesWith(
        id -> {
          reservationLookups.add(id);
          return List.of("i-0b00000000000001", "i-0b00000000000002");
        });

    var outcomes = stack.handle(capacityBlock("e-1", "cr-0123456789abcdef0"), hardStop());

    assertThat(reservationLookups).containsExactly("cr-0123456789abcdef0");
    assertThat(outcomes)
        .extracting(DrainOutcome::instanceId, DrainOutcome::cluster, DrainOutcome::status)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("i-0b00000000000002", "blue", Status.DRAINED),
            org.assertj.core.groups.Tuple.tuple("i-0b00000000000001", "green", Status.DRAINED));
    assertThat(green.podsLeftOn("mng-1")).isEmpty();
  }

  @Test
  void shouldDrainTheCapacityBlockNodesOfTheReachableClusterWhileAnotherIsDown() {
    green.givenNode(TestPods.node("mng-1", "i-0b00000000000001"));
    var stack = stack(new Unreachable(), green, Duration.ofSeconds(60), 100);
    stack.findReservationInstancesWith(id -> List.of("i-0b00000000000001"));

    var outcomes = stack.handle(capacityBlock("e-1", "cr-0123456789abcdef0"), hardStop());

    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).isEqualTo(Status.DRAINED);
              assertThat(o.cluster()).isEqualTo("green");
            });
  }

  @Test
  void shouldDrainAnUnlabelledCapacityBlockNodeInASingleClusterStackToo() {
    blue.givenNode(TestPods.node("self-1", "i-0b00000000000003"));
    var single = new DrainService(ClusterRouter.single(member("blue", blue).drain()));
    single.findReservationInstancesWith(id -> List.of("i-0b00000000000003"));

    var outcomes = single.handle(capacityBlock("e-1", "cr-0123456789abcdef0"), hardStop());

    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).isEqualTo(Status.DRAINED);
              assertThat(o.node()).isEqualTo("self-1");
              assertThat(o.kind()).isEqualTo("capacity-block-expiring");
            });
  }

  @Test
  void shouldSayWhereItLookedWhenNoClusterRunsInTheCapacityBlock() {
    var stack = stack();
    stack.findReservationInstancesWith(id -> List.of());

    var outcomes = stack.handle(capacityBlock("e-1", "cr-0123456789abcdef0"), hardStop());

    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).isEqualTo(Status.NOT_IN_CLUSTER);
              assertThat(o.message())
                  .contains("[blue, green]")
                  .contains("EC2 runs no instance in it");
            });
  }

  /** A cluster whose API server cannot be reached: every call fails as the gateway would. */
  static final class Unreachable implements DrainClusterPort {
    private static RuntimeException down() {
      return new ClusterUnavailableException("Kubernetes API: list nodes failed (timeout)", null);
    }

    @Override
    public Optional<NodeInfo> findNodeByInstanceId(String instanceId) {
      throw down();
    }

    @Override
    public List<NodeInfo> nodesInCapacityReservation(String reservationId) {
      throw down();
    }

    @Override
    public Optional<NodeInfo> getNode(String name) {
      throw down();
    }

    @Override
    public boolean nodeReady(String name) {
      throw down();
    }

    @Override
    public boolean patchNode(NodeInfo node, NodeChange change) {
      throw down();
    }

    @Override
    public List<PodInfo> podsOnNode(String nodeName) {
      throw down();
    }

    @Override
    public EvictionResult evict(PodInfo pod, long gracePeriodSeconds) {
      throw down();
    }

    @Override
    public boolean forceDelete(PodInfo pod) {
      throw down();
    }

    @Override
    public Map<String, List<BudgetInfo>> budgetsFor(List<PodInfo> pods) {
      throw down();
    }

    @Override
    public void recordNodeEvent(String nodeName, boolean warning, String reason, String message) {
      throw down();
    }
  }
}
