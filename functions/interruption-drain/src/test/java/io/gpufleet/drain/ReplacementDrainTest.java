package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.drain.aws.AutoScalingReplacementAdapter;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.ReplacementReport;
import io.gpufleet.sim.ApiRequest;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimAutoScalingGroups;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;

/**
 * Replacement before removal inside the drain, on the simulated API server and simulated Auto
 * Scaling groups (through the real SDK client), in virtual time: a launched instance's node joins
 * NotReady and turns Ready a few minutes later, as a GPU node does.
 */
class ReplacementDrainTest {
  static final String OLD = "i-0aaaaaaaaaaaaaaa1";
  static final String OTHER = "i-0aaaaaaaaaaaaaaa2";
  static final String OLD_NODE = "gpu-old";
  final DrainFixture f = new DrainFixture();
  AwsStubServer stub;
  AutoScalingClient client;
  SimAutoScalingGroups asg;
  final List<String> joined = new CopyOnWriteArrayList<>();
  final AtomicInteger launches = new AtomicInteger();
  Instant launchedAt;

  @BeforeEach
  void start() {
    stub = AwsStubServer.start();
    client = DrainFixture.autoScaling(stub, f.time);
    asg = new SimAutoScalingGroups(stub);
    f.service.replaceEarlyWith(new AutoScalingReplacementAdapter(client));
  }

  @AfterEach
  void stop() {
    client.close();
    stub.close();
    f.close();
  }

  /**
   * An opted-in group of two: the interrupted node (two inference replicas, a batch Job pod, a
   * DaemonSet pod) and another Ready node; a launched instance's node is Ready after {@code boot}.
   */
  void group(Duration boot) {
    asg.add("gpu-ng", 1, 4, false, Map.of(EarlyReplacement.OPT_IN, "true"), OLD, OTHER);
    f.nodeWithPods(OLD_NODE, OLD, 2);
    f.cluster.create(
        SimCluster.runningPod(
            "batch", "embed-0", OLD_NODE, "Job", "embed", Map.of("app", "embed"), 30, 1));
    f.cluster.create(
        SimCluster.gpuNode(
            "gpu-other", OTHER, "us-east-1a", "g6e.12xlarge", "spot", null, "ng", 4));
    asg.onLaunch(
        (g, id) -> {
          launchedAt = f.time.now();
          String name = "gpu-new-" + launches.incrementAndGet();
          joined.add(name);
          f.cluster.joinNode(
              SimCluster.gpuNode(name, id, "us-east-1a", "g6e.12xlarge", "spot", null, "ng", 4),
              boot);
        });
  }

  int index(List<ApiRequest> requests, java.util.function.Predicate<ApiRequest> p, boolean last) {
    int found = -1;
    for (int i = 0; i < requests.size(); i++) {
      if (p.test(requests.get(i))) {
        found = i;
        if (!last) {
          return i;
        }
      }
    }
    return found;
  }

  @Test
  void shouldEvictInferenceReplicasOnARebalanceOnlyOnceTheReplacementIsReady() {
    // Given an opted-in group whose new nodes take four minutes to be Ready
    group(Duration.ofMinutes(4));
    Instant received = f.time.now();

    // When a rebalance recommendation arrives for one of its instances (rebalance: taint, cordon)
    DrainOutcome o = f.service.handle(f.rebalance("e-rebal", OLD), f.hardStop()).get(0);

    // Then the group was raised by one, the node drained, and the group is back at its size
    assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
    ReplacementReport r = o.replacement();
    assertThat(r.action()).isEqualTo("RAISED");
    assertThat(r.group()).isEqualTo("gpu-ng");
    assertThat(r.desiredBefore()).isEqualTo(2);
    assertThat(r.desiredAfter()).isEqualTo(2);
    assertThat(asg.setDesiredCalls()).containsExactly("gpu-ng=3");
    var g = asg.group("gpu-ng");
    assertThat(g.desired).isEqualTo(2);
    assertThat(g.instances).doesNotContain(OLD).contains(OTHER).hasSize(2);
    assertThat(g.tags).containsOnlyKeys(EarlyReplacement.OPT_IN);

    // and the inference replicas waited for the replacement, the batch pod did not
    assertThat(r.inferenceHeld())
        .containsExactlyInAnyOrder("apps/gpu-old-web-0", "apps/gpu-old-web-1");
    assertThat(r.heldUntil()).isEqualTo("replacement Ready");
    assertThat(r.replacementReadyAt()).isAfterOrEqualTo(launchedAt.plus(Duration.ofMinutes(4)));
    assertThat(r.terminatedAt()).isAfterOrEqualTo(r.replacementReadyAt());
    assertThat(o.timings().evictionsIssuedMs())
        .isGreaterThanOrEqualTo(Duration.between(received, r.replacementReadyAt()).toMillis());
    var requests = f.cluster.requests();
    String newNode = "/api/v1/nodes/" + joined.get(0);
    int batchEvicted = index(requests, q -> q.path().contains("/pods/embed-0/eviction"), false);
    int lastReadyCheck =
        index(requests, q -> q.method().equals("GET") && q.path().equals(newNode), true);
    int firstReplicaEvicted = index(requests, q -> q.path().contains("-web-"), false);
    assertThat(batchEvicted).isNotNegative().isLessThan(lastReadyCheck);
    assertThat(firstReplicaEvicted).isGreaterThan(lastReadyCheck);
    assertThat(f.cluster.podsOn(OLD_NODE))
        .allSatisfy(p -> assertThat(p.getMetadata().getName()).endsWith("-dcgm"));
  }

  @Test
  void shouldRaiseOnceForARedeliveredSpotWarningAndEndAtTheOriginalSize() {
    // Given an opted-in group
    group(Duration.ofMinutes(4));

    // When one Spot warning is delivered twice
    var event = f.spot("e-spot", OLD);
    DrainOutcome first = f.service.handle(event, f.hardStop()).get(0);
    DrainOutcome again = f.service.handle(event, f.hardStop()).get(0);

    // Then the drain did not wait for the replacement, met its deadline, and the group was raised
    // by one, once, and ends at its original size without the old instance
    assertThat(first.status()).isEqualTo(Status.DRAINED);
    assertThat(first.deadlineMet()).isTrue();
    assertThat(first.replacement().action()).isEqualTo("RAISED");
    assertThat(first.replacement().inferenceHeld()).isNull();
    assertThat(first.replacement().terminatedAt()).isNotNull();
    assertThat(again.status()).isEqualTo(Status.DUPLICATE);
    assertThat(asg.setDesiredCalls()).containsExactly("gpu-ng=3");
    assertThat(asg.group("gpu-ng").desired).isEqualTo(2);
    assertThat(asg.group("gpu-ng").instances).doesNotContain(OLD);
  }

  @Test
  void shouldRaiseOnceForARebalanceThenItsSpotWarning() {
    // Given a group whose replacement is Ready in two minutes, and a rebalance drain done
    group(Duration.ofMinutes(2));
    DrainOutcome rebalance = f.service.handle(f.rebalance("e-r", OLD), f.hardStop()).get(0);

    // When the Spot warning for the same instance follows
    DrainOutcome spot = f.service.handle(f.spot("e-s", OLD), f.hardStop()).get(0);

    // Then the group was raised once and is back at its size; the warning found the old instance
    // already terminated
    assertThat(rebalance.replacement().terminatedAt()).isNotNull();
    assertThat(asg.setDesiredCalls()).containsExactly("gpu-ng=3");
    assertThat(asg.group("gpu-ng").desired).isEqualTo(2);
    assertThat(spot.replacement() == null || spot.replacement().terminatedAt() == null).isTrue();
  }

  @Test
  void shouldEvictTheReplicasAtTheLatestSafeMomentWhenTheReplacementNeverComes() {
    // Given an opted-in group whose new node never gets Ready within the function's time
    group(Duration.ofHours(2));
    Instant hardStop = f.hardStop();

    // When a rebalance recommendation arrives
    DrainOutcome o = f.service.handle(f.rebalance("e-slow", OLD), hardStop).get(0);

    // Then the replicas were evicted in time to be gone by the deadline, and the old instance was
    // terminated only once its pods were gone
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.deadlineMet()).isTrue();
    assertThat(o.replacement().heldUntil()).startsWith("latest safe moment");
    assertThat(o.replacement().replacementReadyAt()).isNull();
    assertThat(o.receivedAt().plusMillis(o.timings().allGoneMs())).isBeforeOrEqualTo(hardStop);
    assertThat(asg.group("gpu-ng").desired).isEqualTo(2);
  }

  /** The drain with a continuation queue that keeps what it is given. */
  final List<String> continued = new CopyOnWriteArrayList<>();

  DrainService withContinuations() {
    var service =
        io.gpufleet.drain.wiring.DrainWiring.service(
            f.client,
            io.gpufleet.drain.wiring.DrainWiring.Parts.of(f.settings)
                .timedBy(f.time)
                .withLifecycle(null, (body, delay) -> continued.add(body)));
    return service.replaceEarlyWith(new AutoScalingReplacementAdapter(client));
  }

  /** A Lambda-like time limit from now: 170 s. */
  Instant invocationLimit() {
    return f.time.now().plusSeconds(170);
  }

  @Test
  void shouldHoldTheReplicasOverFollowUpInvocationsUntilASlowReplacementIsReady() {
    // Given an opted-in group whose new node takes six minutes to be Ready, and a drain with a
    // continuation queue and Lambda's three-minute limit
    group(Duration.ofMinutes(6));
    var service = withContinuations();

    // When the rebalance recommendation arrives, and each follow-up the drain sends itself
    var outcomes = new java.util.ArrayList<DrainOutcome>();
    outcomes.add(service.handle(f.rebalance("e-slowboot", OLD), invocationLimit()).get(0));
    while (outcomes.get(outcomes.size() - 1).status() == Status.DRAINING && outcomes.size() < 10) {
      String body = continued.get(continued.size() - 1);
      outcomes.add(service.handle(DrainFixture.decode(body), invocationLimit()).get(0));
    }

    // Then the first rounds kept the replicas on the node, and the last evicted them once the
    // replacement was Ready
    var last = outcomes.get(outcomes.size() - 1);
    assertThat(outcomes).hasSizeGreaterThan(1);
    assertThat(outcomes.subList(0, outcomes.size() - 1))
        .allSatisfy(
            o -> {
              assertThat(o.status()).isEqualTo(Status.DRAINING);
              assertThat(o.replacement().heldUntil()).startsWith("continued");
              assertThat(o.replacement().terminatedAt()).isNull();
            });
    assertThat(continued.get(0)).contains("\"id\":\"e-slowboot#hold-1\"");
    assertThat(last.status()).as(last.message()).isEqualTo(Status.DRAINED);
    assertThat(last.replacement().heldUntil()).isEqualTo("replacement Ready");
    assertThat(last.replacement().replacementReadyAt())
        .isAfterOrEqualTo(launchedAt.plus(Duration.ofMinutes(6)));
    assertThat(last.podsEvicted()).contains("apps/gpu-old-web-0", "apps/gpu-old-web-1");
    assertThat(last.replacement().terminatedAt()).isNotNull();
    // and the group was raised once, and is back at its size
    assertThat(asg.setDesiredCalls()).containsExactly("gpu-ng=3");
    assertThat(asg.group("gpu-ng").desired).isEqualTo(2);
  }

  @Test
  void shouldStopHoldingOverInvocationsFifteenMinutesAfterTheRecommendation() {
    // Given a replacement that never gets Ready
    group(Duration.ofHours(2));
    var service = withContinuations();
    var event = f.rebalance("e-never", OLD);
    Instant sent = f.time.now();

    var outcomes = new java.util.ArrayList<DrainOutcome>();
    outcomes.add(service.handle(event, invocationLimit()).get(0));
    while (outcomes.get(outcomes.size() - 1).status() == Status.DRAINING && outcomes.size() < 20) {
      String body = continued.get(continued.size() - 1);
      outcomes.add(service.handle(DrainFixture.decode(body), invocationLimit()).get(0));
    }

    // Then the last round evicted the replicas at its latest safe moment, within the function's
    // limit, no later than about fifteen minutes after the recommendation
    var last = outcomes.get(outcomes.size() - 1);
    assertThat(last.status()).isEqualTo(Status.DRAINED);
    assertThat(last.deadlineMet()).isTrue();
    assertThat(last.replacement().heldUntil()).startsWith("latest safe moment");
    assertThat(f.time.now()).isBefore(sent.plus(ReplacementRun.MAX_HOLD).plusSeconds(170));
    assertThat(outcomes).hasSizeBetween(5, 8);
  }

  @Test
  void shouldEvictTheReplicasNowWhenTheFollowUpCannotBeSent() {
    // Given a slow replacement and a continuation queue that refuses the message
    group(Duration.ofMinutes(6));
    var service =
        io.gpufleet.drain.wiring.DrainWiring.service(
                f.client,
                io.gpufleet.drain.wiring.DrainWiring.Parts.of(f.settings)
                    .timedBy(f.time)
                    .withLifecycle(
                        null,
                        (body, delay) -> {
                          throw new IllegalStateException("SQS: AccessDenied");
                        }))
            .replaceEarlyWith(new AutoScalingReplacementAdapter(client));

    DrainOutcome o = service.handle(f.rebalance("e-nosqs", OLD), invocationLimit()).get(0);

    // Then nothing is left waiting for a message that never comes: the replicas went in time
    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.deadlineMet()).isTrue();
    assertThat(o.replacement().heldUntil()).startsWith("latest safe moment");
    assertThat(o.podsEvicted()).contains("apps/gpu-old-web-0", "apps/gpu-old-web-1");
  }

  @Test
  void shouldSayWhenTheGroupIsAtItsMaxAndDrainAsBefore() {
    asg.add("full", 1, 2, false, Map.of(EarlyReplacement.OPT_IN, "true"), OLD, OTHER);
    f.nodeWithPods(OLD_NODE, OLD, 2);

    DrainOutcome o = f.service.handle(f.spot("e-full", OLD), f.hardStop()).get(0);

    assertThat(o.status()).isEqualTo(Status.DRAINED);
    assertThat(o.replacement().action()).isEqualTo("AT_MAX");
    assertThat(o.replacement().note()).contains("MaxSize 2");
    assertThat(o.replacement().terminatedAt()).isNull();
    assertThat(asg.group("full").instances).contains(OLD);
    assertThat(asg.setDesiredCalls()).isEmpty();
  }

  @Test
  void shouldLeaveGroupsThatDidNotOptInOutOfTheOutcome() {
    asg.add("plain", 1, 4, false, Map.of(), OLD, OTHER);
    f.nodeWithPods(OLD_NODE, OLD, 1);

    DrainOutcome o = f.service.handle(f.rebalance("e-plain", OLD), f.hardStop()).get(0);

    // a rebalance of a group that did not opt in only taints and cordons, as before
    assertThat(o.status()).isEqualTo(Status.CORDONED);
    assertThat(o.replacement()).isNull();
    assertThat(asg.setDesiredCalls()).isEmpty();
    assertThat(f.cluster.podsOn(OLD_NODE)).hasSize(2);
  }
}
