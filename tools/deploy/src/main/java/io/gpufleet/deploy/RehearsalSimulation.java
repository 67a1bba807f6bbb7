package io.gpufleet.deploy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.DrainReporting;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.scenario.LocalInvoke;
import io.gpufleet.scenario.SyntheticEvents;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.aws.AwsStubServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.fis.FisClient;

/**
 * The account and cluster {@code gpufleet rehearse --simulate} rehearses on: the demo fleet of
 * {@code simulate} on a virtual clock; the stack (DescribeStacks), EC2 (DescribeInstances,
 * CreateTags, DeleteTags: the fleet's instances with their lifecycle and tags) and FIS (the stack's
 * experiment template: ListExperiments, StartExperiment, GetExperiment, StopExperiment) answered by
 * an {@link AwsStubServer} to the real SDK clients. An experiment resolves its target as the
 * template does (a running Spot instance tagged {@code gpufleet:rehearse=<stack>}, COUNT(1)); one
 * second later its action sends the Spot interruption warning through the real drain handler; the
 * instance terminates two minutes after the warning, and a replacement node is Ready {@link
 * #REPLACEMENT_READY} after it. Time passes only when the rehearsal waits ({@link #pass}): no
 * sleeps.
 */
public final class RehearsalSimulation implements Rehearsal.World, AutoCloseable {
  public static final String STACK = "gpufleet-sim";
  static final String ACCOUNT = "123456789012";
  public static final String TEMPLATE_ID = "EXTsimRehearsal01";
  public static final String OTHER_CLUSTER = "other-gpu-cluster";

  /** A GPU node takes about this long from launch to Ready (launched when the warning arrives). */
  static final Duration REPLACEMENT_READY = Duration.ofSeconds(95);

  public final AwsStubServer stub;
  public final SimCluster cluster;
  final KubernetesClient kubernetes;
  final VirtualTime time;
  public final CloudFormationClient cfn;
  final Ec2Client ec2;
  public final FisClient fis;
  final DrainService drain;
  private final DrainHandler handler;
  private final Recorders.RecordingPublisher published = new Recorders.RecordingPublisher();

  /** One EC2 instance of the simulated account. */
  private static final class Ec2Instance {
    final String id;
    final String name;
    final boolean spot;
    final Map<String, String> tags = new ConcurrentHashMap<>();
    volatile String state = "running";

    Ec2Instance(String id, String name, boolean spot, String cluster) {
      this.id = id;
      this.name = name;
      this.spot = spot;
      tags.put("eks:cluster-name", cluster);
      tags.put("kubernetes.io/cluster/" + cluster, "owned");
    }
  }

  private record Experiment(String id, Instant created, Map<String, Object> state) {}

  private record Due(Instant at, long seq, Runnable action) {}

  private final Map<String, Ec2Instance> instances = new ConcurrentHashMap<>();
  private final Map<String, Experiment> experiments = new ConcurrentHashMap<>();
  private final PriorityQueue<Due> agenda =
      new PriorityQueue<>(java.util.Comparator.comparing(Due::at).thenComparingLong(Due::seq));
  private final AtomicInteger sequence = new AtomicInteger();
  private volatile Instant current;
  private volatile DrainOutcome outcome;
  private volatile boolean outside;

  public RehearsalSimulation(List<ExecutionInterceptor> interceptors) {
    current = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    time = new VirtualTime(current);
    cluster = SimCluster.start(time);
    DemoFleet.populate(cluster);
    kubernetes = cluster.newClient();
    for (var n : DemoFleet.NODES) {
      instances.put(
          n.instanceId(),
          new Ec2Instance(
              n.instanceId(), n.name(), "spot".equals(n.capacityType()), DemoFleet.CLUSTER));
    }
    var metrics = new Recorders.RecordingMetrics();
    drain =
        DrainWiring.service(
            kubernetes,
            DrainWiring.Parts.of(DrainSettings.defaults(DemoFleet.CLUSTER))
                .reportingTo(metrics, published, new Recorders.RecordingNotifier())
                .timedBy(time));
    handler = new DrainHandler(drain, metrics, time.clock());
    stub = AwsStubServer.start();
    serve();
    cfn = build(CloudFormationClient.builder(), interceptors);
    ec2 = build(Ec2Client.builder(), interceptors);
    fis = build(FisClient.builder(), interceptors);
  }

  public Rehearsal.Clients clients() {
    return new Rehearsal.Clients(ec2, fis, kubernetes, drain);
  }

  /** A Spot GPU node registered in this cluster whose instance belongs to another cluster. */
  public String addForeignNode() {
    String name = "ip-10-9-0-99.ec2.internal";
    String id = "i-0f0e0d0c0b0a09099";
    cluster.create(
        SimCluster.gpuNode(name, id, "us-east-1a", "g5.2xlarge", "spot", "gpu-inference", null, 1));
    instances.put(id, new Ec2Instance(id, name, true, OTHER_CLUSTER));
    return name;
  }

  /** An experiment of the stack's template already running (started by someone else). */
  public String runningElsewhere() {
    String id = "EXPsimOther0001";
    experiments.put(id, experiment(id, "running", null));
    return id;
  }

  @Override
  public Instant now() {
    return current;
  }

  @Override
  public void pass(Duration d) {
    Instant until = current.plus(d);
    while (true) {
      Due next;
      synchronized (agenda) {
        next = agenda.peek();
        if (next == null || next.at().isAfter(until)) {
          break;
        }
        agenda.poll();
      }
      if (next.at().isAfter(current)) {
        current = next.at();
        time.set(current);
      }
      next.action().run();
      Instant after = time.now();
      current = after.isAfter(current) ? after : current;
    }
    if (until.isAfter(current)) {
      current = until;
    }
    time.set(current);
  }

  /**
   * The drain's outcome is not handed over in process: the rehearsal follows the chain as it does
   * against a real account, from the cluster (cordon, pods, the drain's Kubernetes Event on the
   * node), EC2 and FIS.
   */
  public RehearsalSimulation observedFromOutside() {
    outside = true;
    return this;
  }

  @Override
  public Optional<DrainOutcome> drainOutcome() {
    return outside ? Optional.empty() : Optional.ofNullable(outcome);
  }

  /** The outcome the drain handler published (in process), whoever follows the chain. */
  public Optional<DrainOutcome> published() {
    return Optional.ofNullable(outcome);
  }

  private void at(Instant when, Runnable action) {
    synchronized (agenda) {
      agenda.add(new Due(when, sequence.getAndIncrement(), action));
    }
  }

  private <B extends AwsClientBuilder<B, C>, C> C build(
      B builder, List<ExecutionInterceptor> interceptors) {
    var config = ClientOverrideConfiguration.builder();
    interceptors.forEach(config::addExecutionInterceptor);
    return builder
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSIMULATED", "sim")))
        .endpointOverride(stub.endpoint())
        .overrideConfiguration(config.build())
        .build();
  }

  private void serve() {
    String describe =
        "<DescribeStacksResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\">"
            + "<DescribeStacksResult><Stacks><member><StackName>"
            + STACK
            + "</StackName><StackId>arn:aws:cloudformation:us-east-1:"
            + ACCOUNT
            + ":stack/"
            + STACK
            + "/6f1c2a10-0000-4000-8000-000000000002</StackId>"
            + "<CreationTime>2026-12-01T09:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE"
            + "</StackStatus><Parameters><member><ParameterKey>ClusterName</ParameterKey>"
            + "<ParameterValue>"
            + DemoFleet.CLUSTER
            + "</ParameterValue></member></Parameters><Outputs><member><OutputKey>"
            + "RehearsalExperimentTemplateId</OutputKey><OutputValue>"
            + TEMPLATE_ID
            + "</OutputValue></member></Outputs></member></Stacks></DescribeStacksResult>"
            + "<ResponseMetadata><RequestId>sim</RequestId></ResponseMetadata>"
            + "</DescribeStacksResponse>";
    stub.on("DescribeStacks", c -> AwsStubServer.Reply.xml(describe));
    stub.on("DescribeInstances", this::describeInstances);
    stub.on("CreateTags", c -> tags(c, true));
    stub.on("DeleteTags", c -> tags(c, false));
    stub.on(
        "GET /experiments",
        c -> {
          var list = new ArrayList<Map<String, Object>>();
          experiments.values().stream()
              .sorted(java.util.Comparator.comparing(Experiment::created))
              .forEach(e -> list.add(summary(e)));
          return json(Map.of("experiments", list));
        });
    stub.on("POST /experiments", this::startExperiment);
  }

  private AwsStubServer.Reply describeInstances(AwsStubServer.Call call) {
    var ids = AwsStubServer.listParam(call, "InstanceId");
    var xml = new StringBuilder();
    for (String id : ids) {
      var i = instances.get(id);
      if (i == null) {
        return ec2Error(
            "InvalidInstanceID.NotFound", "The instance ID '" + id + "' does not exist");
      }
      xml.append("<item><reservationId>r-0sim")
          .append(id.substring(2))
          .append("</reservationId><instancesSet><item><instanceId>")
          .append(id)
          .append("</instanceId><instanceState><code>")
          .append(
              switch (i.state) {
                case "running" -> 16;
                case "shutting-down" -> 32;
                default -> 48;
              })
          .append("</code><name>")
          .append(i.state)
          .append("</name></instanceState><privateDnsName>")
          .append(i.name)
          .append("</privateDnsName>")
          .append(i.spot ? "<instanceLifecycle>spot</instanceLifecycle>" : "")
          .append("<tagSet>");
      new java.util.TreeMap<>(i.tags)
          .forEach(
              (k, v) ->
                  xml.append("<item><key>")
                      .append(k)
                      .append("</key><value>")
                      .append(v)
                      .append("</value></item>"));
      xml.append("</tagSet></item></instancesSet></item>");
    }
    return AwsStubServer.Reply.xml(
        "<DescribeInstancesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
            + "<requestId>sim</requestId><reservationSet>"
            + xml
            + "</reservationSet></DescribeInstancesResponse>");
  }

  private AwsStubServer.Reply tags(AwsStubServer.Call call, boolean create) {
    var ids = AwsStubServer.listParam(call, "ResourceId");
    for (String id : ids) {
      if (!instances.containsKey(id)) {
        return ec2Error(
            "InvalidInstanceID.NotFound", "The instance ID '" + id + "' does not exist");
      }
    }
    for (int n = 1; call.param("Tag." + n + ".Key").isPresent(); n++) {
      String key = call.param("Tag." + n + ".Key").get();
      String value = call.param("Tag." + n + ".Value").orElse("");
      for (String id : ids) {
        var t = instances.get(id).tags;
        if (create) {
          t.put(key, value);
        } else if (value.isEmpty() || value.equals(t.get(key))) {
          t.remove(key);
        }
      }
    }
    String op = create ? "CreateTags" : "DeleteTags";
    return AwsStubServer.Reply.xml(
        "<"
            + op
            + "Response xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>sim"
            + "</requestId><return>true</return></"
            + op
            + "Response>");
  }

  private AwsStubServer.Reply startExperiment(AwsStubServer.Call call) {
    String template;
    try {
      template = Json.MAPPER.readTree(call.body()).path("experimentTemplateId").asText();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    if (!TEMPLATE_ID.equals(template)) {
      return new AwsStubServer.Reply(
          404,
          "application/json",
          Json.write(Map.of("message", "Experiment template " + template + " not found")));
    }
    String id = "EXPsim" + String.format("%010d", experiments.size() + 1);
    var target =
        instances.values().stream()
            .filter(i -> i.spot && "running".equals(i.state))
            .filter(i -> STACK.equals(i.tags.get(Rehearsal.TAG)))
            .findFirst();
    Instant start = current;
    if (target.isEmpty()) {
      experiments.put(id, experiment(id, "failed", "Target resolution returned empty set"));
    } else {
      experiments.put(id, experiment(id, "initiating", null));
      Ec2Instance i = target.get();
      Instant warning = start.plusSeconds(1);
      at(warning, () -> warn(id, i, warning));
      at(warning.plus(REPLACEMENT_READY), () -> replacement(i));
      at(warning.plus(Rehearsal.DEADLINE), () -> interrupt(id, i, warning));
    }
    stub.on("GET /experiments/" + id, c -> json(Map.of("experiment", detail(experiments.get(id)))));
    stub.on("DELETE /experiments/" + id, c -> stop(id));
    return json(Map.of("experiment", detail(experiments.get(id))));
  }

  /**
   * The action starts: the warning goes through the real drain handler, as EventBridge sends it.
   */
  private void warn(String id, Ec2Instance i, Instant warning) {
    var e = experiments.get(id);
    if (!"initiating".equals(e.state().get("status"))) {
      return;
    }
    e.state().put("status", "running");
    e.state().put("actionStatus", "running");
    e.state().put("actionStart", warning);
    String event =
        SyntheticEvents.manualDrain(DrainKind.SPOT_INTERRUPTION, i.id, warning, Rehearsal.DEADLINE)
            .replace("\"account\":\"000000000000\"", "\"account\":\"" + ACCOUNT + "\"")
            .replace("\"region\":\"local\"", "\"region\":\"us-east-1\"");
    var answer = new ByteArrayOutputStream();
    try {
      handler.handleRequest(
          new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)),
          answer,
          new LocalContext(
              "interruption-drain", LocalInvoke.TIMEOUT_MILLIS.get("interruption-drain")));
    } catch (java.io.IOException ex) {
      throw new java.io.UncheckedIOException(ex);
    }
    published.published.stream()
        .filter(p -> p.detailType().equals(DrainReporting.DETAIL_TYPE))
        .map(p -> (DrainOutcome) p.detail())
        .filter(o -> i.id.equals(o.instanceId()))
        .reduce((a, b) -> b)
        .ifPresent(o -> outcome = o);
  }

  private void replacement(Ec2Instance old) {
    var spec =
        DemoFleet.NODES.stream()
            .filter(n -> n.instanceId().equals(old.id))
            .findFirst()
            .orElse(DemoFleet.NODES.get(0));
    String id = "i-0a1b2c3d4e5f6" + String.format("%04d", 9000 + instances.size());
    String name = "ip-10-0-9-" + (10 + instances.size()) + ".ec2.internal";
    cluster.create(
        SimCluster.gpuNode(
            name,
            id,
            spec.zone(),
            spec.instanceType(),
            spec.capacityType(),
            spec.nodePool(),
            spec.nodeGroup(),
            spec.gpus()));
    instances.put(id, new Ec2Instance(id, name, true, DemoFleet.CLUSTER));
  }

  /** Two minutes after the warning: the instance goes, its node with it; the action completes. */
  private void interrupt(String id, Ec2Instance i, Instant warning) {
    var e = experiments.get(id);
    if (!"running".equals(e.state().get("status"))) {
      return;
    }
    i.state = "terminated";
    cluster.deleteNode(i.name);
    e.state().put("status", "completed");
    e.state().put("actionStatus", "completed");
    e.state().put("actionEnd", warning.plus(Rehearsal.DEADLINE));
  }

  private AwsStubServer.Reply stop(String id) {
    var e = experiments.get(id);
    if (Rehearsal.ACTIVE.stream().anyMatch(s -> s.toString().equals(e.state().get("status")))) {
      e.state().put("status", "stopped");
      e.state().put("reason", "Experiment stopped by the user");
      e.state().put("actionStatus", "stopped");
    }
    return json(Map.of("experiment", detail(e)));
  }

  private Experiment experiment(String id, String status, String reason) {
    var state = new ConcurrentHashMap<String, Object>();
    state.put("status", status);
    state.put("actionStatus", "pending");
    if (reason != null) {
      state.put("reason", reason);
    }
    return new Experiment(id, current, state);
  }

  private static Map<String, Object> state(Experiment e) {
    var s = new LinkedHashMap<String, Object>();
    s.put("status", e.state().get("status"));
    if (e.state().containsKey("reason")) {
      s.put("reason", e.state().get("reason"));
    }
    return s;
  }

  private static Map<String, Object> summary(Experiment e) {
    return Map.of(
        "id", e.id(),
        "experimentTemplateId", TEMPLATE_ID,
        "state", state(e),
        "creationTime", seconds(e.created()));
  }

  private Map<String, Object> detail(Experiment e) {
    var action = new LinkedHashMap<String, Object>();
    action.put("actionId", "aws:ec2:send-spot-instance-interruptions");
    action.put("parameters", Map.of("durationBeforeInterruption", "PT2M"));
    action.put("targets", Map.of("SpotInstances", "RehearsedNode"));
    action.put("state", Map.of("status", e.state().get("actionStatus")));
    if (e.state().get("actionStart") instanceof Instant s) {
      action.put("startTime", seconds(s));
    }
    if (e.state().get("actionEnd") instanceof Instant s) {
      action.put("endTime", seconds(s));
    }
    var d = new LinkedHashMap<String, Object>();
    d.put("id", e.id());
    d.put("experimentTemplateId", TEMPLATE_ID);
    d.put("roleArn", "arn:aws:iam::" + ACCOUNT + ":role/" + STACK + "-RehearsalRole-SIM0");
    d.put("state", state(e));
    d.put("actions", Map.of("SendSpotInterruption", action));
    d.put("creationTime", seconds(e.created()));
    return d;
  }

  private static double seconds(Instant t) {
    return t.toEpochMilli() / 1000.0;
  }

  private static AwsStubServer.Reply json(Object body) {
    return new AwsStubServer.Reply(200, "application/json", Json.write(body));
  }

  private static AwsStubServer.Reply ec2Error(String code, String message) {
    return new AwsStubServer.Reply(
        400,
        "text/xml;charset=UTF-8",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error><Code>"
            + code
            + "</Code><Message>"
            + message
            + "</Message></Error></Errors><RequestID>sim</RequestID></Response>");
  }

  @Override
  public void close() {
    cfn.close();
    ec2.close();
    fis.close();
    kubernetes.close();
    cluster.close();
    stub.close();
  }
}
