package io.gpufleet.cli;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.pricing.api.OnDemandPricing;
import io.gpufleet.core.store.DirectoryBlobStore;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.cost.CostReportService;
import io.gpufleet.cost.CostReporting;
import io.gpufleet.cost.CostSettings;
import io.gpufleet.cost.k8s.CostClusterAdapter;
import io.gpufleet.cost.wiring.CostHandler;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.preflight.DedupeStorePort;
import io.gpufleet.preflight.PlanLoaderPort;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.ReportStorePort;
import io.gpufleet.preflight.aws.RegionalClients;
import io.gpufleet.preflight.k8s.NodePoolAdapter;
import io.gpufleet.preflight.wiring.PreflightHandler;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.scenario.LocalInvoke;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.schedule.PolicySourcePort;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.wiring.ScheduleHandler;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.PricingStub;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * {@code gpufleet invoke FUNCTION FILE...}: each payload file goes, as raw bytes, through the
 * function's real Lambda handler, against the simulated account and cluster of {@code simulate}
 * (each file on a fresh one unless {@code --shared}), or against a real cluster with {@code
 * --kubeconfig} or {@code --cluster NAME --region R} (interruption-drain and disruption-schedule).
 * A file the handler rejects is reported like any other answer; an unreadable file is reported and
 * the rest still run.
 */
@Command(
    name = "invoke",
    description = {
      "Run payload files through a function's real Lambda handler.",
      "Against the simulated account and cluster of simulate (each file on a fresh one unless"
          + " --shared), or against a real cluster with --cluster or --kubeconfig"
          + " (interruption-drain, disruption-schedule).",
      "Exit codes: 0 every file answered (a rejection is an answer), 1 a file could not be read or"
          + " its handler failed, 2 bad flag."
    })
final class InvokeCommand implements Callable<Integer> {
  static final Map<String, String> FUNCTIONS =
      Map.of(
          "interruption-drain", "interruption-drain",
          "drain", "interruption-drain",
          "cost-report", "cost-report",
          "disruption-schedule", "disruption-schedule",
          "schedule", "disruption-schedule",
          "capacity-preflight", "capacity-preflight",
          "preflight", "capacity-preflight");

  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "FUNCTION",
      description =
          "interruption-drain (drain), cost-report, disruption-schedule (schedule),"
              + " capacity-preflight (preflight).")
  String functionName;

  @Parameters(
      index = "1..*",
      arity = "1..*",
      paramLabel = "FILE",
      description = "Payload files, sent as raw bytes.")
  List<Path> files;

  @Option(
      names = "--shared",
      description = "All files against one simulated account and cluster, in order.")
  boolean shared;

  @Option(names = "--json", description = "Print the answers as one JSON array.")
  boolean json;

  @Option(
      names = "--sqs",
      description =
          "Deliver each payload as the body of an SQS message (EventBridge -> SQS -> Lambda);"
              + " interruption-drain prints each record's outcomes.")
  boolean sqs;

  @Option(
      names = "--node-per-instance",
      description =
          "interruption-drain, simulated: give every instance a payload names a simulated GPU"
              + " node (with two pods) first, so fixtures with their own instance ids are acted on.")
  boolean nodePerInstance;

  @Option(
      names = "--rebase",
      description = "Move each payload's event time to simulated now (simulated runs only).")
  boolean rebase;

  @Option(
      names = "--speed",
      paramLabel = "N",
      defaultValue = "20",
      description = "Simulated time runs N times faster, 1 to 1000 (default: 20).")
  double speed;

  @Option(
      names = "--policy",
      paramLabel = "FILE",
      description =
          "disruption-schedule policy (default: deploy/policy/disruption-schedule.example.yaml).")
  Path policy;

  @picocli.CommandLine.Mixin ClusterTarget target = new ClusterTarget();

  InvokeCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** One file's run: its name, the function and what the handler answered (or why not). */
  record Result(String file, String function, JsonNode answer, String error) {}

  /** A handler with the state it runs against; closed after its file(s). */
  interface Env extends AutoCloseable {
    RequestStreamHandler handler();

    /** Called before each payload (the schedule's clock follows the tick). */
    default void before(byte[] payload) {}

    /** The handler's answer to one payload. */
    default JsonNode invoke(String function, byte[] payload) throws IOException {
      return answer(handler(), function, payload);
    }

    @Override
    default void close() throws Exception {}
  }

  @Override
  public Integer call() throws Exception {
    String function = FUNCTIONS.get(functionName);
    if (function == null) {
      throw Cli.bad(
          spec,
          "unknown function '"
              + functionName
              + "' (known: interruption-drain, cost-report, disruption-schedule,"
              + " capacity-preflight)");
    }
    Cli.within(spec, "--speed", speed, 1, 1000);
    target.checkContext(spec, target.kubeconfig);
    boolean real = target.kubeconfig || target.cluster != null;
    if (real && !Set.of("interruption-drain", "disruption-schedule").contains(function)) {
      throw new ConfigException(
          "invoke: "
              + function
              + " runs against the simulated account only; for a real one use gpufleet "
              + (function.equals("cost-report") ? "cost-report" : "preflight"));
    }
    var results = new ArrayList<Result>();
    Env shared = this.shared || real ? env(function, real) : null;
    try {
      for (Path file : files) {
        byte[] payload;
        try {
          payload = Files.readAllBytes(file);
        } catch (IOException e) {
          results.add(new Result(file.toString(), function, null, "cannot read: " + e));
          continue;
        }
        if (rebase && !real) {
          payload = rebase(payload);
        }
        if (sqs) {
          payload = sqsEvent(file.getFileName().toString(), payload);
        }
        Env env = shared != null ? shared : env(function, false);
        try {
          env.before(payload);
          results.add(new Result(file.toString(), function, env.invoke(function, payload), null));
        } catch (RuntimeException | IOException e) {
          results.add(new Result(file.toString(), function, null, "handler failed: " + e));
        } finally {
          if (shared == null) {
            env.close();
          }
        }
      }
    } finally {
      if (shared != null) {
        shared.close();
      }
    }
    print(results, json);
    return results.stream().anyMatch(r -> r.error() != null) ? 1 : 0;
  }

  static JsonNode answer(RequestStreamHandler handler, String function, byte[] payload)
      throws IOException {
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload),
        output,
        new LocalContext(function, LocalInvoke.TIMEOUT_MILLIS.get(function)));
    try {
      return Json.MAPPER.readTree(output.toByteArray());
    } catch (IOException e) {
      return Json.MAPPER.getNodeFactory().textNode(output.toString(StandardCharsets.UTF_8));
    }
  }

  /**
   * The payload as the body of one SQS message, as the drain's queue delivers it (a payload that
   * already is an SQS event is left as it is).
   */
  static byte[] sqsEvent(String name, byte[] payload) {
    if (io.gpufleet.drain.SqsBatch.parse(payload).isPresent()) {
      return payload;
    }
    var record = Json.MAPPER.createObjectNode();
    record.put("messageId", java.util.UUID.nameUUIDFromBytes(payload).toString());
    record.put("receiptHandle", "invoke-" + name);
    record.put("body", new String(payload, StandardCharsets.UTF_8));
    record.putObject("attributes").put("ApproximateReceiveCount", "1");
    record.putObject("messageAttributes");
    record.put("eventSource", "aws:sqs");
    record.put("eventSourceARN", "arn:aws:sqs:us-east-1:123456789012:gpufleet-drain-events");
    record.put("awsRegion", "us-east-1");
    var root = Json.MAPPER.createObjectNode();
    root.putArray("Records").add(record);
    return Json.write(root).getBytes(StandardCharsets.UTF_8);
  }

  /** An EventBridge event's time moved to now (what simulate does); anything else unchanged. */
  static byte[] rebase(byte[] payload) {
    try {
      JsonNode node = Json.readPayload(payload);
      if (node instanceof ObjectNode o && o.hasNonNull("detail-type") && o.has("time")) {
        return io.gpufleet.sim.SimEvents.rebase(o, Instant.now());
      }
    } catch (IOException | RuntimeException e) {
      // not an event: handed over as it is, for the handler to judge
    }
    return payload;
  }

  private void print(List<Result> results, boolean json) {
    if (json) {
      var array = Json.MAPPER.createArrayNode();
      for (Result r : results) {
        var o = array.addObject();
        o.put("file", r.file());
        o.put("function", r.function());
        if (r.answer() != null) {
          o.set("outcome", r.answer());
        }
        if (r.error() != null) {
          o.put("error", r.error());
        }
      }
      out.println(Json.writePretty(array));
      return;
    }
    var table =
        new Table("FILE", "FUNCTION", "RECORD", "STATUS", "KIND", "INSTANCE", "NODE", "MESSAGE");
    for (Result r : results) {
      if (r.error() != null) {
        table.add(r.file(), r.function(), "-", "ERROR", "-", "-", "-", r.error());
        continue;
      }
      for (JsonNode o : records(r.answer())) {
        table.add(
            r.file(),
            r.function(),
            o.path("messageId").asText("-"),
            o.path("status").asText("-"),
            o.path("kind").asText("-"),
            o.path("instanceId").asText("-"),
            o.path("node").asText("-"),
            brief(o.path("message").asText("")));
      }
    }
    out.print(table.render());
  }

  /** The outcome records of one answer: a drain's array, a batch response, or one outcome. */
  static List<JsonNode> records(JsonNode answer) {
    var list = new ArrayList<JsonNode>();
    if (answer.isArray()) {
      answer.forEach(list::add);
    } else if (answer.has("records")) {
      // one row per outcome of each SQS record (a record with none still gets its row)
      for (JsonNode record : answer.path("records")) {
        String id = record.path("messageId").asText();
        boolean retried = record.path("retried").asBoolean();
        if (record.path("outcomes").isEmpty()) {
          var o = Json.MAPPER.createObjectNode();
          o.put("status", retried ? "RETRIED" : "-");
          o.put("message", retried ? "left for SQS to redeliver" : "no outcome");
          list.add(o.put("messageId", id));
        }
        for (JsonNode outcome : record.path("outcomes")) {
          var o = ((ObjectNode) outcome.deepCopy()).put("messageId", id);
          list.add(retried ? o.put("message", "retried: " + o.path("message").asText()) : o);
        }
      }
    } else if (answer.has("batchItemFailures")) {
      var o = Json.MAPPER.createObjectNode();
      o.put(
          "status",
          answer.path("batchItemFailures").isEmpty() ? "BATCH_OK" : "BATCH_PARTIAL_FAILURE");
      o.put("message", "batchItemFailures " + answer.path("batchItemFailures"));
      list.add(o);
    } else {
      list.add(answer);
    }
    return list;
  }

  private static String brief(String message) {
    return message.length() > 120 ? message.substring(0, 117) + "..." : message;
  }

  // ------------------------------------------------------------------ environments

  private Env env(String function, boolean real) throws Exception {
    return switch (function) {
      case "interruption-drain" -> real ? realDrain() : new InvokeDrainSim(speed, nodePerInstance);
      case "disruption-schedule" -> real ? realSchedule() : simSchedule();
      case "cost-report" -> simCost();
      case "capacity-preflight" -> simPreflight();
      default -> throw new IllegalStateException(function);
    };
  }

  private Env realDrain() {
    String clusterName = requireCluster();
    var env = new HashMap<>(System.getenv());
    env.put("CLUSTER_NAME", clusterName);
    KubernetesClient client = target.connect("invoke", target.kubeconfig, clusterName);
    var service =
        DrainWiring.service(client, DrainWiring.Parts.of(DrainSettings.from(new Settings(env))));
    err.println("invoke: acting on the real cluster " + clusterName);
    var handler = new DrainHandler(service, MetricsPort.NONE, Clock.systemUTC());
    return new Env() {
      @Override
      public RequestStreamHandler handler() {
        return handler;
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }

  private Env simSchedule() {
    var cluster = SimCluster.start(SimTime.realTime());
    KubernetesClient client = cluster.newClient();
    DemoWorkloads.populate(cluster);
    return scheduleEnv(client, () -> cluster.close(), "gpu-prod");
  }

  private Env realSchedule() {
    String clusterName = requireCluster();
    KubernetesClient client = target.connect("invoke", target.kubeconfig, clusterName);
    err.println("invoke: acting on the real cluster " + clusterName);
    return scheduleEnv(client, () -> {}, clusterName);
  }

  private Env scheduleEnv(KubernetesClient client, Runnable closeCluster, String clusterName) {
    Path policyFile =
        policy != null ? policy : ProjectHome.path().resolve(BudgetsSimulation.POLICY);
    var policy = PolicySourcePort.file(policyFile);
    var time = new VirtualTime(Instant.EPOCH);
    Clock clock = time.clock();
    var metrics = new Recorders.RecordingMetrics();
    var service =
        ScheduleWiring.service(
            client,
            ScheduleSettings.defaults(clusterName, policy.name()),
            policy,
            metrics,
            new Recorders.RecordingPublisher(),
            NotifierPort.NONE,
            clock);
    var handler = new ScheduleHandler(service, metrics);
    return new Env() {
      @Override
      public RequestStreamHandler handler() {
        return handler;
      }

      /**
       * The clock stands a few seconds after the tick's scheduled time, as when Scheduler fires.
       */
      @Override
      public void before(byte[] payload) {
        Instant at = Instant.now();
        try {
          String t = Json.MAPPER.readTree(payload).path("detail").path("scheduledTime").asText("");
          if (!t.isBlank()) {
            at = Instant.parse(t).plusSeconds(3);
          }
        } catch (IOException | RuntimeException e) {
          // not a tick: the handler rejects it whatever the clock says
        }
        time.set(at);
      }

      @Override
      public void close() {
        client.close();
        closeCluster.run();
      }
    };
  }

  private static Env simCost() throws IOException {
    Path dir = Files.createTempDirectory("gpufleet-invoke-cost-");
    Clock clock = Clock.systemUTC();
    Instant now = clock.instant();
    var cluster = SimCluster.start(SimTime.realTime());
    KubernetesClient client = cluster.newClient();
    var stub = AwsStubServer.start();
    DemoFleet.populate(cluster);
    var pricing =
        new PricingStub()
            .listPrices(
                CostSimulation.REGION, "p5.48xlarge", "g6e.12xlarge", "g5.2xlarge", "g5.12xlarge");
    stub.on(PricingStub.OPERATION, pricing::answer);
    var aws =
        new AwsClients(
            Region.US_EAST_1,
            StaticCredentialsProvider.create(AwsBasicCredentials.create("sim", "sim")),
            Optional.of(stub.endpoint()));
    var store = new DirectoryBlobStore(dir);
    var settings = CostSettings.defaults(DemoFleet.CLUSTER);
    var metrics = new Recorders.RecordingMetrics();
    var reporter =
        CostReporting.reporter(
            metrics, new Recorders.RecordingPublisher(), new Recorders.RecordingNotifier());
    var service =
        new CostReportService(
            settings,
            CostSimulation.REGION,
            new CostSimulation.Backdated(new CostClusterAdapter(client, settings.teamLabel()), now),
            new CostSimulation.SimEc2(now),
            new CostSimulation.SimSpot(now),
            OnDemandPricing.create(aws, new Settings(Map.of()), Optional.of(store), clock),
            store,
            reporter,
            clock);
    var handler = new CostHandler(service, metrics, reporter, DemoFleet.CLUSTER);
    return new Env() {
      @Override
      public RequestStreamHandler handler() {
        return handler;
      }

      @Override
      public void close() {
        client.close();
        cluster.close();
        stub.close();
      }
    };
  }

  private static Env simPreflight() {
    var regions =
        List.of(
            "us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1");
    var stub = AwsStubServer.start();
    var clients =
        new RegionalClients(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIM", "sim")),
            Optional.of(stub.endpoint()));
    new SimCapacityAccount(stub).install().seedDemo(regions).installPricing(regions);
    var cluster = SimCluster.start(SimTime.realTime());
    DemoFleet.populateNodePools(cluster);
    KubernetesClient kube = cluster.newClient();
    var metrics = new Recorders.RecordingMetrics();
    var service =
        PreflightWiring.service(
            clients,
            "us-east-1",
            PreflightCommand.simulatedPrices(stub),
            PreflightSettings.defaults(),
            Clock.systemUTC());
    var saved = new ArrayList<String>();
    ReportStorePort store = PreflightSimulation.recordingStore(saved);
    var function =
        PreflightWiring.function(
            service,
            DedupeStorePort.inMemory(1000),
            store,
            PlanLoaderPort.NONE,
            new NodePoolAdapter(kube),
            metrics,
            new Recorders.RecordingPublisher(),
            new Recorders.RecordingNotifier(),
            "us-east-1");
    var handler = new PreflightHandler(function, metrics);
    return new Env() {
      @Override
      public RequestStreamHandler handler() {
        return handler;
      }

      @Override
      public void close() {
        kube.close();
        cluster.close();
        clients.close();
        stub.close();
      }
    };
  }

  /** A real cluster needs its name (the drain's CLUSTER_NAME), even through a kubeconfig. */
  private String requireCluster() {
    if (target.cluster == null) {
      throw Cli.bad(spec, "--cluster is required to act on a real cluster");
    }
    return target.cluster;
  }
}
