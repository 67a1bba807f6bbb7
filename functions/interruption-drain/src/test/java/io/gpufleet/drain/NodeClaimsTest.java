package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.DrainMarker.State;
import io.gpufleet.drain.NodeClaims.EventClaim;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.NodeInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node side both drains share: one claim patch per event (taint, cordon and marker together), a
 * repeat of the event turned away, a node that changed under the patch read again, the marker moved
 * on, released and checked for a take-over (fake cluster, virtual time, no sleeps).
 */
class NodeClaimsTest {
  static final Instant START = Instant.parse("2026-12-01T03:00:00Z");
  final VirtualTime time = new VirtualTime(START);
  final FakeCluster cluster = new FakeCluster(time.clock());
  final DrainPolicy policy = new DrainPolicy(DrainSettings.defaults("blue"));
  final NodeClaims claims = new NodeClaims(cluster, policy, time.clock(), time.sleeper());
  final DrainPolicy.Plan plan =
      new DrainPolicy.Plan(
          DrainKind.SPOT_INTERRUPTION,
          EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN),
          START.plusSeconds(100),
          "spot notice");

  NodeInfo givenNode() {
    cluster.givenNode(TestPods.node("gpu-a", "i-0a00000000000001"));
    return claims.find("i-0a00000000000001").orElseThrow();
  }

  @Test
  void shouldTaintCordonAndMarkTheNodeInOnePatch() {
    var node = givenNode();

    var claim = claims.claimForEvent("e-1", plan, node, State.IN_PROGRESS);

    assertThat(claim).isInstanceOf(EventClaim.Claimed.class);
    var marker = ((EventClaim.Claimed) claim).marker();
    assertThat(marker)
        .isEqualTo(
            new DrainMarker(
                "e-1", "spot-interruption", State.IN_PROGRESS, plan.deadline().plusSeconds(30)));
    assertThat(cluster.calls(FakeCluster.PatchNode.class)).hasSize(1);
    var after = cluster.node("gpu-a");
    assertThat(after.unschedulable()).isTrue();
    assertThat(after.taints()).extracting(NodeInfo.Taint::key).contains("gpufleet.io/interruption");
    assertThat(DrainMarker.read(after.annotations())).contains(marker);
  }

  @Test
  void shouldTurnAwayTheSameEventWhileItIsHandledAndAfter() {
    var node = givenNode();
    var marker =
        ((EventClaim.Claimed) claims.claimForEvent("e-1", plan, node, State.IN_PROGRESS)).marker();

    assertThat(claims.claimForEvent("e-1", plan, cluster.node("gpu-a"), State.IN_PROGRESS))
        .isEqualTo(new EventClaim.Duplicate(false));

    claims.mark("gpu-a", marker.with(State.DONE));

    assertThat(claims.claimForEvent("e-1", plan, cluster.node("gpu-a"), State.IN_PROGRESS))
        .isEqualTo(new EventClaim.Duplicate(true));
  }

  @Test
  void shouldReadTheNodeAgainWhenItChangedUnderThePatch() {
    var stale = givenNode();
    claims.mark("gpu-a", new DrainMarker("e-0", "rebalance", State.DONE, START));
    int before = cluster.calls().size();

    var claim = claims.claimForEvent("e-1", plan, stale, State.IN_PROGRESS);

    assertThat(claim).isInstanceOf(EventClaim.Claimed.class);
    assertThat(cluster.calls().subList(before, cluster.calls().size()))
        .extracting(c -> c.getClass().getSimpleName())
        .containsExactly("PatchNode", "GetNode", "PatchNode");
    // the event before is remembered, so its repeat is turned away too
    assertThat(((EventClaim.Claimed) claim).marker().recent()).containsExactly("e-0");
  }

  @Test
  void shouldReleaseTheClaimAndTellWhenAnotherEventTookTheNodeOver() {
    var node = givenNode();
    var ours =
        ((EventClaim.Claimed) claims.claimForEvent("e-1", plan, node, State.IN_PROGRESS)).marker();

    assertThat(claims.takenOver("gpu-a", ours)).isFalse();

    claims.release("gpu-a", ours);

    assertThat(DrainMarker.read(cluster.node("gpu-a").annotations()).orElseThrow().state())
        .isEqualTo(State.FAILED);
    claims.mark("gpu-a", new DrainMarker("e-2", "spot-interruption", State.IN_PROGRESS, START));
    assertThat(claims.takenOver("gpu-a", ours)).isTrue();
    assertThat(claims.takenOver("gone", ours)).isTrue();
  }

  @Test
  void shouldClaimALifecycleNodeWhateverItsMarkerSays() {
    var node = givenNode();
    claims.mark("gpu-a", new DrainMarker("other", "rebalance", State.IN_PROGRESS, START));
    var marker = new DrainMarker("asg-1", "asg-terminate", State.IN_PROGRESS, START);

    var claimed = claims.claim(plan, node, marker);

    assertThat(claimed.name()).isEqualTo("gpu-a");
    assertThat(DrainMarker.read(cluster.node("gpu-a").annotations())).contains(marker);
    assertThat(cluster.calls(FakeCluster.PatchNode.class)).hasSize(3);
  }

  @Test
  void shouldLetEvictionsWaitForOtherCordonsOnlyBriefly() throws InterruptedException {
    claims.awaitClaims(START.plusSeconds(60));
    assertThat(time.totalSlept()).isEqualTo(Duration.ZERO);

    var inFlight = claims.claimStarted();
    claims.awaitClaims(START.plusSeconds(60));
    assertThat(time.totalSlept()).isEqualTo(NodeClaims.CLAIMS_FIRST_MAX);

    claims.claimEnded(inFlight);
    claims.claimEnded(inFlight); // once only
    claims.awaitClaims(START.plusSeconds(60));
    assertThat(time.totalSlept()).isEqualTo(NodeClaims.CLAIMS_FIRST_MAX);
    assertThat(cluster.calls()).isEqualTo(List.of()); // no request of its own
  }
}
