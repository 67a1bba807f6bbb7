package io.gpufleet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.drain.DrainHandler;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.DrainWiring;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code gpufleet simulate}: builds the simulated account and cluster, replays every file in {@code
 * events/} through the real handlers (event times rebased to simulated now) and prints each
 * outcome. No credentials, no network beyond loopback, no Docker.
 */
final class SimulateCommand {
  private static final Set<String> DRAIN_TYPES =
      Set.of(
          "EC2 Spot Instance Interruption Warning",
          "EC2 Instance Rebalance Recommendation",
          "EC2 Instance State-change Notification",
          "AWS Health Event",
          "EC2 Instance-terminate Lifecycle Action",
          "EC2 Instance-launch Lifecycle Action");

  private final PrintStream out;
  private final PrintStream err;

  SimulateCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** One replayed event file and what the handler answered. */
  record Replay(String file, String function, List<DrainOutcome> outcomes, String note) {}

  int run(List<String> argv) throws Exception {
    var args = Args.parse("simulate", argv, Set.of("events", "speed"), Set.of("json"));
    Path eventsDir = args.get("events").map(Path::of).orElse(Main.home().resolve("events"));
    if (!Files.isDirectory(eventsDir)) {
      throw new ConfigException(
          "simulate: events directory " + eventsDir + " does not exist (--events DIR)");
    }
    double speed = args.number("speed", 20, 1, 1000);
    boolean json = args.flag("json");
    List<Path> files = eventFiles(eventsDir);
    var time = new SimTime(Instant.now(), speed);
    try (var cluster = SimCluster.start(time);
        KubernetesClient client = cluster.newClient();
        var awsStub = io.gpufleet.sim.aws.AwsStubServer.start();
        var autoScaling =
            software.amazon.awssdk.services.autoscaling.AutoScalingClient.builder()
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(
                    software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                            "AKIDSIMULATED", "simulated")))
                .endpointOverride(awsStub.endpoint())
                .build()) {
      // a simulated Auto Scaling group: lifecycle hooks in the samples wait in it until the
      // drain completes them (or their heartbeat timeout passes)
      var asg = new io.gpufleet.sim.aws.SimAutoScaling(awsStub, time.clock());
      var continuations = new ArrayList<String>();
      DemoFleet.populate(cluster);
      DemoFleet.populateNodePools(cluster);
      var publisher = new Recorders.RecordingPublisher();
      var notifier = new Recorders.RecordingNotifier();
      var metrics = new Recorders.RecordingMetrics();
      var service =
          DrainWiring.service(
              client,
              DrainSettings.defaults(DemoFleet.CLUSTER),
              metrics,
              publisher,
              notifier,
              time.clock(),
              time.sleeper(),
              new io.gpufleet.drain.aws.AutoScalingLifecycleAdapter(autoScaling),
              (body, delay) -> continuations.add(body));
      var drain = new DrainHandler(service, metrics, time.clock());
      // load the client and model classes before the clock matters (simulated time runs fast)
      service.dryRun(DemoFleet.NODES.get(0).instanceId());
      if (!json) {
        err.printf(
            "GPU Fleet Ops simulate: account 123456789012 (us-east-1), cluster %s with %d GPU nodes and %d pods;"
                + " simulated time runs x%.0f; replaying %d event files from %s%n",
            DemoFleet.CLUSTER,
            DemoFleet.NODES.size(),
            DemoFleet.podCount(cluster),
            speed,
            files.size(),
            eventsDir);
      }
      var replays = new ArrayList<Replay>();
      byte[] firstDrainEvent = null;
      String firstDrainFile = null;
      for (Path file : files) {
        JsonNode event = Json.MAPPER.readTree(Files.readAllBytes(file));
        String type = event.path("detail-type").asText();
        if (BudgetsSimulation.handles(event)) {
          continue;
        }
        if (PreflightSimulation.handles(event)) {
          continue; // replayed by the capacity preflight's simulation below
        }
        if (!DRAIN_TYPES.contains(type)) {
          replays.add(
              new Replay(
                  file.getFileName().toString(),
                  "-",
                  List.of(),
                  "no function handles '" + type + "' yet"));
          continue;
        }
        asg.holdFor(event, java.time.Duration.ofMinutes(15));
        byte[] payload = io.gpufleet.sim.SimEvents.rebase(event, time.now());
        if (!json) {
          err.printf("  %s -> interruption-drain ...%n", file.getFileName());
        }
        replays.add(
            new Replay(
                file.getFileName().toString(), "interruption-drain", invoke(drain, payload), null));
        if (firstDrainEvent == null && type.startsWith("EC2 Spot")) {
          firstDrainEvent = payload;
          firstDrainFile = file.getFileName().toString();
        }
      }
      if (firstDrainEvent != null) {
        replays.add(
            new Replay(
                firstDrainFile + " (delivered again)",
                "interruption-drain",
                invoke(drain, firstDrainEvent),
                null));
      }
      var preflight = new PreflightSimulation(err);
      var preflightReplays = preflight.replay(files, client, json);
      if (json) {
        var all = new ArrayList<Object>();
        replays.forEach(r -> all.addAll(r.outcomes()));
        preflightReplays.forEach(r -> all.add(r.outcome()));
        out.println(Json.writePretty(all));
      } else {
        print(replays, metrics, publisher, notifier);
        printAutoScaling(asg, continuations);
        new BudgetsSimulation(out, err).run(files);
        preflight.print(preflightReplays, out);
      }
      CostSimulation.run(out, err, json);
      return 0;
    }
  }

  static List<Path> eventFiles(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      var files = s.filter(p -> p.toString().endsWith(".json")).toList();
      // replay in the order the events happened
      return files.stream()
          .sorted(Comparator.comparing(SimulateCommand::eventTime).thenComparing(Path::toString))
          .toList();
    }
  }

  private static String eventTime(Path p) {
    try {
      return Json.MAPPER.readTree(Files.readAllBytes(p)).path("time").asText("");
    } catch (IOException e) {
      return "";
    }
  }

  static List<DrainOutcome> invoke(DrainHandler handler, byte[] payload) throws IOException {
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload), output, new LocalContext("interruption-drain", 170_000));
    return Json.MAPPER.readValue(
        output.toByteArray(),
        TypeFactory.defaultInstance().constructCollectionType(List.class, DrainOutcome.class));
  }

  private void print(
      List<Replay> replays,
      Recorders.RecordingMetrics metrics,
      Recorders.RecordingPublisher publisher,
      Recorders.RecordingNotifier notifier) {
    var table =
        new Table(
            "EVENT FILE",
            "KIND",
            "INSTANCE",
            "NODE",
            "STATUS",
            "EVICTED",
            "NOT EVICTED",
            "CORDONED",
            "ISSUED",
            "ALL GONE",
            "DEADLINE");
    for (Replay r : replays) {
      if (r.outcomes().isEmpty()) {
        table.add(r.file(), "-", "-", "-", "SKIPPED", "-", "-", "-", "-", "-", r.note());
      }
      for (DrainOutcome o : r.outcomes()) {
        var t = o.timings();
        table.add(
            r.file(),
            o.kind(),
            o.instanceId(),
            o.node(),
            o.status(),
            o.podsEvicted() == null ? 0 : o.podsEvicted().size(),
            o.podsNotEvicted() == null ? 0 : o.podsNotEvicted().size(),
            t == null ? null : ms(t.cordonedMs()),
            t == null || o.status() == DrainOutcome.Status.CORDONED
                ? null
                : ms(t.evictionsIssuedMs()),
            t == null ? null : ms(t.allGoneMs()),
            o.deadlineMet() == null ? "-" : o.deadlineMet() ? "met" : "MISSED");
      }
    }
    out.println();
    out.print(table.render());
    out.println("(times are simulated milliseconds from receipt)");
    for (Replay r : replays) {
      for (DrainOutcome o : r.outcomes()) {
        if (o.podsNotEvicted() != null && !o.podsNotEvicted().isEmpty()) {
          out.println();
          out.println("Did not make it on " + o.node() + " (" + r.file() + "):");
          o.podsNotEvicted()
              .forEach(p -> out.println("  " + p.pod() + "  " + p.status() + "  " + p.reason()));
        }
        if (o.gracePeriodCapped() != null && !o.gracePeriodCapped().isEmpty()) {
          out.println();
          out.println("Grace period capped to the time left on " + o.node() + ":");
          o.gracePeriodCapped()
              .forEach(
                  p ->
                      out.println(
                          "  "
                              + p.pod()
                              + "  asked "
                              + p.gracePeriodRequested()
                              + "s, got "
                              + p.gracePeriodGranted()
                              + "s"));
        }
        if (o.status() != DrainOutcome.Status.DRAINED
            && o.status() != DrainOutcome.Status.PARTIAL
            && o.message() != null) {
          out.println();
          out.println(o.status() + " " + o.instanceId() + ": " + o.message());
        }
      }
    }
    out.println();
    out.println(
        "Published "
            + publisher.published.size()
            + " EventBridge outcome events and "
            + notifier.sent.size()
            + " notifications.");
    out.println("Metrics: " + metrics.snapshot());
  }

  /** What the simulated Auto Scaling group saw: heartbeats and completed lifecycle actions. */
  private void printAutoScaling(
      io.gpufleet.sim.aws.SimAutoScaling asg, List<String> continuations) {
    if (asg.completions().isEmpty() && asg.allPending().isEmpty()) {
      return;
    }
    out.println();
    out.println("Auto Scaling (simulated) lifecycle actions:");
    for (var c : asg.completions()) {
      long beats =
          asg.heartbeats().stream().filter(h -> h.instanceId().equals(c.instanceId())).count();
      out.println(
          "  CompleteLifecycleAction "
              + c.group()
              + " / "
              + c.hook()
              + "  "
              + c.instanceId()
              + "  "
              + c.result()
              + (c.byTimeout() ? " (hook timed out: default result)" : "")
              + "  after "
              + beats
              + " heartbeat(s)");
    }
    for (var p : asg.allPending()) {
      out.println(
          "  still waiting: "
              + p.group
              + " / "
              + p.hook
              + "  "
              + p.instanceId
              + "  until "
              + p.timeoutAt());
    }
    if (!continuations.isEmpty()) {
      out.println("  " + continuations.size() + " drain continuation(s) queued");
    }
  }

  private static String ms(Long v) {
    return v == null ? "-" : v + "ms";
  }
}
