package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.PodReport;
import io.gpufleet.sim.SimCluster;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DrainServiceTest {
  final DrainFixture f = new DrainFixture();

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void shouldTaintCordonAndEvictEveryPodButDaemonSets() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 12);

    var outcomes = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop());

    assertThat(outcomes).hasSize(1);
    DrainOutcome o = outcomes.get(0);
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.node()).isEqualTo("gpu-a");
    assertThat(o.podsEvicted()).hasSize(12);
    assertThat(o.podsSkipped())
        .extracting(PodReport::pod)
        .containsExactly("kube-system/gpu-a-dcgm");
    assertThat(o.deadlineMet()).isTrue();
    var node = f.cluster.node("gpu-a").orElseThrow();
    assertThat(node.getSpec().getUnschedulable()).isTrue();
    assertThat(node.getSpec().getTaints())
        .anySatisfy(
            t -> {
              assertThat(t.getKey()).isEqualTo("gpufleet.io/interruption");
              assertThat(t.getValue()).isEqualTo("spot-interruption");
              assertThat(t.getEffect()).isEqualTo("NoSchedule");
            });
    assertThat(node.getMetadata().getLabels())
        .containsEntry(DrainPolicy.LB_EXCLUSION_LABEL, "true");
    assertThat(f.cluster.podsOn("gpu-a"))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("gpu-a-dcgm");
    assertThat(f.publisher.published).hasSize(1);
    assertThat(f.notifier.sent).hasSize(1);
    assertThat(f.cluster.events())
        .anySatisfy(e -> assertThat(e.getInvolvedObject().getName()).isEqualTo("gpu-a"));
  }

  @Test
  void shouldCordonInOnePatchBeforeTheFirstEviction() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 3);

    f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop());

    var requests = f.cluster.requests();
    int firstPatch = -1;
    int firstEviction = -1;
    int patches = 0;
    for (int i = 0; i < requests.size(); i++) {
      var r = requests.get(i);
      if (r.method().equals("PATCH") && r.path().startsWith("/api/v1/nodes/gpu-a")) {
        patches++;
        if (firstPatch < 0) {
          firstPatch = i;
        }
      }
      if (r.path().contains("/eviction") && firstEviction < 0) {
        firstEviction = i;
      }
    }
    assertThat(firstPatch).isNotNegative().isLessThan(firstEviction);
    // the claim/cordon patch and the final "done" marker patch
    assertThat(patches).isEqualTo(2);
  }

  @Test
  void shouldDrainOnlyOnceWhenTheSameEventArrivesTenTimes() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 5);
    var event = f.spot("e-dup", "i-0aaaaaaaaaaaaaaa1");

    var statuses = new java.util.ArrayList<Status>();
    for (int i = 0; i < 10; i++) {
      statuses.add(f.service.handle(event, f.hardStop()).get(0).status());
    }

    assertThat(statuses).containsOnlyOnce(Status.DRAINED);
    assertThat(statuses).filteredOn(s -> s == Status.DUPLICATE).hasSize(9);
    assertThat(f.evictionRequests()).isEqualTo(5);
    assertThat(f.publisher.published).hasSize(1);
  }

  @Test
  void shouldDrainOnlyOnceWhenTheSameEventArrivesConcurrently() throws Exception {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 5);
    var event = f.spot("e-dup", "i-0aaaaaaaaaaaaaaa1");

    var statuses = new java.util.concurrent.CopyOnWriteArrayList<Status>();
    try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 10; i++) {
        pool.submit(() -> statuses.add(f.service.handle(event, f.hardStop()).get(0).status()));
      }
    }

    assertThat(statuses).hasSize(10).containsOnlyOnce(Status.DRAINED);
    assertThat(f.evictionRequests()).isEqualTo(5);
  }

  @Test
  void shouldReportExactlyThePodsAPdbBlocksUntilTheDeadline() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 4);
    f.cluster.create(
        SimCluster.runningPod(
            "train", "llm-0", "gpu-a", "StatefulSet", "llm", Map.of("app", "llm"), 30, 8));
    f.cluster.create(SimCluster.pdb("train", "llm-pdb", Map.of("app", "llm"), "1", null, 1));

    var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.PARTIAL);
    assertThat(o.podsEvicted()).hasSize(4);
    assertThat(o.podsNotEvicted())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.pod()).isEqualTo("train/llm-0");
              assertThat(r.status()).isEqualTo(PodReport.Status.BLOCKED);
              assertThat(r.reason()).contains("train/llm-pdb").contains("minAvailable=1");
              assertThat(r.attempts()).isGreaterThan(3);
            });
    assertThat(o.deadlineMet()).isFalse();
    assertThat(f.time.now()).isAfterOrEqualTo(o.deadline());
    assertThat(f.cluster.pod("train", "llm-0")).isPresent();
    assertThat(f.notifier.sent.get(0).message()).contains("train/llm-0");
  }

  @Test
  void shouldRetryABlockedEvictionUntilAReplacementIsReady() {
    f.cluster.enableReplacements(java.time.Duration.ofSeconds(5));
    f.cluster.create(
        SimCluster.gpuNode(
            "gpu-b",
            "i-0bbbbbbbbbbbbbbb2",
            "us-east-1a",
            "g5.xlarge",
            "on-demand",
            null,
            "ng-1",
            1));
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 0);
    for (int i = 0; i < 2; i++) {
      f.cluster.create(
          SimCluster.runningPod(
              "inf", "api-" + i, "gpu-a", "ReplicaSet", "api", Map.of("app", "api"), 30, 1));
    }
    f.cluster.create(SimCluster.pdb("inf", "api-pdb", Map.of("app", "api"), null, "1", 2));

    var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.podsEvicted()).containsExactlyInAnyOrder("inf/api-0", "inf/api-1");
    assertThat(f.evictionRequests()).isGreaterThan(2);
    assertThat(f.cluster.replacementsStarted()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void shouldReportAPodUnderTwoPdbsAsAConfigurationError() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 0);
    f.cluster.create(
        SimCluster.runningPod(
            "inf", "api-0", "gpu-a", "ReplicaSet", "api", Map.of("app", "api"), 30, 1));
    f.cluster.create(SimCluster.pdb("inf", "pdb-a", Map.of("app", "api"), null, "1", 3));
    f.cluster.create(SimCluster.pdb("inf", "pdb-b", Map.of("app", "api"), "1", null, 3));

    var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.PARTIAL);
    assertThat(o.podsNotEvicted())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(PodReport.Status.CONFIG_ERROR);
              assertThat(r.reason()).contains("more than one PodDisruptionBudget");
              assertThat(r.attempts()).isEqualTo(1);
            });
  }

  @Test
  void shouldOnlyTaintAndCordonOnARebalanceRecommendation() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 3);

    var o = f.service.handle(f.rebalance("e-r", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.CORDONED);
    assertThat(f.evictionRequests()).isZero();
    assertThat(f.cluster.node("gpu-a").orElseThrow().getSpec().getUnschedulable()).isTrue();
    assertThat(f.cluster.podsOn("gpu-a")).hasSize(4);
  }

  @Test
  void shouldTreatAnInstanceOfAnotherClusterAsACountedNoOp() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);

    var spot = f.service.handle(f.spot("e-1", "i-0ccccccccccccccc3"), f.hardStop()).get(0);
    var foreign =
        f.service
            .handle(f.stateChange("e-2", "i-0ccccccccccccccc3", "terminated"), f.hardStop())
            .get(0);

    assertThat(spot.status()).isEqualTo(Status.NOT_IN_CLUSTER);
    assertThat(foreign.status()).isEqualTo(Status.NOT_IN_CLUSTER);
    assertThat(foreign.instanceId()).isEqualTo("i-0ccccccccccccccc3");
    assertThat(f.metrics.total("EventsNotInCluster")).isEqualTo(2);
    assertThat(f.cluster.requests()).noneMatch(r -> r.method().equals("PATCH"));
  }

  @Test
  void shouldDrainACapacityReservationInterruptionByItsTerminationTime() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 3);
    var terminates = f.time.now().plusSeconds(100);

    var o =
        f.service
            .handle(
                f.capacityReservationInterruption("e-cr", "i-0aaaaaaaaaaaaaaa1", terminates),
                f.hardStop())
            .get(0);

    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.kind()).isEqualTo("capacity-reservation-interruption");
    assertThat(o.deadline()).isEqualTo(terminates.minusSeconds(10));
    assertThat(o.region()).isEqualTo("us-east-1");
    assertThat(f.cluster.node("gpu-a").orElseThrow().getSpec().getTaints())
        .anySatisfy(t -> assertThat(t.getValue()).isEqualTo("capacity-reservation-interruption"));
  }

  @Test
  void shouldGiveACapacityReservationInterruptionWithoutATimeTheTwoMinuteNotice() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);
    var event = f.capacityReservationInterruption("e-cr", "i-0aaaaaaaaaaaaaaa1", null);

    var o = f.service.handle(event, f.hardStop()).get(0);

    assertThat(o.deadline()).isEqualTo(event.meta().time().plusSeconds(110));
  }

  @Test
  void shouldDrainEveryNodeOfAnEndingCapacityBlockBeforeTerminationsStart() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 2);
    f.nodeWithPods("gpu-b", "i-0bbbbbbbbbbbbbbb2", 2);
    f.nodeWithPods("gpu-c", "i-0ccccccccccccccc3", 2);
    for (String node : java.util.List.of("gpu-a", "gpu-b")) {
      f.cluster.label(node, DrainClusterPort.CAPACITY_RESERVATION_LABEL, "cr-0123456789abcdef0");
    }
    var end = f.time.now().plus(java.time.Duration.ofMinutes(40));

    var outcomes =
        f.service.handle(
            f.capacityBlockExpiring("e-cb", "cr-0123456789abcdef0", end), f.hardStop());

    assertThat(outcomes).extracting(DrainOutcome::node).containsExactlyInAnyOrder("gpu-a", "gpu-b");
    assertThat(outcomes).allSatisfy(o -> assertThat(o.status()).isEqualTo(Status.DRAINED));
    assertThat(outcomes)
        .allSatisfy(
            o ->
                assertThat(o.deadline())
                    .isEqualTo(end.minus(java.time.Duration.ofMinutes(30)).minusSeconds(10)));
    assertThat(f.cluster.node("gpu-c").orElseThrow().getSpec().getUnschedulable())
        .isNotEqualTo(true);
  }

  @Test
  void shouldReportACapacityBlockWithoutNodesHereAsNotInCluster() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);

    var outcomes =
        f.service.handle(
            f.capacityBlockExpiring("e-cb", "cr-0123456789abcdef0", f.time.now().plusSeconds(2400)),
            f.hardStop());

    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).isEqualTo(Status.NOT_IN_CLUSTER);
              assertThat(o.message()).contains("cr-0123456789abcdef0");
              assertThat(o.region()).isEqualTo("us-east-1");
            });
    assertThat(f.cluster.requests()).noneMatch(r -> r.method().equals("PATCH"));
  }

  @Test
  void shouldGiveAHibernationNoNotice() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);
    var event = f.spot("e-h", "i-0aaaaaaaaaaaaaaa1", "hibernate");

    var o = f.service.handle(event, f.hardStop()).get(0);

    assertThat(o.deadline()).isEqualTo(event.meta().time());
    assertThat(o.deadlineMet()).isNotEqualTo(Boolean.TRUE);
  }

  @Test
  void shouldKeepTheInstanceIdAndRegionOfAStateThatNeedsNoAction() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);

    var o =
        f.service
            .handle(f.stateChange("e-run", "i-0aaaaaaaaaaaaaaa1", "running"), f.hardStop())
            .get(0);

    assertThat(o.status()).isEqualTo(Status.NO_ACTION);
    assertThat(o.instanceId()).isEqualTo("i-0aaaaaaaaaaaaaaa1");
    assertThat(o.kind()).isEqualTo("state-change");
    assertThat(o.region()).isEqualTo("us-east-1");
    assertThat(f.cluster.requests()).noneMatch(r -> r.method().equals("PATCH"));
  }

  @Test
  void shouldNotDrainAgainForAWarningSeenBeforeAnotherEventOfTheSameNode() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 2);

    var first = f.service.handle(f.spot("e-itn", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);
    var rebalance =
        f.service.handle(f.rebalance("e-rb", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);
    var again = f.service.handle(f.spot("e-itn", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(first.status()).isEqualTo(Status.DRAINED);
    assertThat(rebalance.status()).isEqualTo(Status.CORDONED);
    assertThat(again.status()).isEqualTo(Status.DUPLICATE);
    assertThat(again.message()).contains("already handled");
  }

  @Test
  void shouldRememberABoundedNumberOfEventsPerNode() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 0);
    for (int i = 0; i <= DrainMarker.REMEMBERED + 1; i++) {
      f.service.handle(f.rebalance("e-" + i, "i-0aaaaaaaaaaaaaaa1"), f.hardStop());
    }

    var marker =
        DrainMarker.read(f.cluster.node("gpu-a").orElseThrow().getMetadata().getAnnotations())
            .orElseThrow();
    var oldest = f.service.handle(f.rebalance("e-0", "i-0aaaaaaaaaaaaaaa1"), f.hardStop());
    var recent = f.service.handle(f.rebalance("e-5", "i-0aaaaaaaaaaaaaaa1"), f.hardStop());

    assertThat(marker.recent()).hasSize(DrainMarker.REMEMBERED);
    assertThat(oldest.get(0).status()).isEqualTo(Status.CORDONED);
    assertThat(recent.get(0).status()).isEqualTo(Status.DUPLICATE);
  }

  @Test
  void shouldDrainEveryInstanceAnAwsHealthEventNames() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 3);
    f.nodeWithPods("gpu-b", "i-0bbbbbbbbbbbbbbb2", 2);

    var hardStop = f.hardStop();
    var outcomes =
        f.service.handle(
            f.health(
                "h-1",
                f.time.now().plus(java.time.Duration.ofDays(7)),
                "i-0aaaaaaaaaaaaaaa1",
                "i-0bbbbbbbbbbbbbbb2"),
            hardStop);

    assertThat(outcomes).extracting(DrainOutcome::node).containsExactlyInAnyOrder("gpu-a", "gpu-b");
    assertThat(outcomes).allSatisfy(o -> assertThat(o.status()).isEqualTo(Status.DRAINED));
    // a retirement a week away: the deadline is the function's own time limit
    assertThat(outcomes).allSatisfy(o -> assertThat(o.deadline()).isEqualTo(hardStop));
  }

  @Test
  void shouldCapAGracePeriodLongerThanTheTimeLeft() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 0);
    f.cluster.create(
        SimCluster.runningPod(
            "train", "ckpt-0", "gpu-a", "ReplicaSet", "ckpt", Map.of("app", "ckpt"), 300, 8));

    var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.gracePeriodCapped())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.pod()).isEqualTo("train/ckpt-0");
              assertThat(r.gracePeriodRequested()).isEqualTo(300);
              assertThat(r.gracePeriodGranted()).isBetween(100L, 110L);
            });
  }

  @Test
  void shouldEvictCriticalPodsAfterTheOthersAreGone() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 4);
    var critical =
        new io.fabric8.kubernetes.api.model.PodBuilder(
                SimCluster.runningPod(
                    "kube-system",
                    "coredns-x",
                    "gpu-a",
                    "ReplicaSet",
                    "coredns",
                    Map.of("k8s-app", "dns"),
                    30,
                    0))
            .editSpec()
            .withPriorityClassName("system-cluster-critical")
            .endSpec()
            .build();
    f.cluster.create(critical);

    f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop());

    var evictions =
        f.cluster.requests().stream().filter(r -> r.path().contains("/eviction")).toList();
    assertThat(evictions).hasSize(5);
    assertThat(evictions.get(4).path()).contains("coredns-x");
  }

  @Test
  void shouldForceDeleteWhatIsLeftAtTheDeadlineWhenEnabled() {
    var s = DrainSettings.defaults("sim-cluster");
    f.use(
        new DrainSettings(
            s.clusterName(), s.actions(), s.deadlineMargin(), true, true, s.taintKey(), true, 64));
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);
    f.cluster.create(
        SimCluster.runningPod(
            "train", "llm-0", "gpu-a", "StatefulSet", "llm", Map.of("app", "llm"), 30, 8));
    f.cluster.create(SimCluster.pdb("train", "llm-pdb", Map.of("app", "llm"), "1", null, 1));

    var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.podsEvicted()).contains("train/llm-0");
    assertThat(f.cluster.pod("train", "llm-0")).isEmpty();
  }

  @Test
  void shouldRetryEvictionsThatFailWith5xxAndThenSucceed() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 3);
    f.cluster.fail(SimCluster.evictions(), 503, 4);

    var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(f.evictionRequests()).isEqualTo(7);
  }

  @Test
  void shouldSurfaceEvictionsThatKeepFailingPodByPod() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 2);
    f.cluster.fail(SimCluster.evictions(), 500, -1);

    var o = f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.PARTIAL);
    assertThat(o.podsNotEvicted())
        .hasSize(2)
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(PodReport.Status.FAILED);
              assertThat(r.reason()).contains("500");
              assertThat(r.attempts()).isEqualTo(Drainer.MAX_ERROR_RETRIES + 1);
            });
  }

  @Test
  void shouldThrowWhenTheApiServerFailsSoLambdaRetries() {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 2);
    f.cluster.fail(SimCluster.anyRequest(), 503, -1);

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> f.service.handle(f.spot("e-1", "i-0aaaaaaaaaaaaaaa1"), f.hardStop()))
        .isInstanceOf(DrainClusterPort.ClusterUnavailableException.class)
        .hasMessageContaining("503");
  }
}
