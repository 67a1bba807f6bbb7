package io.gpufleet.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier for shared GPUs: kwok nodes advertising MIG slices (mixed strategy),
 * time-sliced replicas (device-plugin labels) and nothing at all, and a node whose GPUs a DRA
 * driver publishes in a resource.k8s.io/v1 ResourceSlice; the real scheduler places the pods within
 * what each node advertises and allocates the DRA claim. The cost report reads it all as the
 * function's Kubernetes identity (group gpufleet-cost bound by deploy/rbac/cost-report.yaml) and
 * counts physical GPUs.
 */
@RealApiServerTest
class RealApiGpuSharingTest {
  /** A kwok node of this namespace with the given NVIDIA resources and labels instead of GPUs. */
  static Node node(
      RealNamespace ns,
      String name,
      String id,
      String type,
      Map<String, String> nvidiaResources,
      Map<String, String> nvidiaLabels) {
    Node n =
        KwokNodes.Spec.karpenter(name, id, "us-east-1a", type, "on-demand", "gpu-shared", 0)
            .scopedTo(ns.name())
            .node();
    String nodeName = ns.nodeName(name);
    n.getMetadata().setName(nodeName);
    n.getMetadata().getLabels().put("kubernetes.io/hostname", nodeName);
    n.getMetadata().getLabels().putAll(nvidiaLabels);
    for (var res : List.of(n.getStatus().getCapacity(), n.getStatus().getAllocatable())) {
      res.remove("nvidia.com/gpu");
      nvidiaResources.forEach((k, v) -> res.put(k, new Quantity(v)));
    }
    ns.client().nodes().resource(n).create();
    RealCluster.await(
        "node " + nodeName + " Ready (kwok)",
        RealNamespace.WAIT,
        () -> RealNamespace.isReady(ns.client().nodes().withName(nodeName).get()));
    return ns.client().nodes().withName(nodeName).get();
  }

  static Pod pod(RealNamespace ns, String name, String node, Map<String, String> requests) {
    var template = ns.podTemplate(RealNamespace.labels("app", name), 0);
    var spec = template.getSpec();
    var selector = new LinkedHashMap<>(spec.getNodeSelector());
    selector.put("kubernetes.io/hostname", ns.nodeName(node));
    spec.setNodeSelector(selector);
    var q = new LinkedHashMap<String, Quantity>();
    requests.forEach((k, v) -> q.put(k, new Quantity(v)));
    if (!q.isEmpty()) {
      spec.getContainers()
          .get(0)
          .setResources(
              new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                  .withRequests(q)
                  .withLimits(q)
                  .build());
    }
    ns.client()
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
    return ns.awaitReadyPods(RealNamespace.labels("app", name), 1).get(0);
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

    @Override
    public List<String> notes() {
      return reader.notes();
    }
  }

  static CostReport report(RealNamespace ns, KubernetesClient client, List<Node> nodes) {
    var ec2 = new Fixtures.FakeEc2();
    Instant first = Instant.MAX;
    for (Node n : nodes) {
      Instant created = Instant.parse(n.getMetadata().getCreationTimestamp());
      first = created.isBefore(first) ? created : first;
      String id = ClusterNode.instanceIdOf(n.getSpec().getProviderID());
      ec2.instances.add(
          new Ec2Instance(
              id,
              n.getMetadata().getLabels().get("node.kubernetes.io/instance-type"),
              "us-east-1a",
              Lifecycle.ON_DEMAND,
              created,
              "running",
              null,
              "gpu-shared",
              null));
    }
    var service =
        new CostReportService(
            CostSettings.defaults("real-api"),
            "us-east-1",
            new Scoped(new CostClusterAdapter(client, "team"), ns),
            ec2,
            new Fixtures.FakeSpot(),
            new StaticPrices(),
            new MemoryBlobStore(),
            CostReporting.reporter(
                new Recorders.RecordingMetrics(),
                new Recorders.RecordingPublisher(),
                new Recorders.RecordingNotifier()),
            new VirtualTime(first.plus(Duration.ofHours(6))).clock());
    service.run(new CostReportService.Request("24h", null, false), m -> {});
    return service.lastReport();
  }

  static CostReport.GpuNode gpuNode(CostReport r, String name) {
    return r.gpuSharing().stream().filter(g -> g.node().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void shouldCountMigSlicesAndTimeSlicedReplicasAsPhysicalGpusAndFlagAGpuNodeWithNone(
      RealNamespace ns) throws Exception {
    // Given a p5 advertising 16 MIG 3g.40gb slices, a g6e time-sliced 4 ways (16 replicas of 4
    // GPUs) and a g5 whose device plugin advertises nothing
    var nodes = new ArrayList<Node>();
    nodes.add(
        node(
            ns,
            "p5mig",
            "i-0c05700000000m501",
            "p5.48xlarge",
            Map.of("nvidia.com/mig-3g.40gb", "16"),
            Map.of("nvidia.com/mig.strategy", "mixed", "nvidia.com/mig.capable", "true")));
    nodes.add(
        node(
            ns,
            "g6ets",
            "i-0c05700000000t601",
            "g6e.12xlarge",
            Map.of("nvidia.com/gpu", "16"),
            Map.of(
                "nvidia.com/gpu.replicas", "4",
                "nvidia.com/gpu.sharing-strategy", "time-slicing",
                "nvidia.com/gpu.count", "4")));
    nodes.add(node(ns, "g5bare", "i-0c05700000000b501", "g5.2xlarge", Map.of(), Map.of()));
    // and pods the scheduler places within what each node advertises
    pod(ns, "mig-0", "p5mig", Map.of("nvidia.com/mig-3g.40gb", "6"));
    pod(ns, "ts-0", "g6ets", Map.of("nvidia.com/gpu", "3"));
    pod(ns, "loader-0", "p5mig", Map.of("cpu", "24", "memory", "256Gi"));

    // When the report runs as the function's identity
    CostReport r = report(ns, ns.cluster().client(), nodes);

    // Then every node counts its physical GPUs, and requests are converted to them
    var mig = gpuNode(r, ns.nodeName("p5mig"));
    assertThat(mig.physicalGpus()).isEqualTo(8);
    assertThat(mig.sharing()).isEqualTo("mig-mixed");
    assertThat(mig.advertised()).isEqualTo("nvidia.com/mig-3g.40gb: 16");
    assertThat(mig.gpuRequestedHours() / mig.gpuCapacityHours()).isCloseTo(3 / 8.0, within(1e-3));
    var ts = gpuNode(r, ns.nodeName("g6ets"));
    assertThat(ts.physicalGpus()).isEqualTo(4);
    assertThat(ts.sharing()).isEqualTo("time-slicing");
    assertThat(ts.replicas()).isEqualTo(4);
    assertThat(ts.gpuRequestedHours() / ts.gpuCapacityHours()).isCloseTo(0.75 / 4, within(1e-3));
    var bare = gpuNode(r, ns.nodeName("g5bare"));
    assertThat(bare.physicalGpus()).isEqualTo(1);
    assertThat(bare.flags()).singleElement().asString().contains("0 allocatable GPUs");
    assertThat(r.kpis().gpuNodesWithoutAllocatableGpus()).isEqualTo(1);
    assertThat(r.kpis().physicalGpus()).isEqualTo(13);
    // the CPU-only loader on the p5 is free under the gpu rule and priced under cpu-memory
    assertThat(r.cpuOnlyPodsOnGpuNodes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.pod()).isEqualTo("loader-0");
              assertThat(c.costByRule().get("gpu")).isEqualByComparingTo("0.00");
              assertThat(c.costByRule().get("cpu-memory")).isPositive();
            });
    assertThat(r.reconciliation().balanced()).isTrue();
    assertThat(r.header().notes()).noneMatch(n -> n.contains("resource.k8s.io"));
  }

  @Test
  void shouldAttributeGpusTheSchedulerAllocatedThroughADraClaimToTheirPod(RealNamespace ns)
      throws Exception {
    // Given a p5 whose eight GPUs the NVIDIA DRA driver publishes in a ResourceSlice (no device
    // plugin resources), a DeviceClass for them and a claim for two
    Node p5 = node(ns, "p5dra", "i-0c05700000000d501", "p5.48xlarge", Map.of(), Map.of());
    String nodeName = p5.getMetadata().getName();
    String cls = ns.name() + "-gpu";
    var admin = ns.client();
    admin
        .resource(
            new DeviceClassBuilder()
                .withNewMetadata()
                .withName(cls)
                .endMetadata()
                .withNewSpec()
                .addNewSelector()
                .withNewCel()
                .withExpression(
                    "device.driver == 'gpu.nvidia.com' &&"
                        + " device.attributes['gpu.nvidia.com'].type == 'gpu'")
                .endCel()
                .endSelector()
                .endSpec()
                .build())
        .create();
    var slice =
        new ResourceSliceBuilder()
            .withNewMetadata()
            .withName(nodeName + "-gpu.nvidia.com")
            .endMetadata()
            .withNewSpec()
            .withDriver("gpu.nvidia.com")
            .withNodeName(nodeName)
            .withNewPool()
            .withName(nodeName)
            .withGeneration(1L)
            .withResourceSliceCount(1L)
            .endPool();
    for (int i = 0; i < 8; i++) {
      slice =
          slice
              .addNewDevice()
              .withName("gpu-" + i)
              .addToAttributes(
                  "type",
                  new io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder()
                      .withString("gpu")
                      .build())
              .addToAttributes(
                  "productName",
                  new io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder()
                      .withString("NVIDIA H100 80GB HBM3")
                      .build())
              .endDevice();
    }
    admin.resource(slice.endSpec().build()).create();
    admin
        .resource(
            new ResourceClaimBuilder()
                .withNewMetadata()
                .withName("two-gpus")
                .withNamespace(ns.name())
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("gpus")
                .withNewExactly()
                .withDeviceClassName(cls)
                .withAllocationMode("ExactCount")
                .withCount(2L)
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .build())
        .create();
    // and a pod that uses the claim, placed by the scheduler (which allocates the claim)
    var template = ns.podTemplate(RealNamespace.labels("app", "dra-0"), 0);
    var spec = template.getSpec();
    var selector = new LinkedHashMap<>(spec.getNodeSelector());
    selector.put("kubernetes.io/hostname", nodeName);
    spec.setNodeSelector(selector);
    spec.setResourceClaims(
        List.of(
            new io.fabric8.kubernetes.api.model.PodResourceClaimBuilder()
                .withName("gpus")
                .withResourceClaimName("two-gpus")
                .build()));
    spec.getContainers()
        .get(0)
        .setResources(
            new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addNewClaim()
                .withName("gpus")
                .endClaim()
                .build());
    admin
        .pods()
        .inNamespace(ns.name())
        .resource(
            new PodBuilder()
                .withMetadata(template.getMetadata())
                .editMetadata()
                .withName("dra-0")
                .withNamespace(ns.name())
                .endMetadata()
                .withSpec(spec)
                .build())
        .create();
    Pod running = ns.awaitReadyPods(RealNamespace.labels("app", "dra-0"), 1).get(0);
    ResourceClaim claim =
        admin.resources(ResourceClaim.class).inNamespace(ns.name()).withName("two-gpus").get();
    assertThat(claim.getStatus().getAllocation().getDevices().getResults()).hasSize(2);
    assertThat(claim.getStatus().getReservedFor())
        .singleElement()
        .satisfies(c -> assertThat(c.getUid()).isEqualTo(running.getMetadata().getUid()));

    // When the report runs as the function's identity
    CostReport r;
    ClusterPod read;
    try {
      var client = ns.cluster().client();
      var reader = new Scoped(new CostClusterAdapter(client, "team"), ns);
      read = reader.pods().stream().filter(p -> p.name().equals("dra-0")).findFirst().orElseThrow();
      assertThat(reader.notes()).isEmpty();
      r = report(ns, client, List.of(p5));
    } finally {
      admin
          .resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class)
          .withName(nodeName + "-gpu.nvidia.com")
          .delete();
      admin
          .resources(io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class)
          .withName(cls)
          .delete();
    }

    // Then the node counts the eight published GPUs and the pod the two allocated to it
    assertThat(read.accelerators()).containsExactly(Map.entry(ClusterNode.DRA_GPU, 2.0));
    var g = gpuNode(r, nodeName);
    assertThat(g.physicalGpus()).isEqualTo(8);
    assertThat(g.sharing()).isEqualTo("dra");
    assertThat(g.advertised()).isEqualTo("dra:gpu: 8");
    assertThat(g.flags()).isEmpty();
    assertThat(g.gpuRequestedHours() / g.gpuCapacityHours()).isCloseTo(2 / 8.0, within(1e-3));
    var cost = r.nodes().stream().filter(n -> n.nodeName().equals(nodeName)).findFirst().get();
    assertThat(cost.allocations())
        .singleElement()
        .satisfies(a -> assertThat(a.effectiveCost()).isPositive());
    assertThat(r.reconciliation().balanced()).isTrue();
  }
}
