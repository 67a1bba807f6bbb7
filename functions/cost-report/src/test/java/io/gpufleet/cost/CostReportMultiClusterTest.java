package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static io.gpufleet.cost.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.sim.Recorders;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One stack, several clusters (CLUSTER_NAMES): one run reports each under its own key. */
class CostReportMultiClusterTest {
  static final Instant DAY1 = Instant.parse("2026-11-29T00:00:00Z");
  static final Instant RUN = Instant.parse("2026-11-30T00:10:00Z");

  final java.time.Clock clock = new io.gpufleet.core.time.VirtualTime(RUN).clock();
  final Fixtures.FakeCluster prod = new Fixtures.FakeCluster();
  final Fixtures.FakeCluster train = new Fixtures.FakeCluster();
  final Map<String, List<Ec2Instance>> ec2ByCluster =
      Map.of("prod", new CopyOnWriteArrayList<>(), "train", new CopyOnWriteArrayList<>());
  final List<String> ec2AskedFor = new CopyOnWriteArrayList<>();
  final Fixtures.FakeSpot spot = new Fixtures.FakeSpot();
  final AtomicInteger commitmentReads = new AtomicInteger();
  final List<String> utilisationAskedFor = new CopyOnWriteArrayList<>();
  final MemoryBlobStore store = new MemoryBlobStore();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();

  /** A cluster whose API server refuses the function's identity (no access entry yet). */
  static final CostClusterPort FORBIDDEN =
      new CostClusterPort() {
        @Override
        public List<ClusterNode> nodes() {
          throw new IllegalStateException(
              "Failure executing: GET at: https://train.eks/api/v1/nodes. Message: Forbidden");
        }

        @Override
        public List<ClusterPod> pods() {
          return nodes().isEmpty() ? List.of() : List.of();
        }
      };

  CostReportService service(CostClusterPort prodReader, CostClusterPort trainReader) {
    return new CostReportService(
        CostSettings.defaults("prod"),
        Fixtures.REGION,
        List.of(target("prod", prodReader), target("train", trainReader)),
        (cluster, ids) -> {
          ec2AskedFor.add(cluster);
          return List.copyOf(ec2ByCluster.get(cluster));
        },
        spot,
        new StaticPrices(),
        store,
        CostReporting.reporter(metrics, publisher, notifier),
        clock,
        w -> {
          commitmentReads.incrementAndGet();
          return Commitments.none("test: none");
        });
  }

  CostReportService.ClusterTarget target(String name, CostClusterPort reader) {
    return new CostReportService.ClusterTarget(
        name,
        reader,
        (w, gpuNodes) -> {
          utilisationAskedFor.add(name + ":" + gpuNodes.size());
          return io.gpufleet.cost.model.Utilisation.none("test: none");
        });
  }

  void fleets() {
    prod.nodes.add(gpuNode("p1", "i-0prod", "p5.48xlarge", 8, "on-demand", DAY1));
    prod.pods.add(pod("ml", "serve-0", "p1", 8, DAY1));
    ec2ByCluster.get("prod").add(instance("i-0prod", "p5.48xlarge", Lifecycle.ON_DEMAND, DAY1));
    train.nodes.add(gpuNode("t1", "i-0train", "g6e.12xlarge", 4, "spot", DAY1));
    train.pods.add(pod("research", "train-0", "t1", 4, DAY1));
    ec2ByCluster.get("train").add(instance("i-0train", "g6e.12xlarge", Lifecycle.SPOT, DAY1));
    spot.price("us-east-1a", "g6e.12xlarge", DAY1.minusSeconds(3600), "3.20");
  }

  CostOutcome run(CostReportService s) {
    return s.run(new CostReportService.Request("last-day", null, false), m -> {});
  }

  @Test
  void shouldReportEveryListedClusterUnderItsOwnKeyWithTheSharedWorkDoneOnce() {
    fleets();

    var answer = run(service(prod, train));

    // the answer keeps the single-cluster shape for the first cluster, plus every cluster's
    assertThat(answer.status()).isEqualTo(CostOutcome.Status.REPORTED);
    assertThat(answer.cluster()).isEqualTo("prod");
    assertThat(answer.clusters())
        .extracting(CostOutcome::cluster, CostOutcome::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("prod", CostOutcome.Status.REPORTED),
            org.assertj.core.groups.Tuple.tuple("train", CostOutcome.Status.REPORTED));
    assertThat(answer.clusters().get(0).clusters()).isNull();
    String json = answer.outputs().get("json");
    assertThat(json).startsWith("memory:reports/prod/last-day_").endsWith("/cost.json");
    assertThat(answer.clusters().get(1).outputs().get("json"))
        .isEqualTo(json.replace("reports/prod/", "reports/train/"));
    assertThat(store.get("inventory/prod/snapshot.json")).isPresent();
    assertThat(store.get("inventory/train/snapshot.json")).isPresent();
    // each report holds its own cluster's nodes only
    assertThat(report(answer).nodes())
        .extracting(CostReport.NodeCost::id)
        .containsExactly("i-0prod");
    assertThat(report(answer.clusters().get(1)).nodes())
        .extracting(CostReport.NodeCost::id)
        .containsExactly("i-0train");
    assertThat(report(answer.clusters().get(1)).header().cluster()).isEqualTo("train");
    // EC2 per cluster (its tag), utilisation per cluster; Spot history and commitments once
    assertThat(ec2AskedFor).containsExactlyInAnyOrder("prod", "train");
    assertThat(utilisationAskedFor).containsExactlyInAnyOrder("prod:1", "train:1");
    assertThat(spot.asked).containsExactly(java.util.Set.of("g6e.12xlarge"));
    assertThat(commitmentReads).hasValue(1);
    // one outcome event and one notification per cluster
    assertThat(publisher.published).hasSize(2);
    assertThat(notifier.sent).extracting(n -> n.subject()).anyMatch(s -> s.contains("train"));
    assertThat(metrics.total("ReportsWritten")).isEqualTo(2.0);
  }

  @Test
  void shouldStillWriteTheOtherReportsWhenOneClusterIsForbidden() {
    fleets();

    var answer = run(service(prod, FORBIDDEN));

    assertThat(answer.status()).isEqualTo(CostOutcome.Status.REPORTED);
    var failed = answer.clusters().get(1);
    assertThat(failed.cluster()).isEqualTo("train");
    assertThat(failed.status()).isEqualTo(CostOutcome.Status.FAILED);
    assertThat(failed.message()).contains("train").contains("Forbidden");
    assertThat(failed.window()).isEqualTo(answer.window());
    assertThat(failed.outputs()).isEmpty();
    assertThat(report(answer).nodes())
        .extracting(CostReport.NodeCost::id)
        .containsExactly("i-0prod");
    assertThat(keysUnder("reports/train/")).isEmpty();
    assertThat(store.get("inventory/train/snapshot.json")).isEmpty();
    assertThat(metrics.total("ClusterReportsFailed")).isEqualTo(1.0);
    assertThat(metrics.total("ReportsWritten")).isEqualTo(1.0);
    assertThat(publisher.published)
        .extracting(p -> ((CostOutcome) p.detail()).status())
        .containsExactlyInAnyOrder(CostOutcome.Status.REPORTED, CostOutcome.Status.FAILED);
    assertThat(notifier.sent)
        .filteredOn(n -> n.subject().contains("FAILED"))
        .singleElement()
        .satisfies(n -> assertThat(n.message()).contains("Forbidden"));
  }

  @Test
  void shouldAnswerTheFailedFirstClusterAndTheOthersReported() {
    fleets();

    var answer = run(service(FORBIDDEN, train));

    assertThat(answer.cluster()).isEqualTo("prod");
    assertThat(answer.status()).isEqualTo(CostOutcome.Status.FAILED);
    assertThat(answer.clusters().get(1).status()).isEqualTo(CostOutcome.Status.REPORTED);
    assertThat(report(answer.clusters().get(1)).nodes())
        .extracting(CostReport.NodeCost::id)
        .containsExactly("i-0train");
  }

  @Test
  void shouldFailTheRunWhenNoClusterCanBeRead() {
    assertThatThrownBy(() -> run(service(FORBIDDEN, FORBIDDEN))).hasMessageContaining("Forbidden");
    assertThat(keysUnder("reports/")).isEmpty();
  }

  @Test
  void shouldSnapshotEveryClusterAndReportTheOneThatFailed() {
    fleets();

    var answer =
        service(prod, FORBIDDEN).run(new CostReportService.Request(null, null, true), m -> {});

    assertThat(answer.status()).isEqualTo(CostOutcome.Status.SNAPSHOT);
    assertThat(answer.clusters())
        .extracting(CostOutcome::status)
        .containsExactly(CostOutcome.Status.SNAPSHOT, CostOutcome.Status.FAILED);
    assertThat(store.get("inventory/prod/snapshot.json")).isPresent();
  }

  @Test
  void shouldAnswerOneClusterWithoutAClustersField() throws Exception {
    fleets();
    var single =
        new CostReportService(
            CostSettings.defaults("prod"),
            Fixtures.REGION,
            prod,
            (cluster, ids) -> List.copyOf(ec2ByCluster.get(cluster)),
            spot,
            new StaticPrices(),
            store,
            CostReporting.reporter(metrics, publisher, notifier),
            clock);

    var answer = run(single);

    assertThat(answer.clusters()).isNull();
    assertThat(Json.MAPPER.readTree(Json.MAPPER.writeValueAsBytes(answer)).has("clusters"))
        .isFalse();
  }

  @Test
  void shouldListClusterNameThenClusterNamesWithoutRepeats() {
    var names =
        CostSettings.clusterNames(
            new Settings(Map.of("CLUSTER_NAME", "prod", "CLUSTER_NAMES", "train, ,prod,inf_2")));

    assertThat(names).containsExactly("prod", "train", "inf_2");
    assertThat(CostSettings.clusterNames(new Settings(Map.of("CLUSTER_NAME", "prod"))))
        .containsExactly("prod");
    assertThatThrownBy(
            () ->
                CostSettings.clusterNames(
                    new Settings(Map.of("CLUSTER_NAME", "prod", "CLUSTER_NAMES", "ok,bad name"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'bad name'");
  }

  CostReport report(CostOutcome o) {
    String key = o.outputs().get("json").substring("memory:".length());
    try {
      return Json.MAPPER.readValue(store.get(key).orElseThrow(), CostReport.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  List<String> keysUnder(String prefix) {
    return store.keys().stream().filter(k -> k.startsWith(prefix)).toList();
  }
}
