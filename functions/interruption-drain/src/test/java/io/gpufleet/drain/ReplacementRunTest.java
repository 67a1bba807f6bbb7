package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.model.PodInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The replacement wait's rules, on fakes: what counts as a replica, what ends the hold. */
class ReplacementRunTest {
  static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

  static PodInfo pod(String owner, Map<String, String> annotations) {
    return new PodInfo(
        "ns", "p", "u", "Running", owner, false, false, null, 0, 30L, Map.of(), annotations);
  }

  @Test
  void shouldHoldOnlyServingReplicasThatDoNotCheckpoint() {
    assertThat(ReplacementRun.isInferenceReplica(pod("ReplicaSet", Map.of()))).isTrue();
    assertThat(ReplacementRun.isInferenceReplica(pod("StatefulSet", Map.of()))).isTrue();
    assertThat(ReplacementRun.isInferenceReplica(pod("Job", Map.of()))).isFalse();
    assertThat(ReplacementRun.isInferenceReplica(pod(null, Map.of()))).isFalse();
    assertThat(
            ReplacementRun.isInferenceReplica(
                pod("ReplicaSet", Map.of(CheckpointWait.CHECKPOINT, "90s"))))
        .isFalse();
  }

  /** A group whose one other instance's node is never Ready. */
  static ReplacementPort neverReady() {
    var group =
        new ReplacementPort.Group(
            "g",
            1,
            4,
            3,
            false,
            Map.of(EarlyReplacement.OPT_IN, "true", EarlyReplacement.RAISED_FOR + "i-old", "2"),
            List.of("i-old", "i-other", "i-new"));
    return new ReplacementPort() {
      @Override
      public Optional<Group> groupOf(String instanceId) {
        return Optional.of(group);
      }

      @Override
      public Optional<Group> group(String name) {
        return Optional.of(group);
      }

      @Override
      public void setDesired(String group, int desired) {}

      @Override
      public void terminateDecrementing(String instanceId) {}

      @Override
      public void tag(String group, String key, String value) {}

      @Override
      public void untag(String group, String key) {}
    };
  }

  @Test
  void shouldStopHoldingWhenAnotherEventClaimsTheNode() throws Exception {
    // Given a raise whose replacement is never Ready (only i-other's node is)
    var time = new VirtualTime(T0);
    var cluster = new FakeCluster(time.clock());
    cluster.givenNode(
        new io.gpufleet.drain.model.NodeInfo(
            "n-other", "aws:///us-east-1a/i-other", "1", false, List.of(), Map.of(), Map.of()));
    var run =
        ReplacementRun.start(
            neverReady(),
            cluster,
            time.clock(),
            time.sleeper(),
            "i-old",
            io.gpufleet.drain.model.DrainKind.REBALANCE);
    assertThat(run.raised()).isTrue();

    // When the Spot warning claims the node on the third look
    var looks = new AtomicInteger();
    String why =
        run.awaitReplacement(T0.plus(Duration.ofMinutes(10)), () -> looks.incrementAndGet() > 2);

    // Then the hold ends then, long before its latest moment
    assertThat(why).contains("another event claimed the node");
    assertThat(time.now()).isBefore(T0.plus(Duration.ofSeconds(30)));
  }

  @Test
  void shouldStopHoldingAtItsLatestMoment() throws Exception {
    var time = new VirtualTime(T0);
    var cluster = new FakeCluster(time.clock());
    var run =
        ReplacementRun.start(
            neverReady(),
            cluster,
            time.clock(),
            time.sleeper(),
            "i-old",
            io.gpufleet.drain.model.DrainKind.REBALANCE);

    String why = run.awaitReplacement(T0.plus(Duration.ofSeconds(61)), () -> false);

    assertThat(why).startsWith("latest safe moment");
    assertThat(time.now()).isEqualTo(T0.plus(Duration.ofSeconds(61)));
  }
}
