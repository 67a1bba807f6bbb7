package io.gpufleet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.json.Json;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.scenario.CheckpointTimelines;
import io.gpufleet.scenario.LocalInvoke;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpufleet simulate}: builds the simulated account and cluster, replays every file in {@code
 * events/} through the real handlers (event times rebased to simulated now) and prints each
 * outcome. No credentials, no network beyond loopback, no Docker.
 */
@Command(
    name = "simulate",
    description = {
      "Replay events/ through the real handlers, against a simulated account and cluster.",
      "No credentials, no network beyond loopback, no Docker. Each event file runs on a fresh copy"
          + " of the cluster; the other functions' samples run through their own simulations."
    })
final class SimulateCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  @Option(
      names = "--events",
      paramLabel = "DIR",
      description = "Event files to replay (default: events/ of the project).")
  Path events;

  @Option(
      names = "--speed",
      paramLabel = "N",
      defaultValue = "20",
      description = "Simulated time runs N times faster than real time, 1 to 1000 (default: 20).")
  double speed;

  @Option(names = "--json", description = "Print every outcome as one JSON array on stdout.")
  boolean json;

  SimulateCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** One replayed event file and what the handler answered. */
  record Replay(String file, String function, List<DrainOutcome> outcomes, String note) {}

  @Override
  public Integer call() throws Exception {
    Cli.within(spec, "--speed", speed, 1, 1000);
    Path eventsDir = events != null ? events : ProjectHome.path().resolve("events");
    if (!Files.isDirectory(eventsDir)) {
      throw new ConfigException(
          "simulate: events directory " + eventsDir + " does not exist (--events DIR)");
    }
    List<Path> files = eventFiles(eventsDir);
    var publisher = new Recorders.RecordingPublisher();
    var notifier = new Recorders.RecordingNotifier();
    var metrics = new Recorders.RecordingMetrics();
    // the other functions' simulations read their samples as JSON: only readable files go there
    var readable = new ArrayList<Path>();
    for (Path file : files) {
      if (readObject(file) != null) {
        readable.add(file);
      }
    }
    try (var cluster = SimCluster.start(new SimTime(Instant.now(), speed));
        KubernetesClient client = cluster.newClient()) {
      DemoFleet.populate(cluster);
      DemoFleet.populateNodePools(cluster);
      if (!json) {
        err.printf(
            "GPU Fleet Ops simulate: account 123456789012 (us-east-1), cluster %s with %d GPU nodes and %d pods"
                + " (the drain also serves cluster "
                + DrainSim.SECOND_CLUSTER
                + ", 2 nodes);"
                + " simulated time runs x%.0f; replaying %d event files from %s, each on a fresh"
                + " copy of the cluster%n",
            DemoFleet.CLUSTER,
            DemoFleet.NODES.size(),
            DemoFleet.podCount(cluster),
            speed,
            files.size(),
            eventsDir);
      }
      var replays = new ArrayList<Replay>();
      var autoScalingLines = new ArrayList<String>();
      for (Path file : files) {
        String name = file.getFileName().toString();
        JsonNode event = readObject(file);
        byte[] raw = Files.readAllBytes(file);
        if (event != null
            && (BudgetsSimulation.handles(event) || PreflightSimulation.handles(event))) {
          continue; // replayed by the disruption schedule's / capacity preflight's simulation below
        }
        String type = event == null ? "" : event.path("detail-type").asText();
        if (event != null && !EventDecoder.knows(event.path("source").asText(), type)) {
          replays.add(new Replay(name, "-", List.of(), "no function handles '" + type + "' yet"));
          continue;
        }
        if (!json) {
          err.printf("  %s -> interruption-drain ...%n", name);
        }
        // every file on a fresh cluster, so samples that reuse an event id do not collide
        try (var drain = DrainSim.start(speed, metrics, publisher, notifier)) {
          if (event != null) {
            drain.asg.holdFor(event, java.time.Duration.ofMinutes(15));
          }
          byte[] payload =
              event == null ? raw : io.gpufleet.sim.SimEvents.rebase(event, drain.time.now());
          replays.add(
              new Replay(
                  name, "interruption-drain", LocalInvoke.drain(drain.handler, payload), null));
          if (type.startsWith("EC2 Spot")
              && replays.stream().noneMatch(r -> r.file().endsWith("(delivered again)"))) {
            replays.add(
                new Replay(
                    name + " (delivered again)",
                    "interruption-drain",
                    LocalInvoke.drain(drain.handler, payload),
                    null));
          }
          autoScalingLines.addAll(autoScalingLines(drain.asg, drain.continuations));
          autoScalingLines.addAll(groupLines(drain.groups));
        }
      }
      var preflight = new PreflightSimulation(err);
      var preflightReplays = preflight.replay(readable, client, json);
      if (json) {
        var all = new ArrayList<Object>();
        replays.forEach(r -> all.addAll(r.outcomes()));
        preflightReplays.forEach(r -> all.add(r.outcome()));
        out.println(Json.writePretty(all));
      } else {
        print(replays, metrics, publisher, notifier);
        printAutoScaling(autoScalingLines);
        new BudgetsSimulation(out, err).run(readable);
        preflight.print(preflightReplays, out);
      }
      CostSimulation.run(out, err, json);
      return 0;
    }
  }

  /** The file as a JSON object, or null when it is not one (the drain then rejects it). */
  static JsonNode readObject(Path file) {
    try {
      JsonNode node = Json.readPayload(Files.readAllBytes(file));
      return node != null && node.isObject() ? node : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** The demo fleet on a fresh simulated cluster and the real drain handler over it. */
  static final class DrainSim implements AutoCloseable {
    final SimTime time;
    final SimCluster cluster;
    final KubernetesClient client;
    final DrainHandler handler;
    // a simulated Auto Scaling group: lifecycle hooks in the samples wait in it until the drain
    // completes them (or their heartbeat timeout passes)
    final io.gpufleet.sim.aws.AwsStubServer awsStub;
    final software.amazon.awssdk.services.autoscaling.AutoScalingClient autoScaling;
    final io.gpufleet.sim.aws.SimAutoScaling asg;
    final List<String> continuations = java.util.Collections.synchronizedList(new ArrayList<>());
    final io.gpufleet.drain.DrainService service;

    private DrainSim(
        double speed,
        Recorders.RecordingMetrics metrics,
        Recorders.RecordingPublisher publisher,
        Recorders.RecordingNotifier notifier) {
      time = new SimTime(Instant.now(), speed);
      cluster = SimCluster.start(time);
      client = cluster.newClient();
      DemoFleet.populate(cluster);
      DemoFleet.populateCapacityBlock(cluster);
      awsStub = io.gpufleet.sim.aws.AwsStubServer.start();
      autoScaling =
          software.amazon.awssdk.services.autoscaling.AutoScalingClient.builder()
              .region(software.amazon.awssdk.regions.Region.US_EAST_1)
              .credentialsProvider(
                  software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                      software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                          "AKIDSIMULATED", "simulated")))
              .endpointOverride(awsStub.endpoint())
              .build();
      asg = new io.gpufleet.sim.aws.SimAutoScaling(awsStub, time);
      // one stack, two clusters: the demo fleet and a research cluster whose managed node group
      // node runs in the demo Capacity Block without Karpenter's label
      second = SimCluster.start(time);
      secondClient = second.newClient();
      populateSecondCluster(second);
      var kubes = new java.util.LinkedHashMap<String, KubernetesClient>();
      kubes.put(DemoFleet.CLUSTER, client);
      kubes.put(SECOND_CLUSTER, secondClient);
      service =
          DrainWiring.routed(
              kubes,
              io.gpufleet.drain.ClusterList.of(DemoFleet.CLUSTER, SECOND_CLUSTER),
              DrainWiring.Parts.of(DrainSettings.defaults(DemoFleet.CLUSTER))
                  .reportingTo(metrics, publisher, notifier)
                  .timedBy(time)
                  .withLifecycle(
                      new io.gpufleet.drain.aws.AutoScalingLifecycleAdapter(autoScaling),
                      (body, delay) -> continuations.add(body)));
      // what EC2 DescribeInstances answers for the demo Capacity Block: one instance per cluster
      service.findReservationInstancesWith(
          id ->
              id.equals(DemoFleet.CAPACITY_BLOCK)
                  ? List.of(DemoFleet.NODES.get(1).instanceId(), SECOND_INSTANCE)
                  : List.of());
      // the research cluster's Spot node group opted in to replacement before removal: a raised
      // group's new instance joins that cluster and is Ready REPLACEMENT_BOOT later
      groups = new io.gpufleet.sim.aws.SimAutoScalingGroups(awsStub);
      groups.add(
          SECOND_SPOT_GROUP,
          1,
          3,
          false,
          java.util.Map.of(io.gpufleet.drain.EarlyReplacement.OPT_IN, "true"),
          SECOND_SPOT_INSTANCE);
      var joined = new java.util.concurrent.atomic.AtomicInteger(40);
      groups.onLaunch(
          (group, id) ->
              second.joinNode(
                  SimCluster.gpuNode(
                      "ip-10-2-9-" + joined.incrementAndGet() + ".ec2.internal",
                      id,
                      "us-east-1b",
                      "g6e.12xlarge",
                      "spot",
                      null,
                      group,
                      4),
                  REPLACEMENT_BOOT));
      service.replaceEarlyWith(
          new io.gpufleet.drain.aws.AutoScalingReplacementAdapter(autoScaling));
      handler = new DrainHandler(service, metrics, time.clock());
      // load the client and model classes before the clock matters (simulated time runs fast)
      service.dryRun(DemoFleet.NODES.get(0).instanceId());
    }

    static final String SECOND_CLUSTER = "sim-research-cluster";
    static final String SECOND_INSTANCE = "i-0c1d2e3f4a5b6c7d8";
    static final String SECOND_SPOT_INSTANCE = "i-0d2e3f4a5b6c7d8e9";
    static final String SECOND_SPOT_GROUP = "ng-research-spot";

    /**
     * Launch to Ready of a replacement g6e node with its image cached (a cold GPU node takes 3-8
     * minutes; the rebalance hold lasts at most the drain's time limit, see the docs).
     */
    static final java.time.Duration REPLACEMENT_BOOT = java.time.Duration.ofSeconds(75);

    final io.gpufleet.sim.aws.SimAutoScalingGroups groups;
    final SimCluster second;
    final KubernetesClient secondClient;

    /**
     * The research cluster: a managed node group p5 node in the Capacity Block (no Karpenter label)
     * and a Spot g6e node, each with training pods.
     */
    static void populateSecondCluster(SimCluster c) {
      c.create(
          SimCluster.gpuNode(
              "ip-10-2-5-17.ec2.internal",
              SECOND_INSTANCE,
              "us-east-1c",
              "p5.48xlarge",
              "on-demand",
              null,
              "ng-research-cb",
              8));
      c.create(
          SimCluster.gpuNode(
              "ip-10-2-9-40.ec2.internal",
              SECOND_SPOT_INSTANCE,
              "us-east-1b",
              "g6e.12xlarge",
              "spot",
              null,
              "ng-research-spot",
              4));
      // a batch evaluation Job on the Spot node: evicted at once on a rebalance, while the
      // replicas wait for the node group's replacement
      c.create(
          SimCluster.runningPod(
              "research",
              "eval-job-0",
              "ip-10-2-9-40.ec2.internal",
              "Job",
              "eval-job",
              java.util.Map.of("app", "eval-job"),
              30,
              0));
      for (String node : List.of("ip-10-2-5-17.ec2.internal", "ip-10-2-9-40.ec2.internal")) {
        for (int i = 0; i < 3; i++) {
          c.create(
              SimCluster.runningPod(
                  "research",
                  "train-" + node.substring(3, 11).replace('.', '-') + "-" + i,
                  node,
                  "ReplicaSet",
                  "train",
                  java.util.Map.of("app", "train"),
                  30,
                  1));
        }
      }
    }

    static DrainSim start(
        double speed,
        Recorders.RecordingMetrics metrics,
        Recorders.RecordingPublisher publisher,
        Recorders.RecordingNotifier notifier) {
      return new DrainSim(speed, metrics, publisher, notifier);
    }

    @Override
    public void close() {
      secondClient.close();
      second.close();
      autoScaling.close();
      awsStub.close();
      client.close();
      cluster.close();
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
            "CLUSTER",
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
        table.add(r.file(), "-", "-", "-", "-", "SKIPPED", "-", "-", "-", "-", "-", r.note());
      }
      for (DrainOutcome o : r.outcomes()) {
        var t = o.timings();
        table.add(
            r.file(),
            o.kind(),
            o.instanceId(),
            o.cluster(),
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
        CheckpointTimelines.print(out, o);
        printReplacement(o);
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

  /** What the simulated Auto Scaling groups saw: heartbeats and completed lifecycle actions. */
  private void printAutoScaling(List<String> lines) {
    if (lines.isEmpty()) {
      return;
    }
    out.println();
    out.println("Auto Scaling (simulated) lifecycle actions:");
    lines.forEach(out::println);
  }

  /** One replay's lifecycle actions, as lines for {@link #printAutoScaling}. */
  private static List<String> autoScalingLines(
      io.gpufleet.sim.aws.SimAutoScaling asg, List<String> continuations) {
    var lines = new ArrayList<String>();
    for (var c : asg.completions()) {
      long beats =
          asg.heartbeats().stream().filter(h -> h.instanceId().equals(c.instanceId())).count();
      lines.add(
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
      lines.add(
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
      lines.add("  " + continuations.size() + " drain continuation(s) queued");
    }
    return lines;
  }

  /** What replacement before removal did for a drained node, in ms from receipt. */
  private void printReplacement(DrainOutcome o) {
    var r = o.replacement();
    if (r == null) {
      return;
    }
    out.println();
    out.println("Replacement before removal for " + o.node() + " (group " + r.group() + "):");
    out.println(
        "  "
            + r.action()
            + "  desired capacity "
            + r.desiredBefore()
            + " before, "
            + r.desiredAfter()
            + " at the end"
            + (r.raisedAt() == null ? "" : ", raised at " + since(o, r.raisedAt())));
    if (r.inferenceHeld() != null) {
      out.println(
          "  inference replicas held: "
              + String.join(", ", r.inferenceHeld())
              + " (until "
              + r.heldUntil()
              + (r.replacementReadyAt() == null ? "" : ", at " + since(o, r.replacementReadyAt()))
              + ")");
    }
    if (r.terminatedAt() != null) {
      out.println(
          "  old instance terminated with ShouldDecrementDesiredCapacity at "
              + since(o, r.terminatedAt()));
    }
    if (r.note() != null) {
      out.println("  " + r.note());
    }
  }

  private static String since(DrainOutcome o, java.time.Instant at) {
    return java.time.Duration.between(o.receivedAt(), at).toMillis() + "ms";
  }

  /** What the simulated groups' desired capacities went through (replacement before removal). */
  private static List<String> groupLines(io.gpufleet.sim.aws.SimAutoScalingGroups groups) {
    var lines = new ArrayList<String>();
    var calls = groups.setDesiredCalls();
    if (!calls.isEmpty()) {
      var g = groups.group(DrainSim.SECOND_SPOT_GROUP);
      lines.add(
          "  SetDesiredCapacity "
              + String.join(", ", calls)
              + "; group "
              + g.name
              + " ends at desired "
              + g.desired
              + " with "
              + g.instances);
    }
    return lines;
  }

  private static String ms(Long v) {
    return v == null ? "-" : v + "ms";
  }
}
