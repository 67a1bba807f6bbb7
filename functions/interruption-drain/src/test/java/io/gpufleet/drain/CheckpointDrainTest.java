package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpufleet.core.k8s.CheckpointAnnotations;
import io.gpufleet.drain.model.CheckpointReport;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.sim.SimCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checkpoint-aware drain on the simulated API server, in virtual time: opted-in pods are told
 * at once, their evictions wait for their checkpoints, never past the deadline.
 */
class CheckpointDrainTest {
  static final String NODE = "gpu-t";
  static final String INSTANCE = "i-0cccccccccccccc01";
  final DrainFixture f = new DrainFixture();

  @AfterEach
  void close() {
    f.close();
  }

  /**
   * A training pod that opts in ({@code wants}) and whose simulated job checkpoints in {@code
   * takes}.
   */
  Pod trainer(String name, String wants, String takes, long grace) {
    Pod p = SimCluster.runningPod("ml", name, NODE, "Job", name, Map.of("app", name), grace, 1);
    p.getMetadata()
        .setAnnotations(
            Map.of(
                CheckpointAnnotations.CHECKPOINT,
                wants,
                "sim.gpufleet.io/checkpoint-takes",
                takes));
    return f.cluster.create(p);
  }

  void nodeWithWebPods(int n) {
    f.cluster.create(
        SimCluster.gpuNode(
            NODE, INSTANCE, "us-east-1a", "g6e.12xlarge", "spot", "gpu-train", null, 4));
    for (int i = 0; i < n; i++) {
      f.cluster.create(
          SimCluster.runningPod(
              "apps", "web-" + i, NODE, "ReplicaSet", "web", Map.of("app", "web"), 30, 0));
    }
    // pods take their whole granted grace period to go, as a training job writing its state would
    f.cluster.setTerminationTime(
        p -> Duration.ofSeconds(p.getSpec().getTerminationGracePeriodSeconds()));
  }

  static CheckpointReport timeline(DrainOutcome o, String pod) {
    return o.checkpoints().stream().filter(c -> c.pod().equals(pod)).findFirst().orElseThrow();
  }

  @Test
  void shouldTellOptedInPodsAndEvictTheOneThatCheckpointedOnceItReportedDone() {
    // Given a Spot node with two stateless pods, a job that checkpoints in 20 s and one that never
    // reports, both asking for up to 90 s
    nodeWithWebPods(2);
    trainer("trainer-a", "90s", "20s", 30);
    trainer("trainer-b", "90s", "never", 30);

    // When its Spot interruption warning arrives
    DrainOutcome o = f.service.handle(f.spot("e-ckpt", INSTANCE), f.hardStop()).get(0);

    // Then both jobs were told at once with the kind and the deadline, on the pod and in an Event
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.deadlineMet()).isTrue();
    Instant start = DrainFixture.START;
    var a = timeline(o, "ml/trainer-a");
    var b = timeline(o, "ml/trainer-b");
    assertThat(Duration.between(start, a.toldAt())).isLessThan(Duration.ofSeconds(1));
    assertThat(Duration.between(start, b.toldAt())).isLessThan(Duration.ofSeconds(1));
    var posts =
        f.cluster.requests().stream()
            .filter(r -> r.method().equals("POST"))
            .filter(r -> r.path().startsWith("/apis/events.k8s.io/v1/namespaces/ml/events"))
            .count();
    assertThat(posts).isEqualTo(2);
    // and the one that checkpointed was evicted within a poll of its report, long before the limit
    assertThat(a.made()).isTrue();
    assertThat(a.reported()).isEqualTo(start.plusSeconds(20).toString());
    Instant aDone = Instant.parse(a.checkpointDone());
    assertThat(Duration.between(start.plusSeconds(20), aDone))
        .isBetween(Duration.ZERO, CheckpointWait.POLL);
    assertThat(a.evictedAt()).isAfterOrEqualTo(aDone);
    assertThat(Duration.between(aDone, a.evictedAt())).isLessThanOrEqualTo(CheckpointWait.POLL);
    // and the one that never reported at the latest moment its grace still ends by the deadline
    assertThat(b.made()).isFalse();
    assertThat(b.checkpointDone()).isEqualTo(CheckpointReport.NOT_REPORTED);
    assertThat(b.latestEviction())
        .isEqualTo(o.deadline().minusSeconds(30).minus(CheckpointWait.EVICT_RESERVE));
    assertThat(b.evictedAt()).isAfterOrEqualTo(b.latestEviction());
    assertThat(Duration.between(b.latestEviction(), b.evictedAt()))
        .isLessThan(Duration.ofSeconds(1));
    // and the stateless pods did not wait
    assertThat(o.timings().cordonedMs()).isLessThan(1000);
    assertThat(o.podsEvicted())
        .contains("apps/web-0", "apps/web-1", "ml/trainer-a", "ml/trainer-b");
    assertThat(f.metrics.total("CheckpointsMade")).isEqualTo(1);
    assertThat(f.metrics.total("CheckpointsMissed")).isEqualTo(1);
  }

  @Test
  void shouldAnnotateThePodWithTheKindAndTheDeadline() {
    // Given a node with a job that never reports, whose eviction a budget keeps refusing (so the
    // pod
    // is still there to look at)
    nodeWithWebPods(0);
    trainer("trainer-b", "90s", "never", 30);
    f.cluster.fail(SimCluster.evictions(), 429, -1);

    DrainOutcome o = f.service.handle(f.spot("e-ann", INSTANCE), f.hardStop()).get(0);

    var annotations = f.cluster.pod("ml", "trainer-b").orElseThrow().getMetadata().getAnnotations();
    assertThat(annotations)
        .containsEntry(CheckpointAnnotations.KIND, "spot-interruption")
        .containsEntry(CheckpointAnnotations.DEADLINE, o.deadline().toString())
        .doesNotContainKey(CheckpointAnnotations.DONE);
  }

  @ParameterizedTest(name = "wants {0}, grace {1}s")
  @CsvSource({"90s,30", "10m,30", "90s,0", "90s,600", "1h,100"})
  void shouldNeverMissTheTwoMinuteSpotDeadlineForAWorkloadThatNeverReports(
      String wants, long grace) {
    // Given a Spot node (the shortest deadline kind: 2 minutes) with a job that never reports
    nodeWithWebPods(1);
    trainer("silent", wants, "never", grace);

    // When the warning arrives
    DrainOutcome o = f.service.handle(f.spot("e-silent", INSTANCE), f.hardStop()).get(0);

    // Then the pod is gone by the deadline: the wait ended in time for its (capped) grace period
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.deadlineMet()).isTrue();
    assertThat(DrainFixture.START.plusMillis(o.timings().allGoneMs()))
        .isBeforeOrEqualTo(o.deadline());
    var t = timeline(o, "ml/silent");
    assertThat(t.made()).isFalse();
    assertThat(t.evictedAt()).isBefore(o.deadline());
    assertThat(f.cluster.podsOn(NODE)).isEmpty();
  }

  @Test
  void shouldTellOnARebalanceRecommendationWithoutADeadlineAndEvictNothing() {
    nodeWithWebPods(1);
    trainer("trainer-a", "90s", "20s", 30);

    DrainOutcome o = f.service.handle(f.rebalance("e-reb", INSTANCE), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.CORDONED);
    var t = timeline(o, "ml/trainer-a");
    assertThat(t.toldAt()).isNotNull();
    assertThat(t.latestEviction()).isNull();
    assertThat(t.evictedAt()).isNull();
    var annotations = f.cluster.pod("ml", "trainer-a").orElseThrow().getMetadata().getAnnotations();
    assertThat(annotations)
        .containsEntry(CheckpointAnnotations.KIND, "rebalance")
        .doesNotContainKey(CheckpointAnnotations.DEADLINE);
    assertThat(f.cluster.podsOn(NODE)).hasSize(2);
    assertThat(f.metrics.total("CheckpointsMissed")).isZero();
  }

  @Test
  void shouldLeaveTheOutcomeWithoutCheckpointsWhenNoPodOptedIn() {
    nodeWithWebPods(2);

    DrainOutcome o = f.service.handle(f.spot("e-none", INSTANCE), f.hardStop()).get(0);

    assertThat(o.checkpoints()).isNull();
    assertThat(f.cluster.requests()).noneMatch(r -> r.path().contains("events.k8s.io"));
  }

  @ParameterizedTest
  @CsvSource({"90s,90", "5m,300", "1h30m,5400", "2m5s,125"})
  void shouldReadTheWantedCheckpointTime(String text, long seconds) {
    assertThat(CheckpointWait.parse(text)).isEqualTo(Duration.ofSeconds(seconds));
  }

  @ParameterizedTest
  @CsvSource({"90", "'90 s'", "''", "1d", "-5s"})
  void shouldRefuseAnUnreadableCheckpointTime(String text) {
    assertThat(CheckpointWait.parse(text)).isNull();
  }
}
