package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.CostOutcome;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier: the cost report's Kubernetes adapter ({@link CostClusterAdapter}) reads
 * kwok GPU nodes and scheduled pods from a real kube-apiserver (the scheduler places the pods
 * within the nodes' nvidia.com/gpu capacity, kwok runs them), and the whole report is built from
 * that inventory with the module's fake EC2 and Spot ports and the static On-Demand prices.
 */
@RealApiServerTest
class RealApiCostTest {
  static final String TEAM = "team";

  /** The p5 Karpenter Spot node (8 GPUs) and the g6e node-group node (4 GPUs) of a test. */
  record Fleet(Node p5, Node g6e) {}

  static Fleet nodes(RealNamespace ns) {
    Node p5 =
        ns.createNode(
            KwokNodes.Spec.karpenter(
                "p5",
                "i-0c05700000000p501",
                "us-east-1a",
                "p5.48xlarge",
                "spot",
                "gpu-training",
                8));
    Node g6e =
        ns.createNode(
            KwokNodes.Spec.nodeGroup(
                "g6e",
                "i-0c05700000000g601",
                "us-east-1a",
                "g6e.12xlarge",
                "on-demand",
                "ng-inference",
                4));
    return new Fleet(p5, g6e);
  }

  /**
   * A bare pod pinned to {@code node} requesting {@code gpus} (as requests and limits, or as limits
   * only, which the API server copies into requests for extended resources).
   */
  static Pod pod(
      RealNamespace ns, String name, String node, int gpus, String team, boolean limitsOnly) {
    var labels = RealNamespace.labels("app", name);
    if (team != null) {
      labels.put(TEAM, team);
    }
    var template = ns.podTemplate(labels, gpus);
    var spec = template.getSpec();
    var selector = new java.util.LinkedHashMap<>(spec.getNodeSelector());
    selector.put("kubernetes.io/hostname", node);
    spec.setNodeSelector(selector);
    if (limitsOnly && gpus > 0) {
      spec.getContainers().get(0).getResources().setRequests(null);
    }
    return ns.client()
        .pods()
        .inNamespace(ns.name())
        .resource(
            new PodBuilder()
                .withMetadata(template.getMetadata())
                .editMetadata()
                .withName(name)
                .withNamespace(ns.name())
                .endMetadata()
                .withSpec(spec)
                .build())
        .create();
  }

  /** Creates the pods of the scenario and waits until kwok runs them all. */
  static Map<String, Pod> workload(RealNamespace ns, Fleet fleet) {
    String p5 = fleet.p5().getMetadata().getName();
    String g6e = fleet.g6e().getMetadata().getName();
    pod(ns, "train-0", p5, 4, "nlp", false);
    pod(ns, "train-1", p5, 2, "vision", true);
    pod(ns, "serve-0", g6e, 1, "nlp", false);
    pod(ns, "exporter", g6e, 0, null, false);
    var out = new java.util.LinkedHashMap<String, Pod>();
    for (String name : List.of("train-0", "train-1", "serve-0", "exporter")) {
      Pod p = ns.awaitReadyPods(RealNamespace.labels("app", name), 1).get(0);
      out.put(name, p);
    }
    return out;
  }

  /** The adapter's reads, restricted to this test's nodes and namespace (the cluster is shared). */
  record Scoped(CostClusterAdapter reader, RealNamespace ns) implements CostClusterPort {
    @Override
    public List<ClusterNode> nodes() {
      return reader.nodes().stream().filter(n -> n.name().startsWith(ns.name() + "-")).toList();
    }

    @Override
    public List<ClusterPod> pods() {
      return reader.pods().stream().filter(p -> ns.name().equals(p.namespace())).toList();
    }
  }

  @Test
  void shouldReadGpuCapacityRequestsTeamsAndPoolsFromTheRealObjects(RealNamespace ns) {
    // Given two kwok GPU nodes and four pods the scheduler placed on them
    Fleet fleet = nodes(ns);
    Map<String, Pod> pods = workload(ns, fleet);

    // When the adapter reads the cluster
    var scoped = new Scoped(new CostClusterAdapter(ns.cluster().client(), TEAM), ns);
    List<ClusterNode> nodes = scoped.nodes();
    List<ClusterPod> read = scoped.pods();

    // Then the nodes carry their GPU capacity from status, instance, pool and group
    assertThat(nodes).hasSize(2);
    ClusterNode p5 = byName(nodes, ns.nodeName("p5"));
    assertThat(p5.instanceId()).isEqualTo("i-0c05700000000p501");
    assertThat(p5.providerId()).isEqualTo("aws:///us-east-1a/i-0c05700000000p501");
    assertThat(p5.instanceType()).isEqualTo("p5.48xlarge");
    assertThat(p5.zone()).isEqualTo("us-east-1a");
    assertThat(p5.accelerators()).isEqualTo(8);
    assertThat(p5.acceleratorResource()).isEqualTo("nvidia.com/gpu");
    assertThat(p5.nodePool()).isEqualTo("gpu-training");
    assertThat(p5.nodeGroup()).isNull();
    assertThat(p5.capacityTypeLabel()).isEqualTo("spot");
    assertThat(p5.cpuMillis()).isEqualTo(48_000);
    assertThat(p5.memoryBytes()).isEqualTo(384L << 30);
    assertThat(p5.createdAt())
        .isEqualTo(Instant.parse(fleet.p5().getMetadata().getCreationTimestamp()));
    ClusterNode g6e = byName(nodes, ns.nodeName("g6e"));
    assertThat(g6e.accelerators()).isEqualTo(4);
    assertThat(g6e.nodePool()).isNull();
    assertThat(g6e.nodeGroup()).isEqualTo("ng-inference");
    assertThat(g6e.capacityTypeLabel()).isEqualTo("ON_DEMAND");

    // and the pods their GPU requests, node, team label and start time
    assertThat(read)
        .extracting(ClusterPod::name)
        .containsExactlyInAnyOrder("train-0", "train-1", "serve-0", "exporter");
    ClusterPod train0 = podNamed(read, "train-0");
    assertThat(train0.nodeName()).isEqualTo(ns.nodeName("p5"));
    assertThat(train0.accelerators()).containsExactly(Map.entry("nvidia.com/gpu", 4.0));
    assertThat(train0.team()).isEqualTo("nlp");
    assertThat(train0.uid()).isEqualTo(pods.get("train-0").getMetadata().getUid());
    assertThat(train0.startedAt())
        .isEqualTo(Instant.parse(pods.get("train-0").getStatus().getStartTime()));
    assertThat(train0.finishedAt()).isNull();
    // created with GPU limits only: the API server defaulted the request to the limit
    var stored = ns.client().pods().inNamespace(ns.name()).withName("train-1").get();
    assertThat(stored.getSpec().getContainers().get(0).getResources().getRequests())
        .containsKey("nvidia.com/gpu");
    assertThat(podNamed(read, "train-1").accelerators()).containsEntry("nvidia.com/gpu", 2.0);
    assertThat(podNamed(read, "train-1").team()).isEqualTo("vision");
    assertThat(podNamed(read, "serve-0").nodeName()).isEqualTo(ns.nodeName("g6e"));
    assertThat(podNamed(read, "exporter").accelerators()).isEmpty();
    assertThat(podNamed(read, "exporter").team()).isNull();
  }

  @Test
  void shouldAllocateEachNodesCostToItsPodsAndIdleFromTheRealInventory(RealNamespace ns) {
    // Given the same fleet, its EC2 instances (launched when the nodes were created) and a Spot
    // price for the p5
    Fleet fleet = nodes(ns);
    Map<String, Pod> pods = workload(ns, fleet);
    Instant p5Created = Instant.parse(fleet.p5().getMetadata().getCreationTimestamp());
    Instant g6eCreated = Instant.parse(fleet.g6e().getMetadata().getCreationTimestamp());
    var ec2 = new Fixtures.FakeEc2();
    ec2.instances.add(
        new Ec2Instance(
            "i-0c05700000000p501",
            "p5.48xlarge",
            "us-east-1a",
            Lifecycle.SPOT,
            p5Created,
            "running",
            null,
            "gpu-training",
            null));
    ec2.instances.add(
        new Ec2Instance(
            "i-0c05700000000g601",
            "g6e.12xlarge",
            "us-east-1a",
            Lifecycle.ON_DEMAND,
            g6eCreated,
            "running",
            null,
            null,
            "ng-inference"));
    var spot = new Fixtures.FakeSpot();
    spot.price("us-east-1a", "p5.48xlarge", p5Created.minus(Duration.ofDays(1)), "30");
    // the report is made ten hours after the p5 joined
    Instant now = p5Created.plus(Duration.ofHours(10));
    var clock = new VirtualTime(now).clock();
    var store = new MemoryBlobStore();
    var metrics = new Recorders.RecordingMetrics();
    var service =
        new CostReportService(
            CostSettings.defaults("real-api"),
            "us-east-1",
            new Scoped(new CostClusterAdapter(ns.cluster().client(), TEAM), ns),
            ec2,
            spot,
            new StaticPrices(),
            store,
            CostReporting.reporter(
                metrics, new Recorders.RecordingPublisher(), new Recorders.RecordingNotifier()),
            clock);

    // When the report for the last 24 hours runs
    CostOutcome outcome = service.run(new CostReportService.Request("24h", null, false), m -> {});
    CostReport report = service.lastReport();

    // Then both nodes are priced, matched to EC2, with their GPU capacity-hours
    assertThat(outcome.status()).isEqualTo(CostOutcome.Status.REPORTED);
    assertThat(report.kpis().nodes()).isEqualTo(2);
    assertThat(report.kpis().nodesWithoutEc2Match()).isZero();
    CostReport.NodeCost p5 = nodeById(report, "i-0c05700000000p501");
    assertThat(p5.hours()).isEqualTo(10.0);
    assertThat(p5.accelerators()).isEqualTo(8);
    assertThat(p5.gpuCapacityHours()).isEqualTo(80.0);
    assertThat(p5.nodePool()).isEqualTo("gpu-training");
    assertThat(p5.priceSource()).isEqualTo("spot-history");
    assertThat(p5.effectiveCost()).isEqualByComparingTo("300.00"); // 10 h x 30
    // each pod is charged its GPU-hours' share, from its real start time; the rest is idle
    assertThat(p5.allocations())
        .extracting(CostReport.Allocation::pod)
        .containsExactlyInAnyOrder("train-0", "train-1");
    for (var a : p5.allocations()) {
      Pod real = pods.get(a.pod());
      Instant started = Instant.parse(real.getStatus().getStartTime());
      assertThat(a.from()).isEqualTo(started);
      assertThat(a.to()).isEqualTo(now);
      int gpus = a.pod().equals("train-0") ? 4 : 2;
      double hours = Duration.between(started, now).toNanos() / 3.6e12;
      assertThat(a.gpuRequestedHours())
          .isCloseTo(gpus * hours, org.assertj.core.data.Offset.offset(0.001));
      BigDecimal exact = new BigDecimal("300.00").multiply(BigDecimal.valueOf(gpus * hours / 80.0));
      assertThat(a.effectiveCost())
          .isCloseTo(
              exact.setScale(2, RoundingMode.HALF_EVEN),
              org.assertj.core.data.Offset.offset(new BigDecimal("0.01")));
      assertThat(a.team()).isEqualTo(a.pod().equals("train-0") ? "nlp" : "vision");
      assertThat(a.namespace()).isEqualTo(ns.name());
    }
    assertThat(allocatedPlusIdle(p5)).isEqualByComparingTo(p5.effectiveCost());
    assertThat(p5.idleCost()).isGreaterThan(new BigDecimal("74.99")); // two of eight GPUs unused
    CostReport.NodeCost g6e = nodeById(report, "i-0c05700000000g601");
    assertThat(g6e.accelerators()).isEqualTo(4);
    assertThat(g6e.nodePool()).isEqualTo("nodegroup/ng-inference");
    assertThat(allocatedPlusIdle(g6e)).isEqualByComparingTo(g6e.effectiveCost());
    assertThat(g6e.allocations())
        .filteredOn(a -> a.pod().equals("exporter"))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.team()).isEqualTo("(none)");
              assertThat(a.effectiveCost()).isEqualByComparingTo("0.00"); // no GPU requested
            });
    // the team rollup adds up the pods' charges
    var nlp = report.rollups().get("team").stream().filter(r -> r.key().equals("nlp")).findFirst();
    assertThat(nlp).isPresent();
    BigDecimal nlpExpected =
        p5.allocations().stream()
            .filter(a -> a.team().equals("nlp"))
            .map(CostReport.Allocation::effectiveCost)
            .reduce(BigDecimal.ZERO, BigDecimal::add)
            .add(
                g6e.allocations().stream()
                    .filter(a -> a.team().equals("nlp"))
                    .map(CostReport.Allocation::effectiveCost)
                    .reduce(BigDecimal.ZERO, BigDecimal::add));
    assertThat(nlp.get().effectiveCost()).isEqualByComparingTo(nlpExpected);
    assertThat(store.keys()).anyMatch(k -> k.endsWith("/cost.html"));
  }

  static BigDecimal allocatedPlusIdle(CostReport.NodeCost n) {
    return n.allocations().stream()
        .map(CostReport.Allocation::effectiveCost)
        .reduce(n.idleCost(), BigDecimal::add);
  }

  static ClusterNode byName(List<ClusterNode> nodes, String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }

  static ClusterPod podNamed(List<ClusterPod> pods, String name) {
    return pods.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }

  static CostReport.NodeCost nodeById(CostReport report, String id) {
    return report.nodes().stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
  }
}
