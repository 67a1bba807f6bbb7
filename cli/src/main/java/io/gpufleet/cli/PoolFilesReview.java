package io.gpufleet.cli;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.preflight.DraCheck;
import io.gpufleet.preflight.DraCheck.Version;
import io.gpufleet.preflight.NodePoolAnalyzer;
import io.gpufleet.preflight.PoolReview;
import io.gpufleet.preflight.aws.RegionalClients;
import io.gpufleet.preflight.aws.ServiceQuotasAdapter;
import io.gpufleet.preflight.k8s.NodePoolManifests;
import io.gpufleet.preflight.model.PoolFinding;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * {@code gpufleet preflight --nodepools FILE[,FILE] [FILE...]}: reviews NodePool manifests without
 * a cluster. Quotas come from {@code --quota p/spot=384,g/on-demand=192} (no AWS call), from the
 * simulated account with {@code --simulate}, or from Service Quotas of {@code --region} (the only
 * AWS read); with none of them the limits are summed per bucket but not compared. Exit 1 when a
 * finding is NO_GO (e.g. a DRA workload no provisioner can serve), 0 otherwise, 2 for bad input.
 */
final class PoolFilesReview {
  private final PrintStream out;
  private final PrintStream err;

  PoolFilesReview(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Reviews the files of {@code --nodepools} (and the FILEs after it) of a parsed preflight. */
  int run(PreflightCommand args) throws Exception {
    var files = new ArrayList<String>();
    for (String f : args.nodePools) {
      if (!f.isBlank()) {
        files.add(f.trim());
      }
    }
    files.addAll(args.moreNodePools);
    var manifests = new NodePoolManifests();
    for (String f : files) {
      try {
        manifests.add(Files.readString(Path.of(f)), f);
      } catch (NoSuchFileException e) {
        throw new ConfigException("preflight: --nodepools file " + f + " does not exist");
      }
    }
    if (manifests.pools().isEmpty()) {
      throw new ConfigException(
          "preflight: no karpenter.sh/v1 NodePool in " + String.join(", ", files));
    }
    var provisioners = provisioners(args, manifests);
    Map<QuotaBucket.Key, QuotaValue> quotas = new HashMap<>();
    String quotaSource;
    if (args.quota != null) {
      quotas.putAll(quotaFlags(args.quota));
      quotaSource = "--quota";
    } else if (args.simulate || args.region != null) {
      String region = Optional.ofNullable(args.region).orElse("us-east-1");
      quotas.putAll(readQuotas(manifests, region, args.simulate));
      quotaSource = (args.simulate ? "simulated account " : "Service Quotas ") + region;
    } else {
      quotaSource = null;
    }
    var result =
        PoolReview.review(manifests.pools(), manifests.draWorkloads(), provisioners, quotas);
    if (args.json) {
      var doc = new LinkedHashMap<String, Object>();
      doc.put("files", files);
      doc.put("quotaSource", quotaSource);
      doc.put("verdict", result.verdict());
      doc.put("nodePools", result.nodePools());
      doc.put("buckets", result.buckets());
      doc.put("findings", result.findings());
      out.println(Json.writePretty(doc));
    } else {
      print(files, manifests, result, quotaSource);
    }
    return "NO_GO".equals(result.verdict()) ? 1 : 0;
  }

  static DraCheck.Provisioners provisioners(PreflightCommand args, NodePoolManifests manifests) {
    Optional<Version> karpenter =
        Optional.ofNullable(args.karpenterVersion)
            .or(manifests::karpenterVersion)
            .map(v -> Version.parse(v, "preflight: --karpenter-version"));
    Optional<Boolean> ignore = manifests.ignoreDRARequests();
    Optional<Boolean> enable = Optional.empty();
    if (args.karpenterSetting != null) {
      for (String kv : args.karpenterSetting.split(",")) {
        String[] p = kv.split("=", 2);
        if (p.length != 2 || !(p[1].trim().equals("true") || p[1].trim().equals("false"))) {
          throw new ConfigException(
              "preflight: --karpenter-setting '" + kv + "' must be NAME=true|false");
        }
        boolean value = Boolean.parseBoolean(p[1].trim());
        switch (p[0].trim()) {
          case "ignoreDRARequests", "IGNORE_DRA_REQUESTS" -> ignore = Optional.of(value);
          case "enableDRA", "ENABLE_DRA" -> enable = Optional.of(value);
          default ->
              throw new ConfigException(
                  "preflight: --karpenter-setting knows ignoreDRARequests and enableDRA, not '"
                      + p[0].trim()
                      + "'");
        }
      }
    }
    Optional<Boolean> caDra = Optional.ofNullable(args.clusterAutoscalerDra);
    return new DraCheck.Provisioners(
        karpenter,
        ignore,
        enable,
        Optional.ofNullable(args.kubernetesVersion)
            .map(v -> Version.parse(v, "preflight: --kubernetes-version")),
        Optional.ofNullable(args.clusterAutoscalerVersion)
            .map(v -> Version.parse(v, "preflight: --cluster-autoscaler-version")),
        caDra);
  }

  /** "p/spot=384,g/on-demand=192" (bucket as P, G, "G and VT", trn…; capacity spot/on-demand). */
  static Map<QuotaBucket.Key, QuotaValue> quotaFlags(String text) {
    var out = new HashMap<QuotaBucket.Key, QuotaValue>();
    for (String item : text.split(",")) {
      String t = item.trim();
      var m = java.util.regex.Pattern.compile("([^/=]+)/([^=]+)=(\\d+(?:\\.\\d+)?)").matcher(t);
      if (!m.matches()) {
        throw new ConfigException(
            "preflight: --quota '" + t + "' must be BUCKET/CAPACITY=VCPU, like p/spot=384");
      }
      QuotaBucket bucket =
          QuotaBucket.parse(m.group(1))
              .orElseThrow(
                  () ->
                      new ConfigException(
                          "preflight: --quota '" + t + "': unknown bucket '" + m.group(1) + "'"));
      CapacityType ct =
          CapacityType.parse(m.group(2))
              .orElseThrow(
                  () ->
                      new ConfigException(
                          "preflight: --quota '"
                              + t
                              + "': capacity type must be spot or on-demand, not '"
                              + m.group(2)
                              + "'"));
      var key = new QuotaBucket.Key(bucket, ct);
      out.put(
          key,
          new QuotaValue(
              key,
              bucket.fallbackQuotaCode(ct).orElse("?"),
              bucket.quotaName(ct).orElse(key.label()),
              Double.parseDouble(m.group(3)),
              key.usageClass(),
              "--quota",
              true));
    }
    return out;
  }

  private Map<QuotaBucket.Key, QuotaValue> readQuotas(
      NodePoolManifests manifests, String region, boolean simulate) {
    var keys = new TreeSet<QuotaBucket.Key>();
    var analyzer = new NodePoolAnalyzer();
    manifests.pools().forEach(p -> analyzer.exposures(p).forEach(x -> keys.add(x.key())));
    keys.addAll(QuotaBucket.acceleratedKeys());
    if (!simulate) {
      try (var clients =
          new RegionalClients(DefaultCredentialsProvider.builder().build(), Optional.empty())) {
        return new ServiceQuotasAdapter(clients).quotas(region, keys);
      }
    }
    try (var stub = AwsStubServer.start();
        var clients =
            new RegionalClients(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "sim")),
                Optional.of(stub.endpoint()))) {
      new SimCapacityAccount(stub).install().seedDemo(List.of(region));
      return new ServiceQuotasAdapter(clients).quotas(region, keys);
    }
  }

  private void print(
      List<String> files,
      NodePoolManifests manifests,
      PoolReview.Result result,
      String quotaSource) {
    out.println();
    out.println(
        "NodePool review of "
            + String.join(", ", files)
            + ": "
            + result.nodePools().size()
            + " NodePools, "
            + manifests.draWorkloads().size()
            + " DRA workloads");
    var table = new Table("QUOTA", "POOLS (worst-case vCPU)", "SUM", "QUOTA vCPU", "");
    for (var b : result.buckets()) {
      var parts = new ArrayList<String>();
      new java.util.TreeMap<>(b.pools()).forEach((n, v) -> parts.add(n + " " + Math.round(v)));
      table.add(
          b.quota(),
          String.join(" + ", parts),
          Math.round(b.total()),
          b.quotaVcpu() == null ? "?" : Math.round(b.quotaVcpu()),
          b.exceeds() ? "EXCEEDS" : "");
    }
    out.print(table.render());
    if (quotaSource == null) {
      out.println(
          "(no quotas given: limits summed, not compared — pass --quota p/spot=384,..., --simulate"
              + " or --region)");
    } else {
      out.println("(quotas from " + quotaSource + ")");
    }
    if (!result.findings().isEmpty()) {
      out.println();
      out.println("Findings:");
      for (PoolFinding f : result.findings()) {
        out.println("  " + f.severity() + " " + f.nodePool() + ": " + f.message());
      }
    }
    out.println();
    out.println("Verdict: " + result.verdict());
    err.flush();
  }
}
