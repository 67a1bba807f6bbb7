package io.gpufleet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.preflight.DedupeStorePort;
import io.gpufleet.preflight.PlanLoaderPort;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.ReportStorePort;
import io.gpufleet.preflight.aws.RegionalClients;
import io.gpufleet.preflight.k8s.NodePoolAdapter;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.RunOutcome;
import io.gpufleet.preflight.wiring.PreflightHandler;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The capacity preflight's part of {@code gpufleet simulate}: its samples in events/ (quota alarm
 * state changes, the daily schedule's payload) go through the real handler against a simulated
 * account (an AWS stub serving EC2, Service Quotas and CloudWatch shapes to the real SDK clients)
 * and the demo cluster's NodePools. Each sample that acts is delivered a second time to show that
 * repeats are no-ops. Automatic quota increases are on (cap 1,536 vCPU) to show the request.
 */
final class PreflightSimulation {
  static final double INCREASE_CAP = 1536;

  /** One replayed file and the function's answer. */
  record Replay(String file, String trigger, RunOutcome outcome) {}

  private final PrintStream err;
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final List<String> saved = new ArrayList<>();
  private int increaseRequests;

  PreflightSimulation(PrintStream err) {
    this.err = err;
  }

  /** True for the samples this simulation replays. */
  static boolean handles(JsonNode event) {
    return "CloudWatch Alarm State Change".equals(event.path("detail-type").asText())
        || (!event.has("detail-type") && (event.has("scheduleArn") || event.has("plan")));
  }

  List<Replay> replay(List<Path> files, KubernetesClient kube, boolean quiet) throws IOException {
    var mine = new ArrayList<Path>();
    var plans = new ArrayList<JsonNode>();
    for (Path f : files) {
      JsonNode e = Json.MAPPER.readTree(Files.readAllBytes(f));
      if (handles(e)) {
        mine.add(f);
        if (e.has("plan")) {
          plans.add(e.get("plan"));
        }
      }
    }
    var replays = new ArrayList<Replay>();
    if (mine.isEmpty()) {
      return replays;
    }
    var regions = new ArrayList<>(List.of("us-east-1"));
    for (JsonNode p : plans) {
      p.path("regions")
          .forEach(
              r -> {
                if (!regions.contains(r.asText())) {
                  regions.add(r.asText());
                }
              });
    }
    try (var stub = AwsStubServer.start();
        var clients =
            new RegionalClients(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "sim")),
                Optional.of(stub.endpoint()))) {
      var account =
          new SimCapacityAccount(stub).install().seedDemo(regions).installPricing(regions);
      var settings = PreflightSettings.defaults().withIncrease(true, INCREASE_CAP);
      if (!plans.isEmpty()) {
        settings = settings.withPlanText(plans.get(0).toString());
      }
      var service =
          PreflightWiring.service(
              clients,
              "us-east-1",
              PreflightCommand.simulatedPrices(stub),
              settings,
              Clock.systemUTC());
      ReportStorePort store = PreflightSimulation.recordingStore(saved);
      var function =
          PreflightWiring.function(
              service,
              DedupeStorePort.inMemory(1000),
              store,
              PlanLoaderPort.NONE,
              new NodePoolAdapter(kube),
              metrics,
              publisher,
              notifier,
              "us-east-1");
      var handler = new PreflightHandler(function, metrics);
      for (Path f : mine) {
        byte[] payload = Files.readAllBytes(f);
        String name = f.getFileName().toString();
        if (!quiet) {
          err.printf("  %s -> capacity-preflight ...%n", name);
        }
        RunOutcome o = invoke(handler, payload);
        replays.add(new Replay(name, trigger(payload), o));
        if (o.status().equals("HANDLED") || o.status().equals(RunOutcome.REPORTED)) {
          replays.add(
              new Replay(name + " (delivered again)", trigger(payload), invoke(handler, payload)));
        }
      }
      increaseRequests = account.requests().size();
    }
    return replays;
  }

  private static String trigger(byte[] payload) throws IOException {
    JsonNode e = Json.MAPPER.readTree(payload);
    return e.has("detail-type")
        ? "quota alarm " + e.path("detail").path("state").path("value").asText()
        : "daily schedule";
  }

  static RunOutcome invoke(PreflightHandler handler, byte[] payload) throws IOException {
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload), output, new LocalContext("capacity-preflight", 300_000));
    return Json.MAPPER.readValue(output.toByteArray(), RunOutcome.class);
  }

  void print(List<Replay> replays, PrintStream out) {
    if (replays.isEmpty()) {
      return;
    }
    var table = new Table("EVENT FILE", "TRIGGER", "STATUS", "WHAT HAPPENED");
    for (Replay r : replays) {
      table.add(r.file(), r.trigger(), r.outcome().status(), r.outcome().message());
    }
    out.println();
    out.println("Capacity preflight (simulated account 123456789012, AWS stub, demo NodePools):");
    out.print(table.render());
    for (Replay r : replays) {
      if (r.outcome().alarm() != null && r.outcome().alarm().increase() != null) {
        var a = r.outcome().alarm();
        out.println();
        out.println(r.file() + ": " + a.quota() + " in " + a.region());
        a.plansAtRisk().forEach(p -> out.println("  at risk: " + p));
        a.poolsAtRisk().forEach(p -> out.println("  NodePool: " + p));
        out.println("  quota increase: " + a.increase());
      }
      PreflightReport report = r.outcome().report();
      if (report != null) {
        out.println();
        out.println(r.file() + ": plan '" + report.plan() + "' -> " + r.outcome().reportUri());
        report
            .regions()
            .forEach(
                x ->
                    out.println(
                        "  "
                            + x.rank()
                            + ". "
                            + x.region()
                            + " "
                            + x.verdict()
                            + (x.blockers().isEmpty()
                                ? (x.warnings().isEmpty() ? "" : ": " + x.warnings().get(0))
                                : ": " + x.blockers().get(0))));
      }
    }
    out.println();
    out.println(
        "Preflight: "
            + saved.size()
            + " report(s) to S3, "
            + publisher.published.size()
            + " EventBridge event(s), "
            + notifier.sent.size()
            + " notification(s), "
            + increaseRequests
            + " quota increase request(s) (cap "
            + Math.round(INCREASE_CAP)
            + " vCPU).");
  }

  Map<String, Double> metricsSnapshot() {
    return metrics.snapshot();
  }

  /** A report store that keeps nothing but answers, and records, a simulated S3 URI per report. */
  static ReportStorePort recordingStore(List<String> saved) {
    return report -> {
      String uri =
          "s3://gpufleet-sim-results/preflight/reports/"
              + report.plan()
              + "-"
              + (saved.size() + 1)
              + ".json";
      saved.add(uri);
      return Optional.of(uri);
    };
  }
}
