package io.gpufleet.drain;

import static io.gpufleet.drain.FakeCluster.evicted;
import static io.gpufleet.drain.FakeCluster.forbidden;
import static io.gpufleet.drain.FakeCluster.multiplePdbs;
import static io.gpufleet.drain.FakeCluster.notFound;
import static io.gpufleet.drain.FakeCluster.serviceUnavailable;
import static io.gpufleet.drain.FakeCluster.tooManyRequests;
import static io.gpufleet.drain.TestPods.critical;
import static io.gpufleet.drain.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.FakeCluster.Evict;
import io.gpufleet.drain.FakeCluster.ForceDelete;
import io.gpufleet.drain.FakeCluster.PodsOnNode;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.drain.model.PodReport;
import io.gpufleet.drain.model.PodReport.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The eviction engine over a behavioural fake cluster and fake time (deadlines in milliseconds).
 */
class DrainerTest {
  static final String NODE = "gpu-a";
  static final Instant START = Instant.parse("2026-11-29T12:00:00Z");
  static final Instant DEADLINE = START.plusSeconds(110);

  final VirtualTime time = new VirtualTime(START);
  final FakeCluster cluster = new FakeCluster(time.clock());

  DrainSettings settings = DrainSettings.defaults("test-cluster");

  Drainer.Result drain(PodInfo... pods) throws InterruptedException {
    cluster.givenNode(TestPods.node(NODE, "i-0aaaaaaaaaaaaaaa1"), pods);
    var selection = new DrainPolicy(settings).select(List.of(pods));
    cluster.answeredTogether(selection.first().stream().map(PodInfo::key).toList());
    cluster.answeredTogether(selection.critical().stream().map(PodInfo::key).toList());
    return new Drainer(cluster, time.clock(), time.sleeper(), settings)
        .run(NODE, selection, DEADLINE);
  }

  static Map<String, PodReport> byPod(Drainer.Result result) {
    return result.reports().stream().collect(Collectors.toMap(PodReport::pod, Function.identity()));
  }

  void useForceDelete() {
    var d = DrainSettings.defaults("test-cluster");
    settings =
        new DrainSettings(
            d.clusterName(),
            d.actions(),
            d.deadlineMargin(),
            d.skipDaemonSets(),
            true,
            d.taintKey(),
            d.excludeFromLoadBalancers(),
            d.evictionConcurrency());
  }

  @Test
  void shouldReportExactlyThePodsABudgetKeepsRefusingAsBlockedAtTheDeadline() throws Exception {
    // Given two pods a budget refuses forever and two it lets go
    cluster.onEvict("apps/web-0").answer(evicted());
    cluster.onEvict("apps/web-1").answer(evicted());
    cluster.onEvict("train/llm-0").forever(tooManyRequests());
    cluster.onEvict("train/llm-1").forever(tooManyRequests());

    // When
    var result =
        drain(pod("apps/web-0"), pod("train/llm-0"), pod("apps/web-1"), pod("train/llm-1"));

    // Then
    var reports = byPod(result);
    assertThat(reports).hasSize(4);
    assertThat(reports.values())
        .filteredOn(r -> r.status() == Status.BLOCKED)
        .extracting(PodReport::pod)
        .containsExactlyInAnyOrder("train/llm-0", "train/llm-1");
    assertThat(reports.values())
        .filteredOn(r -> r.status() == Status.BLOCKED)
        .allSatisfy(
            r -> {
              assertThat(r.attempts()).isGreaterThan(1);
              assertThat(r.reason()).startsWith("429");
            });
    assertThat(reports.get("apps/web-0").status()).isEqualTo(Status.EVICTED);
    assertThat(reports.get("apps/web-1").status()).isEqualTo(Status.EVICTED);
    assertThat(reports.get("apps/web-0").attempts()).isEqualTo(1);
    assertThat(time.now()).isAfterOrEqualTo(DEADLINE);
    assertThat(cluster.evictionsOf("train/llm-0")).hasSize(reports.get("train/llm-0").attempts());
    assertThat(cluster.podsLeftOn(NODE)).containsExactlyInAnyOrder("train/llm-0", "train/llm-1");
  }

  static Stream<Arguments> singlePodScripts() {
    return Stream.of(
        Arguments.of(
            "429 twice then 201",
            (Consumer<FakeCluster.EvictionScript>)
                s -> s.answer(tooManyRequests(), 2).answer(evicted()),
            Status.EVICTED,
            3),
        Arguments.of(
            "503 MAX_ERROR_RETRIES times then 201",
            (Consumer<FakeCluster.EvictionScript>)
                s -> s.answer(serviceUnavailable(), Drainer.MAX_ERROR_RETRIES).answer(evicted()),
            Status.EVICTED,
            Drainer.MAX_ERROR_RETRIES + 1),
        Arguments.of(
            "503 forever",
            (Consumer<FakeCluster.EvictionScript>) s -> s.forever(serviceUnavailable()),
            Status.FAILED,
            Drainer.MAX_ERROR_RETRIES + 1),
        Arguments.of(
            "404",
            (Consumer<FakeCluster.EvictionScript>) s -> s.answer(notFound()),
            Status.GONE,
            1),
        Arguments.of(
            "500 more than one PodDisruptionBudget",
            (Consumer<FakeCluster.EvictionScript>) s -> s.answer(multiplePdbs()),
            Status.CONFIG_ERROR,
            1),
        Arguments.of(
            "403 (not retryable)",
            (Consumer<FakeCluster.EvictionScript>) s -> s.answer(forbidden()),
            Status.FAILED,
            1),
        Arguments.of(
            "429, 503, 429 then 201",
            (Consumer<FakeCluster.EvictionScript>)
                s ->
                    s.answer(tooManyRequests())
                        .answer(serviceUnavailable())
                        .answer(tooManyRequests())
                        .answer(evicted()),
            Status.EVICTED,
            4));
  }

  @ParameterizedTest(name = "{0} -> {2} after {3} attempt(s)")
  @MethodSource("singlePodScripts")
  void shouldEndEachPodInTheStatusItsEvictionAnswersLeadTo(
      String script,
      Consumer<FakeCluster.EvictionScript> answers,
      Status expected,
      int expectedAttempts)
      throws Exception {
    // Given
    answers.accept(cluster.onEvict("apps/api-0"));

    // When
    var result = drain(pod("apps/api-0"));

    // Then
    var report = byPod(result).get("apps/api-0");
    assertThat(report.status()).isEqualTo(expected);
    assertThat(report.attempts()).isEqualTo(expectedAttempts);
    assertThat(cluster.evictionsOf("apps/api-0")).hasSize(expectedAttempts);
    assertThat(report.madeIt()).isEqualTo(expected == Status.EVICTED || expected == Status.GONE);
    // every pod is resolved well before the deadline: no retry loop runs on
    assertThat(time.now()).isBefore(DEADLINE);
  }

  @Test
  void shouldIssueTheFirstEvictionOfEveryPodAtOnce() throws Exception {
    // Given twenty pods, each refused once before it goes
    var pods = new PodInfo[20];
    for (int i = 0; i < pods.length; i++) {
      pods[i] = pod("apps/web-" + i);
      cluster.onEvict(pods[i].key()).answer(tooManyRequests()).answer(evicted());
    }

    // When (the fake holds every first answer until all twenty were asked: a sequential drainer
    // would fail here)
    var result = drain(pods);

    // Then
    assertThat(result.allIssuedAt()).isEqualTo(START);
    assertThat(result.reports())
        .hasSize(20)
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.EVICTED);
              assertThat(r.attempts()).isEqualTo(2);
            });
    for (PodInfo p : pods) {
      assertThat(cluster.evictionsOf(p.key()).get(0).at()).isEqualTo(START);
    }
  }

  @Test
  void shouldNameTheApiErrorOfAPodThatKeepsFailing() throws Exception {
    cluster.onEvict("apps/api-0").forever(serviceUnavailable());

    var report = byPod(drain(pod("apps/api-0"))).get("apps/api-0");

    assertThat(report.reason()).contains("503").contains("unable to handle");
  }

  @Test
  void shouldSendEveryEvictionWithThePodsUidAndItsGracePeriodCappedToTheTimeLeft()
      throws Exception {
    // Given a pod that asks for 300 s with 110 s left, and one that asks for 20 s
    var checkpointing = TestPods.withGrace(pod("batch/ckpt-0"), 300L);
    var quick = TestPods.withGrace(pod("apps/web-0"), 20L);
    cluster.onEvict("batch/ckpt-0").answer(evicted());
    cluster.onEvict("apps/web-0").answer(evicted());

    // When
    var reports = byPod(drain(checkpointing, quick));

    // Then the request shapes
    assertThat(cluster.evictionsOf("batch/ckpt-0"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.uid()).isEqualTo(checkpointing.uid());
              assertThat(e.gracePeriodSeconds()).isEqualTo(110);
            });
    assertThat(cluster.evictionsOf("apps/web-0"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.uid()).isEqualTo(quick.uid());
              assertThat(e.gracePeriodSeconds()).isEqualTo(20);
            });
    // and the reports
    assertThat(reports.get("batch/ckpt-0").gracePeriodRequested()).isEqualTo(300);
    assertThat(reports.get("batch/ckpt-0").gracePeriodGranted()).isEqualTo(110);
    assertThat(reports.get("batch/ckpt-0").graceCapped()).isTrue();
    assertThat(reports.get("apps/web-0").graceCapped()).isFalse();
  }

  @Test
  void shouldEvictCriticalPodsOnlyAfterEveryOtherEvictionWasAnsweredAndThosePodsWereGone()
      throws Exception {
    // Given two ordinary pods (one refused twice first) and a critical one
    cluster.onEvict("apps/web-0").answer(evicted());
    cluster.onEvict("apps/web-1").answer(tooManyRequests(), 2).answer(evicted());
    cluster.onEvict("kube-system/coredns-0").answer(evicted());

    // When
    var reports =
        byPod(drain(critical("kube-system/coredns-0"), pod("apps/web-0"), pod("apps/web-1")));

    // Then every non-critical eviction answer precedes the first critical eviction
    var calls = cluster.calls();
    int lastOrdinary = -1;
    int firstCritical = -1;
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i) instanceof Evict e) {
        if (e.pod().startsWith("apps/")) {
          lastOrdinary = i;
        } else if (firstCritical < 0) {
          firstCritical = i;
        }
      }
    }
    assertThat(lastOrdinary).isNotNegative();
    assertThat(firstCritical).isGreaterThan(lastOrdinary);
    // and the node was listed in between (the first wave was seen gone)
    assertThat(calls.subList(lastOrdinary, firstCritical))
        .anySatisfy(c -> assertThat(c).isInstanceOf(PodsOnNode.class));
    assertThat(reports.values()).allSatisfy(r -> assertThat(r.status()).isEqualTo(Status.EVICTED));
    assertThat(reports.get("kube-system/coredns-0").critical()).isTrue();
  }

  @Test
  void shouldStartTheCriticalWaveAtTheCutoffWhenTheFirstWaveIsSlowToGo() throws Exception {
    // Given an ordinary pod that accepts eviction but never finishes terminating
    cluster.onEvict("apps/web-0").answer(evicted());
    cluster.lingerAfterEviction("apps/web-0");
    cluster.onEvict("kube-system/coredns-0").answer(evicted());

    // When
    var reports = byPod(drain(pod("apps/web-0"), critical("kube-system/coredns-0")));

    // Then the critical pod is evicted in the reserve before the deadline (at most 15 s)
    Evict criticalEviction = cluster.evictionsOf("kube-system/coredns-0").get(0);
    assertThat(criticalEviction.at())
        .isAfterOrEqualTo(DEADLINE.minusSeconds(15))
        .isBefore(DEADLINE);
    assertThat(criticalEviction.gracePeriodSeconds()).isBetween(14L, 15L);
    assertThat(reports.get("kube-system/coredns-0").status()).isEqualTo(Status.EVICTED);
    assertThat(reports.get("apps/web-0").status()).isEqualTo(Status.STILL_TERMINATING);
  }

  @Test
  void shouldEvictCriticalPodsBeforeTheDeadlineEvenWhenABudgetBlocksTheFirstWave()
      throws Exception {
    // Given an ordinary pod a budget refuses forever, and a critical pod
    cluster.onEvict("train/llm-0").forever(tooManyRequests());
    cluster.onEvict("kube-system/coredns-0").answer(evicted());

    // When
    var reports = byPod(drain(pod("train/llm-0"), critical("kube-system/coredns-0")));

    // Then the critical pod still gets its wave (and real grace) before the deadline
    Evict criticalEviction = cluster.evictionsOf("kube-system/coredns-0").get(0);
    assertThat(criticalEviction.at()).isBefore(DEADLINE);
    assertThat(criticalEviction.gracePeriodSeconds()).isGreaterThan(1);
    assertThat(reports.get("kube-system/coredns-0").status()).isEqualTo(Status.EVICTED);
    assertThat(reports.get("train/llm-0").status()).isEqualTo(Status.BLOCKED);
    // and the ordinary pod's retries all came before the critical wave
    assertThat(cluster.evictionsOf("train/llm-0"))
        .allSatisfy(e -> assertThat(e.at()).isBeforeOrEqualTo(criticalEviction.at()));
  }

  @Test
  void shouldForceDeleteEveryLeftoverJustBeforeTheDeadlineWhenEnabled() throws Exception {
    // Given force-delete on, a pod a budget refuses forever, one stuck terminating and one that
    // goes
    useForceDelete();
    var blocked = pod("train/llm-0");
    var stuck = pod("apps/web-0");
    cluster.onEvict("train/llm-0").forever(tooManyRequests());
    cluster.onEvict("apps/web-0").answer(evicted());
    cluster.lingerAfterEviction("apps/web-0");
    cluster.onEvict("apps/web-1").answer(evicted());

    // When
    var reports = byPod(drain(blocked, stuck, pod("apps/web-1")));

    // Then
    assertThat(reports.get("train/llm-0").status()).isEqualTo(Status.FORCE_DELETED);
    assertThat(reports.get("train/llm-0").reason())
        .startsWith("force-deleted at the deadline")
        .contains("429");
    assertThat(reports.get("apps/web-0").status()).isEqualTo(Status.FORCE_DELETED);
    assertThat(reports.get("apps/web-1").status()).isEqualTo(Status.EVICTED);
    var deletes = cluster.calls(ForceDelete.class);
    assertThat(deletes)
        .extracting(ForceDelete::pod, ForceDelete::uid)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("train/llm-0", blocked.uid()),
            org.assertj.core.groups.Tuple.tuple("apps/web-0", stuck.uid()));
    Instant evictUntil = DEADLINE.minus(Drainer.FORCE_RESERVE);
    assertThat(deletes)
        .allSatisfy(d -> assertThat(d.at()).isBetween(evictUntil, DEADLINE.minusNanos(1)));
    assertThat(cluster.calls(Evict.class)).allSatisfy(e -> assertThat(e.at()).isBefore(evictUntil));
    assertThat(cluster.podsLeftOn(NODE)).isEmpty();
  }

  @Test
  void shouldNeverSleepPastTheDeadlineWhileBackingOff() throws Exception {
    // Given a single pod refused forever
    cluster.onEvict("train/llm-0").forever(tooManyRequests());

    // When
    drain(pod("train/llm-0"));

    // Then the waiting fits the window exactly, and backoff grows up to its cap
    var sleeps = time.sleeps();
    assertThat(time.totalSlept()).isLessThanOrEqualTo(Duration.between(START, DEADLINE));
    assertThat(time.now()).isEqualTo(DEADLINE);
    assertThat(sleeps).allSatisfy(s -> assertThat(s).isLessThanOrEqualTo(Drainer.BACKOFF_MAX));
    assertThat(sleeps.get(0)).isLessThanOrEqualTo(Drainer.BACKOFF_BASE);
    assertThat(sleeps)
        .anySatisfy(s -> assertThat(s).isGreaterThanOrEqualTo(Drainer.BACKOFF_MAX.dividedBy(2)));
    assertThat(cluster.evictionsOf("train/llm-0"))
        .allSatisfy(e -> assertThat(e.at()).isBefore(DEADLINE))
        .hasSizeGreaterThan(30);
  }

  @Test
  void shouldTryOnceWithTheMinimumGraceWhenTheDeadlineHasAlreadyPassed() throws Exception {
    // Given the deadline is already behind
    time.advance(Duration.ofSeconds(200));
    cluster.onEvict("apps/web-0").forever(tooManyRequests());

    // When
    var report = byPod(drain(pod("apps/web-0"))).get("apps/web-0");

    // Then
    assertThat(report.status()).isEqualTo(Status.BLOCKED);
    assertThat(report.attempts()).isEqualTo(1);
    assertThat(cluster.evictionsOf("apps/web-0"))
        .singleElement()
        .satisfies(e -> assertThat(e.gracePeriodSeconds()).isEqualTo(1));
    assertThat(time.sleeps()).isEmpty();
  }

  @Test
  void shouldWaitForAlreadyTerminatingPodsWithoutEvictingThem() throws Exception {
    // Given one terminating pod that stays, one that is already gone, and an ordinary pod
    var stays = TestPods.terminating(pod("apps/old-0"));
    var gone = TestPods.terminating(pod("apps/old-1"));
    cluster.givenNode(TestPods.node(NODE, "i-0aaaaaaaaaaaaaaa1"), stays, pod("apps/web-0"));
    cluster.onEvict("apps/web-0").answer(evicted());
    var selection = new DrainPolicy(settings).select(List.of(stays, gone, pod("apps/web-0")));

    // When
    var result =
        new Drainer(cluster, time.clock(), time.sleeper(), settings).run(NODE, selection, DEADLINE);

    // Then
    var reports = byPod(result);
    assertThat(reports.get("apps/old-0").status()).isEqualTo(Status.STILL_TERMINATING);
    assertThat(reports.get("apps/old-1").status()).isEqualTo(Status.GONE);
    assertThat(reports.get("apps/web-0").status()).isEqualTo(Status.EVICTED);
    assertThat(cluster.calls(Evict.class)).extracting(Evict::pod).containsExactly("apps/web-0");
    assertThat(result.allGoneAt()).isNull();
  }

  @Test
  void shouldReportWhenEvictionsWereIssuedAndWhenEveryPodWasGone() throws Exception {
    // Given one pod refused once (so its first answer is the latest) and one that goes at once
    cluster.onEvict("apps/web-0").answer(evicted());
    cluster.onEvict("apps/web-1").answer(tooManyRequests()).answer(evicted());

    // When
    var result = drain(pod("apps/web-0"), pod("apps/web-1"));

    // Then
    assertThat(result.allIssuedAt()).isEqualTo(START);
    assertThat(result.allGoneAt()).isNotNull().isAfter(START).isBefore(DEADLINE);
    assertThat(result.reports()).allSatisfy(r -> assertThat(r.madeIt()).isTrue());
  }
}
