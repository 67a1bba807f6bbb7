package io.gpufleet.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.PreflightService;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.aws.RegionalClients;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.Verdict;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * {@code gpufleet bench preflight}: a plan of 12 instance types over 17 regions against the
 * simulated account with a fixed latency on every AWS call (the function's own clients, real HTTPS
 * to the stub by AWS's host names where the bench may listen on port 443), once with the function's
 * fan-out and once one call after another (the baseline), in the same run.
 */
public final class PreflightBench {
  static final int WARMUP_ROUNDS = 4;
  private final PrintStream err;

  public PreflightBench(PrintStream err) {
    this.err = err;
  }

  /** Six entries, each "any of" two types: 12 types, Spot and On-Demand, every bucket kind. */
  static Plan plan(List<String> regions) {
    var t = SimCapacityAccount.DEMO_TYPES;
    return new Plan(
        "bench-12-types",
        List.of(
            new PlanEntry("trainers", List.of(t.get(0), t.get(1)), 2, CapacityType.SPOT, List.of()),
            new PlanEntry(
                "trainers-od", List.of(t.get(2), t.get(3)), 2, CapacityType.ON_DEMAND, List.of()),
            new PlanEntry(
                "inference", List.of(t.get(4), t.get(5)), 4, CapacityType.ON_DEMAND, List.of()),
            new PlanEntry(
                "inference-spot", List.of(t.get(6), t.get(7)), 4, CapacityType.SPOT, List.of()),
            new PlanEntry("big", List.of(t.get(8), t.get(9)), 1, CapacityType.ON_DEMAND, List.of()),
            new PlanEntry("accel", List.of(t.get(10), t.get(11)), 1, CapacityType.SPOT, List.of())),
        regions,
        false);
  }

  /**
   * The AWS stub (with its latency) runs here; the preflight runs in a child JVM in the share. The
   * child warms up without latency, then marks "measure" (the stub's latency is switched on here)
   * and "baseline" (the calls of the fan-out are counted here).
   */
  public Map<String, Object> run(
      int latencyMs, int regionCount, boolean baseline, Confinement share) throws Exception {
    var regions =
        Regions.DEFAULT_ENABLED.subList(0, Math.min(regionCount, Regions.DEFAULT_ENABLED.size()));
    // as in Lambda: each region's endpoints by AWS's own host names over HTTPS, one stub behind
    // them all (it reads the region of each call's signature); plain http to one endpoint where
    // this process may not listen on port 443
    var hosts = AwsHosts.allocate();
    var unnamed = hosts.unavailable();
    try (var tls = BenchTls.create(share.jvm().home(), unnamed.isEmpty() ? hosts : null);
        var stub =
            unnamed.isEmpty()
                ? AwsStubServer.startHttps(tls.serverContext(), hosts.socket(1))
                : AwsStubServer.start()) {
      var jvm = new java.util.ArrayList<String>();
      if (unnamed.isEmpty()) {
        hosts.fallback(hosts.address(1));
        jvm.addAll(tls.functionJvmOptions());
        jvm.add("-Djdk.net.hosts.file=" + hosts.write(tls.file("hosts")));
      }
      new SimCapacityAccount(stub).install().seedDemo(regions);
      share.announce(err, "preflight");
      var counts = new int[2];
      var f =
          share.runChild(
              "preflight",
              Map.of(
                  "endpoint",
                  unnamed.isEmpty() ? "" : stub.endpoint().toString(),
                  "regions",
                  regions.size(),
                  "latencyMs",
                  latencyMs,
                  "baseline",
                  baseline),
              Map.of(
                  "measure",
                  () -> {
                    stub.latency(Duration.ofMillis(latencyMs));
                    counts[0] = stub.calls().size();
                  },
                  "baseline",
                  () -> counts[1] = stub.calls().size()),
              jvm);
      long wallMs = ((Number) f.get("wallMs")).longValue();
      double speedup = baseline ? ((Number) f.get("speedup")).doubleValue() : Double.NaN;
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "preflight");
      r.put("regions", regions.size());
      r.put("instanceTypes", f.remove("instanceTypes"));
      r.put("latencyMsPerCall", latencyMs);
      r.put("apiCalls", counts[1] - counts[0]);
      r.put(
          "aws",
          unnamed.isEmpty()
              ? "AWS's own host names over HTTPS (hosts file, port 443, a connection per host)"
              : "one plain-http endpoint for every region (" + unnamed.get() + ")");
      r.putAll(f);
      r.put("share", share.describe());
      r.put("targetMs", 3000);
      r.put("targetSpeedup", 10);
      r.put(
          "pass",
          wallMs <= 3000
              && Boolean.TRUE.equals(f.get("noUnknown"))
              && (!baseline
                  || (speedup >= 10 && f.get("verdicts").equals(f.get("baselineVerdicts")))));
      return r;
    }
  }

  /** The child side: warm-up, the fan-out, the baseline. */
  static Map<String, Object> child(JsonNode input, PrintStream err) throws Exception {
    var regions = Regions.DEFAULT_ENABLED.subList(0, input.get("regions").asInt());
    var plan = plan(regions);
    try (var clients =
        new RegionalClients(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDBENCH", "bench")),
            Optional.of(input.get("endpoint").asText())
                .filter(e -> !e.isEmpty())
                .map(java.net.URI::create))) {
      var settings = PreflightSettings.defaults();
      PreflightService fanOut = service(clients, settings);
      PreflightService sequential =
          service(clients, settings.withConcurrency(1, 1).withRegionTimeout(Duration.ofMinutes(2)));
      err.printf(
          "bench preflight: warming up (SDK clients for %d regions, JIT; no latency)...%n",
          regions.size());
      for (int i = 0; i < WARMUP_ROUNDS; i++) {
        fanOut.run(plan, List.of(), "bench-warmup");
      }
      sequential.run(plan(regions.subList(0, 1)), List.of(), "bench-warmup");
      BenchChild.mark("measure");
      err.printf(
          "bench preflight: %d regions x 12 types, %d ms per API call, fan-out...%n",
          regions.size(), input.get("latencyMs").asInt());
      var reads = new java.util.concurrent.ConcurrentSkipListMap<Long, String>();
      var progress =
          new PreflightService.Progress() {
            @Override
            public void started(String region) {}

            @Override
            public void read(String region, long elapsedMs, Optional<String> problem) {
              reads.put(elapsedMs * 100 + reads.size(), region);
            }
          };
      var os =
          (com.sun.management.OperatingSystemMXBean)
              java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      PreflightReport report = fanOut.run(plan, List.of(), null, "bench", progress);
      long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
      long wallMs = (System.nanoTime() - t0) / 1_000_000;
      BenchChild.mark("baseline");
      PreflightReport baseline = null;
      Long baselineMs = null;
      if (input.path("baseline").asBoolean(true)) {
        err.println("bench preflight: baseline, one call after another...");
        long t1 = System.nanoTime();
        baseline = sequential.run(plan, List.of(), "bench-baseline");
        baselineMs = (System.nanoTime() - t1) / 1_000_000;
      }
      var r = new LinkedHashMap<String, Object>();
      r.put("instanceTypes", plan.instanceTypes().size());
      r.put("slowestRegionReadMs", reads.isEmpty() ? null : reads.lastKey() / 100);
      r.put("fastestRegionReadMs", reads.isEmpty() ? null : reads.firstKey() / 100);
      r.put("wallMs", wallMs);
      r.put("processCpuMs", cpuMs);
      r.put("baselineMs", baselineMs);
      r.put(
          "speedup",
          baselineMs == null ? null : Math.round(10.0 * baselineMs / Math.max(1, wallMs)) / 10.0);
      r.put("verdicts", counts(report));
      r.put("baselineVerdicts", baseline == null ? null : counts(baseline));
      r.put("noUnknown", report.count(Verdict.UNKNOWN) == 0);
      return r;
    }
  }

  private static PreflightService service(RegionalClients clients, PreflightSettings settings) {
    return PreflightWiring.service(
        clients, "us-east-1", OnDemandPrices.none(), settings, Clock.systemUTC());
  }

  private static Map<String, Long> counts(PreflightReport r) {
    var m = new LinkedHashMap<String, Long>();
    for (Verdict v : Verdict.values()) {
      m.put(v.name(), r.count(v));
    }
    return m;
  }
}
