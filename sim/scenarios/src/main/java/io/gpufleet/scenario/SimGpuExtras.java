package io.gpufleet.scenario;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.AwsStubServer.Reply;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The shared-GPU part of the simulated cluster for the cost report: a p5 cut into MIG slices, a g6e
 * time-sliced four ways, a p5 whose GPUs a DRA driver publishes with a claim allocated to a
 * training pod, a p5 in an On-Demand Capacity Reservation; Cost Explorer answering with Savings
 * Plans coverage of the p5 family and Reserved Instance coverage of g6e.12xlarge; a Prometheus
 * query API with DCGM utilisation and vLLM/TGI token counters.
 */
public final class SimGpuExtras {
  /** A node added here: name, instance, type, capacity type, pool, group, hours since launch. */
  public record Extra(
      String name,
      String instanceId,
      String zone,
      String type,
      String capacityType,
      String nodePool,
      String nodeGroup,
      int hoursAgo) {}

  static final Extra MIG =
      new Extra(
          "ip-10-0-4-41.ec2.internal",
          "i-0a1b2c3d4e5f60041",
          "us-east-1a",
          "p5.48xlarge",
          "on-demand",
          "gpu-mig",
          null,
          30);
  static final Extra SLICED =
      new Extra(
          "ip-10-0-4-42.ec2.internal",
          "i-0a1b2c3d4e5f60042",
          "us-east-1b",
          "g6e.12xlarge",
          "on-demand",
          "gpu-inference-shared",
          null,
          16);
  public static final Extra DRA =
      new Extra(
          "ip-10-0-4-43.ec2.internal",
          "i-0a1b2c3d4e5f60043",
          "us-east-1c",
          "p5.48xlarge",
          "on-demand",
          null,
          "ng-dra",
          8);

  /**
   * A p5 launched into an On-Demand Capacity Reservation (Karpenter's {@code reserved} capacity
   * type): billed at the On-Demand rate, so the p5 Savings Plan discounts it like any On-Demand p5.
   */
  public static final Extra ODCR =
      new Extra(
          "ip-10-0-4-44.ec2.internal",
          "i-0a1b2c3d4e5f60044",
          "us-east-1a",
          "p5.48xlarge",
          "reserved",
          "gpu-training-reserved",
          null,
          20);

  /** The reservation {@link #ODCR} runs in. */
  static final String ODCR_RESERVATION = "cr-0a1b2c3d4e5f60044";

  public static final List<Extra> NODES = List.of(MIG, SLICED, DRA, ODCR);

  private SimGpuExtras() {}

  public static void populate(SimCluster cluster) {
    cluster.create(
        node(
            MIG,
            Map.of("nvidia.com/mig-3g.40gb", "16"),
            Map.of("nvidia.com/mig.strategy", "mixed", "nvidia.com/mig.capable", "true")));
    cluster.create(
        node(
            SLICED,
            Map.of("nvidia.com/gpu", "16"),
            Map.of(
                "nvidia.com/gpu.replicas", "4",
                "nvidia.com/gpu.sharing-strategy", "time-slicing",
                "nvidia.com/gpu.count", "4")));
    cluster.create(node(DRA, Map.of(), Map.of()));
    cluster.create(
        node(
            ODCR,
            Map.of("nvidia.com/gpu", "8"),
            Map.of("karpenter.k8s.aws/capacity-reservation-id", ODCR_RESERVATION)));
    cluster.create(pod("training", "pretrain-odcr-0", ODCR.name(), "nvidia.com/gpu", 8));
    for (int i = 0; i < 3; i++) {
      cluster.create(pod("serving", "vllm-70b-mig-" + i, MIG.name(), "nvidia.com/mig-3g.40gb", 4));
    }
    for (int i = 0; i < 6; i++) {
      cluster.create(pod("serving", "embed-" + i, SLICED.name(), "nvidia.com/gpu", 1));
    }
    cluster.create(pod("data", "feature-loader-0", MIG.name(), null, 0));
    Pod trainer = cluster.create(pod("training", "dra-trainer-0", DRA.name(), null, 0));
    var slice =
        new ResourceSliceBuilder()
            .withNewMetadata()
            .withName(DRA.name() + "-gpu.nvidia.com")
            .endMetadata()
            .withNewSpec()
            .withDriver("gpu.nvidia.com")
            .withNodeName(DRA.name())
            .withNewPool()
            .withName(DRA.name())
            .withGeneration(1L)
            .withResourceSliceCount(1L)
            .endPool();
    for (int i = 0; i < 8; i++) {
      slice =
          slice
              .addNewDevice()
              .withName("gpu-" + i)
              .addToAttributes("type", new DeviceAttributeBuilder().withString("gpu").build())
              .endDevice();
    }
    cluster.create(slice.endSpec().build());
    // the claim as the scheduler leaves it: four devices allocated, reserved for the trainer
    var results =
        new ArrayList<io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult>();
    for (int i = 0; i < 4; i++) {
      results.add(
          new io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder()
              .withRequest("gpus")
              .withDriver("gpu.nvidia.com")
              .withPool(DRA.name())
              .withDevice("gpu-" + i)
              .build());
    }
    cluster.create(
        new ResourceClaimBuilder()
            .withNewMetadata()
            .withName("dra-trainer-0-gpus")
            .withNamespace("training")
            .endMetadata()
            .withNewSpec()
            .withNewDevices()
            .addNewRequest()
            .withName("gpus")
            .withNewExactly()
            .withDeviceClassName("gpu.nvidia.com")
            .withAllocationMode("ExactCount")
            .withCount(4L)
            .endExactly()
            .endRequest()
            .endDevices()
            .endSpec()
            .withNewStatus()
            .withNewAllocation()
            .withNewDevices()
            .withResults(results)
            .endDevices()
            .endAllocation()
            .addNewReservedFor()
            .withResource("pods")
            .withName("dra-trainer-0")
            .withUid(trainer.getMetadata().getUid())
            .endReservedFor()
            .endStatus()
            .build());
  }

  static Node node(Extra e, Map<String, String> resources, Map<String, String> labels) {
    Node n =
        SimCluster.gpuNode(
            e.name(),
            e.instanceId(),
            e.zone(),
            e.type(),
            e.capacityType(),
            e.nodePool(),
            e.nodeGroup(),
            0);
    n.getMetadata().getLabels().putAll(labels);
    boolean p5 = e.type().startsWith("p5");
    for (var m : List.of(n.getStatus().getCapacity(), n.getStatus().getAllocatable())) {
      m.remove("nvidia.com/gpu");
      resources.forEach((k, v) -> m.put(k, new Quantity(v)));
      m.put("cpu", new Quantity(p5 ? "192" : "48"));
      m.put("memory", new Quantity(p5 ? "2048Gi" : "384Gi"));
    }
    return n;
  }

  static Pod pod(String ns, String name, String node, String resource, int count) {
    Pod p =
        SimCluster.runningPod(
            ns,
            name,
            node,
            "ReplicaSet",
            name.replaceAll("-\\d+$", ""),
            Map.of("app", name.replaceAll("-\\d+$", "")),
            30,
            0);
    var res = p.getSpec().getContainers().get(0).getResources();
    if (resource != null) {
      res.getRequests().put(resource, new Quantity(Integer.toString(count)));
      res.setLimits(Map.of(resource, new Quantity(Integer.toString(count))));
    } else if (name.startsWith("feature-loader")) {
      res.getRequests().put("cpu", new Quantity("32"));
    }
    if (name.startsWith("dra-")) {
      p.getSpec()
          .setResourceClaims(
              List.of(
                  new io.fabric8.kubernetes.api.model.PodResourceClaimBuilder()
                      .withName("gpus")
                      .withResourceClaimName(name + "-gpus")
                      .build()));
    }
    return p;
  }

  /** Cost Explorer as an account with a p5 Savings Plan and g6e Reserved Instances answers. */
  public static void costExplorer(AwsStubServer stub, String region) {
    String prefix = "AWSInsightsIndexService.";
    stub.on(
        prefix + "GetSavingsPlansCoverage",
        c ->
            Reply.json(
                ("{\"SavingsPlansCoverages\":[{\"Attributes\":{\"INSTANCE_FAMILY\":\"p5\","
                        + "\"REGION\":\"%s\"},\"Coverage\":{\"SpendCoveredBySavingsPlans\":\"2113.54\","
                        + "\"OnDemandCost\":\"528.38\",\"TotalCost\":\"2641.92\","
                        + "\"CoveragePercentage\":\"80\"}}]}")
                    .formatted(region)));
    stub.on(
        prefix + "GetSavingsPlansUtilization",
        c ->
            Reply.json(
                "{\"Total\":{\"Utilization\":{\"TotalCommitment\":\"1210\",\"UsedCommitment\":"
                    + "\"1162.45\",\"UnusedCommitment\":\"47.55\",\"UtilizationPercentage\":\"96.07\"},"
                    + "\"Savings\":{\"NetSavings\":\"951.09\",\"OnDemandCostEquivalent\":\"2113.54\"}}}"));
    stub.on(
        prefix + "GetReservationCoverage",
        c ->
            Reply.json(
                ("{\"CoveragesByTime\":[{\"Groups\":[{\"Attributes\":{\"instanceType\":"
                        + "\"g6e.12xlarge\",\"region\":\"%s\"},\"Coverage\":{\"CoverageHours\":"
                        + "{\"ReservedHours\":\"24\",\"TotalRunningHours\":\"48\",\"OnDemandHours\":"
                        + "\"24\",\"CoverageHoursPercentage\":\"50\"}}}]}]}")
                    .formatted(region)));
    stub.on(
        prefix + "GetReservationUtilization",
        c ->
            Reply.json(
                "{\"UtilizationsByTime\":[],\"Total\":{\"TotalAmortizedFee\":\"151.10\","
                    + "\"OnDemandCostOfRIHoursUsed\":\"251.82\"}}"));
  }

  /**
   * A Prometheus query API on loopback answering the cost report's queries as a cluster with the
   * DCGM exporter and vLLM/TGI servers would: utilisation per node (GPU_UTIL, or GR_ENGINE_ACTIVE
   * on the MIG node) and per GPU pod, output tokens per serving pod.
   */
  public static HttpServer prometheus() throws IOException {
    var server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/api/v1/query",
        ex -> {
          String q = "";
          for (String kv : ex.getRequestURI().getRawQuery().split("&")) {
            if (kv.startsWith("query=")) {
              q = URLDecoder.decode(kv.substring(6), StandardCharsets.UTF_8);
            }
          }
          byte[] body = answer(q).getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    return server;
  }

  public static URI url(HttpServer s) {
    return URI.create("http://127.0.0.1:" + s.getAddress().getPort());
  }

  private static String answer(String q) {
    var series = new ArrayList<String>();
    boolean byHost = q.contains("by (Hostname");
    if (q.contains("DCGM_FI_DEV_GPU_UTIL") && byHost) {
      double[] util = {92, 71, 35, 28, 41, 12, 9, 18};
      for (int i = 0; i < DemoFleet.NODES.size(); i++) {
        series.add(sample("\"Hostname\":\"" + DemoFleet.NODES.get(i).name() + "\"", util[i]));
      }
      series.add(sample("\"Hostname\":\"" + SLICED.name() + "\"", 47));
      series.add(sample("\"hostname\":\"" + DRA.name() + "\"", 83));
    } else if (q.contains("DCGM_FI_PROF_GR_ENGINE_ACTIVE") && byHost) {
      series.add(sample("\"Hostname\":\"" + MIG.name() + "\"", 44)); // MIG: no GPU_UTIL
    } else if (q.contains("DCGM_FI_DEV_GPU_UTIL")) {
      series.add(pod("training", "llm-finetune-0", 93));
      series.add(pod("training", "dra-trainer-0", 85));
      for (int i = 0; i < 6; i++) {
        series.add(pod("inference", "vllm-llama-" + i, 30 + 4 * i));
        series.add(pod("serving", "embed-" + i, 40 + i));
      }
    } else if (q.contains("vllm:generation_tokens_total")) {
      for (int i = 0; i < 6; i++) {
        series.add(
            sample(
                "\"model_name\":\"llama-3.1-8b-instruct\",\"engine\":\"0\",\"namespace\":"
                    + "\"inference\",\"pod\":\"vllm-llama-"
                    + i
                    + "\"",
                3.1e7 + 2.5e6 * i));
      }
      for (int i = 0; i < 3; i++) {
        series.add(
            sample(
                "\"model_name\":\"llama-3.1-70b-instruct\",\"engine\":\"0\",\"namespace\":"
                    + "\"serving\",\"pod\":\"vllm-70b-mig-"
                    + i
                    + "\"",
                9.4e6 + 1e6 * i));
      }
    } else if (q.contains("tgi_request_generated_tokens_sum")) {
      for (int i = 0; i < 6; i++) {
        series.add(sample("\"namespace\":\"serving\",\"pod\":\"embed-" + i + "\"", 4.2e6));
      }
    }
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
        + String.join(",", series)
        + "]}}";
  }

  private static String pod(String ns, String pod, double v) {
    return sample(
        "\"exported_namespace\":\""
            + ns
            + "\",\"exported_pod\":\""
            + pod
            + "\",\"namespace\":"
            + "\"gpu-operator\",\"pod\":\"nvidia-dcgm-exporter-x\"",
        v);
  }

  private static String sample(String labels, double v) {
    return "{\"metric\":{"
        + labels
        + "},\"value\":["
        + Instant.now().getEpochSecond()
        + ",\""
        + String.format(Locale.ROOT, "%.6g", v)
        + "\"]}";
  }
}
