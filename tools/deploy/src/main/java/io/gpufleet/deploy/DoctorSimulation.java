package io.gpufleet.deploy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.core.json.Json;
import io.gpufleet.deploy.confinement.ConfinementRender;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsStubServer;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * The deployed stack {@code gpufleet doctor --simulate} checks: CloudFormation, Lambda, EKS,
 * EventBridge and Auto Scaling answered by an {@link AwsStubServer} to the real SDK clients (the
 * stack's parameters are template.yaml's defaults), and the simulated cluster holding what this
 * version renders — with one deliberate misconfiguration: the drain's RBAC was applied from a
 * render for another group ({@link #STALE_GROUP}), as after changing KubernetesGroup without
 * re-applying the manifests. Karpenter runs with its own interruption queue (a WARN), and the Spot
 * managed node group {@link #SPOT_NODE_GROUP}'s Auto Scaling group has Capacity Rebalancing off (a
 * WARN). CloudWatch holds each function's recent successful runs ({@link #cloudWatch}).
 */
public final class DoctorSimulation implements AutoCloseable {
  public static final String STACK = "gpufleet-sim";
  static final String ACCOUNT = "123456789012";
  public static final String STALE_GROUP = "gpufleet-drain-old";
  static final String ASG = "eks-gpu-ng-sim";
  public static final String ON_DEMAND_NODE_GROUP = "gpu-on-demand";
  public static final String SPOT_NODE_GROUP = "gpu-spot";
  public static final String SPOT_ASG = "eks-gpu-spot-sim";

  public final AwsStubServer stub;
  final SimCluster cluster;
  public final KubernetesClient kubernetes;
  public final Doctor.Clients clients;
  public final Map<String, String> parameters;
  public final io.gpufleet.sim.aws.SimSsm ssm;

  /** The simulated stack's drain settings document. */
  public static final String DRAIN_SETTINGS = "DRAIN_EVICTION_CONCURRENCY: 64\n";

  public final io.gpufleet.sim.aws.SimCloudWatch cloudWatch;

  /** Each Auto Scaling group's CapacityRebalance as DescribeAutoScalingGroups answers it. */
  public final Map<String, Boolean> capacityRebalance =
      new java.util.concurrent.ConcurrentHashMap<>();

  public DoctorSimulation(Path root, List<ExecutionInterceptor> interceptors) throws Exception {
    var template = CfnYaml.load(Files.readString(root.resolve("template.yaml")));
    parameters = defaults(template);
    parameters.put("ClusterName", DemoFleet.CLUSTER);
    parameters.put("LifecycleHookGroupNames", ASG);
    stub = AwsStubServer.start();
    cluster = SimCluster.start(new SimTime(Instant.now(), 1));
    kubernetes = cluster.newClient();
    serveStack();
    // the policy the stack creates in its parameter, as template.yaml starts it
    @SuppressWarnings("unchecked")
    var policy =
        (Map<String, Object>)
            ((Map<String, Object>)
                    ((Map<String, Object>) template.get("Resources"))
                        .get("SchedulePolicyParameter"))
                .get("Properties");
    ssm = io.gpufleet.sim.aws.SimSsm.serve(stub);
    ssm.put(
        parameters.get("SchedulePolicy").substring("ssm:".length()),
        String.valueOf(policy.get("Value")));
    // the drain runs with a settings document the operator wrote; the others on their defaults
    ssm.put(
        io.gpufleet.core.schema.SettingsDocument.parameterName(STACK, "interruption-drain"),
        DRAIN_SETTINGS);
    applyManifests(root);
    cloudWatch = io.gpufleet.sim.aws.SimCloudWatch.serve(stub);
    var now = Instant.now();
    published(
        io.gpufleet.drain.DrainMetrics.SERVICE,
        io.gpufleet.drain.DrainMetrics.events(io.gpufleet.drain.model.DrainOutcome.Status.DRAINED),
        now.minus(java.time.Duration.ofHours(3)));
    var reconciled =
        io.gpufleet.schedule.ScheduleMetrics.RUNS.get(
            io.gpufleet.schedule.model.ScheduleOutcome.Status.RECONCILED);
    published(
        io.gpufleet.schedule.ScheduleMetrics.SERVICE,
        reconciled,
        now.minus(java.time.Duration.ofMinutes(20)));
    published(
        io.gpufleet.schedule.ScheduleMetrics.SERVICE,
        reconciled,
        now.minus(java.time.Duration.ofMinutes(5)));
    published(
        io.gpufleet.preflight.PreflightMetrics.SERVICE,
        io.gpufleet.preflight.PreflightMetrics.REGIONS.get(io.gpufleet.preflight.model.Verdict.GO),
        now.minus(java.time.Duration.ofHours(4)));
    published(
        io.gpufleet.cost.CostMetrics.SERVICE,
        io.gpufleet.cost.CostMetrics.REPORTS_WRITTEN,
        now.minus(java.time.Duration.ofHours(10)));
    kubernetes
        .apps()
        .deployments()
        .inNamespace("kube-system")
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("karpenter")
                .withNamespace("kube-system")
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", "karpenter")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "karpenter")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("controller")
                .withImage("public.ecr.aws/karpenter/controller:1.8.0")
                .withEnv(new EnvVar("INTERRUPTION_QUEUE", DemoFleet.CLUSTER, null))
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    clients =
        new Doctor.Clients(
            build(CloudFormationClient.builder(), interceptors),
            build(LambdaClient.builder(), interceptors),
            build(EksClient.builder(), interceptors),
            build(EventBridgeClient.builder(), interceptors),
            build(AutoScalingClient.builder(), interceptors),
            build(software.amazon.awssdk.services.ssm.SsmClient.builder(), interceptors),
            build(
                software.amazon.awssdk.services.cloudwatch.CloudWatchClient.builder(),
                interceptors),
            kubernetes);
  }

  /** One datapoint (1) of a function's counter, as its EMF record publishes it. */
  public void published(String service, io.gpufleet.core.outcome.Metric metric, Instant at) {
    cloudWatch.put(
        io.gpufleet.core.outcome.Metric.NAMESPACE,
        metric.name(),
        Map.of(io.gpufleet.core.outcome.Metric.SERVICE, service),
        at,
        1);
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

  @SuppressWarnings("unchecked")
  private static Map<String, String> defaults(Map<String, Object> template) {
    var out = new TreeMap<String, String>();
    ((Map<String, Map<String, Object>>) template.get("Parameters"))
        .forEach(
            (k, v) -> {
              Object d = v.get("Default");
              out.put(
                  k,
                  d instanceof List<?> l
                      ? String.join(",", (List<String>) l)
                      : d == null ? "" : String.valueOf(d));
            });
    return out;
  }

  /** What the drain's RBAC and the other manifests look like in the cluster. */
  private void applyManifests(Path root) {
    var known = ConfinementRender.parameters(root).keySet();
    var overrides = new TreeMap<String, String>();
    parameters.forEach(
        (k, v) -> {
          if (known.contains(k)) {
            overrides.put(k, v);
          }
        });
    var stale = new TreeMap<>(overrides);
    stale.put("KubernetesGroup", STALE_GROUP);
    var staleRender = ConfinementRender.render(root, stale);
    for (var e : ConfinementRender.render(root, overrides).entrySet()) {
      String text =
          e.getKey().toString().equals("rbac/interruption-drain.yaml")
              ? staleRender.get(e.getKey())
              : e.getValue();
      kubernetes
          .load(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))
          .items()
          .forEach(o -> kubernetes.resource(o).create());
    }
  }

  private String physical(String logical) {
    return STACK + "-" + logical + "-SIM0";
  }

  private void serveStack() {
    var resources = new LinkedHashMap<String, String>();
    for (var f : Doctor.FUNCTIONS) {
      resources.put(f.resource(), "AWS::Lambda::Function");
      resources.put(f.role(), "AWS::IAM::Role");
    }
    for (String rule :
        List.of(
            "InterruptionDrainFunctionSpotInterruption",
            "InterruptionDrainFunctionRebalance",
            "LifecycleHookRule")) {
      resources.put(rule, "AWS::Events::Rule");
    }
    String stackId =
        "arn:aws:cloudformation:us-east-1:"
            + ACCOUNT
            + ":stack/"
            + STACK
            + "/6f1c2a10-0000-4000-8000-000000000001";
    var outputs = new LinkedHashMap<String, String>();
    for (String o : Doctor.OUTPUTS) {
      outputs.put(o, "sim-" + o);
    }
    outputs.put("InterruptionDrainAliasArn", aliasArn("InterruptionDrainFunction"));
    var xml = new StringBuilder();
    xml.append(
            "<DescribeStacksResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\"><DescribeStacksResult><Stacks><member>")
        .append("<StackName>")
        .append(STACK)
        .append("</StackName><StackId>")
        .append(stackId)
        .append(
            "</StackId><CreationTime>2026-12-01T09:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Parameters>");
    parameters.forEach(
        (k, v) ->
            xml.append("<member><ParameterKey>")
                .append(k)
                .append("</ParameterKey><ParameterValue>")
                .append(esc(v))
                .append("</ParameterValue></member>"));
    xml.append("</Parameters><Outputs>");
    outputs.forEach(
        (k, v) ->
            xml.append("<member><OutputKey>")
                .append(k)
                .append("</OutputKey><OutputValue>")
                .append(esc(v))
                .append("</OutputValue></member>"));
    xml.append(
        "</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>sim</RequestId></ResponseMetadata></DescribeStacksResponse>");
    String describe = xml.toString();
    stub.on("DescribeStacks", call -> AwsStubServer.Reply.xml(describe));
    var list = new StringBuilder();
    list.append(
        "<ListStackResourcesResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\"><ListStackResourcesResult><StackResourceSummaries>");
    resources.forEach(
        (logical, type) ->
            list.append("<member><LogicalResourceId>")
                .append(logical)
                .append("</LogicalResourceId><PhysicalResourceId>")
                .append(physical(logical))
                .append("</PhysicalResourceId><ResourceType>")
                .append(type)
                .append(
                    "</ResourceType><LastUpdatedTimestamp>2026-12-01T09:00:00Z</LastUpdatedTimestamp><ResourceStatus>UPDATE_COMPLETE</ResourceStatus></member>"));
    list.append(
        "</StackResourceSummaries></ListStackResourcesResult><ResponseMetadata><RequestId>sim</RequestId></ResponseMetadata></ListStackResourcesResponse>");
    String listed = list.toString();
    stub.on("ListStackResources", call -> AwsStubServer.Reply.xml(listed));

    for (var f : Doctor.FUNCTIONS) {
      String name = physical(f.resource());
      String alias =
          Json.write(
              Map.of(
                  "AliasArn",
                  aliasArn(f.resource()),
                  "Name",
                  Doctor.ALIAS,
                  "FunctionVersion",
                  "7"));
      stub.on("GET /2015-03-31/functions/" + name + "/aliases/" + Doctor.ALIAS, c -> json(alias));
      String concurrency =
          f.resource().equals("InterruptionDrainFunction")
              ? Json.write(
                  Map.of(
                      "ReservedConcurrentExecutions",
                      Integer.parseInt(parameters.get("DrainReservedConcurrency"))))
              : "{}";
      stub.on("GET /2019-09-30/functions/" + name + "/concurrency", c -> json(concurrency));
      String roleArn = "arn:aws:iam::" + ACCOUNT + ":role/" + physical(f.role());
      var groups = List.of(parameters.get(f.groupParameter()));
      String entry =
          Json.write(
              Map.of(
                  "accessEntry",
                  Map.of(
                      "clusterName",
                      DemoFleet.CLUSTER,
                      "principalArn",
                      roleArn,
                      "kubernetesGroups",
                      groups,
                      "type",
                      "STANDARD")));
      stub.on(
          "GET /clusters/"
              + DemoFleet.CLUSTER
              + "/access-entries/"
              + SdkHttpUtils.urlEncode(roleArn),
          c -> json(entry));
    }
    String cluster =
        Json.write(
            Map.of(
                "cluster",
                Map.of(
                    "name",
                    DemoFleet.CLUSTER,
                    "arn",
                    "arn:aws:eks:us-east-1:" + ACCOUNT + ":cluster/" + DemoFleet.CLUSTER,
                    "status",
                    "ACTIVE",
                    "endpoint",
                    this.cluster.url(),
                    "accessConfig",
                    Map.of("authenticationMode", "API_AND_CONFIG_MAP"))));
    stub.on("GET /clusters/" + DemoFleet.CLUSTER, c -> json(cluster));

    stub.on(
        "AWSEvents.DescribeRule",
        c -> {
          String rule;
          try {
            rule = Json.MAPPER.readTree(c.body()).path("Name").asText();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          return AwsStubServer.Reply.json(
              Json.write(
                  Map.of(
                      "Name",
                      rule,
                      "Arn",
                      "arn:aws:events:us-east-1:" + ACCOUNT + ":rule/" + rule,
                      "State",
                      "ENABLED",
                      "EventBusName",
                      "default")));
        });
    stub.on(
        "AWSEvents.ListTargetsByRule",
        c ->
            AwsStubServer.Reply.json(
                Json.write(
                    Map.of(
                        "Targets",
                        List.of(
                            Map.of(
                                "Id", "drain", "Arn", aliasArn("InterruptionDrainFunction")))))));
    String hooks =
        "<DescribeLifecycleHooksResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\"><DescribeLifecycleHooksResult><LifecycleHooks><member><LifecycleHookName>gpufleet-drain</LifecycleHookName><AutoScalingGroupName>"
            + ASG
            + "</AutoScalingGroupName><LifecycleTransition>autoscaling:EC2_INSTANCE_TERMINATING</LifecycleTransition><HeartbeatTimeout>300</HeartbeatTimeout><DefaultResult>CONTINUE</DefaultResult></member></LifecycleHooks></DescribeLifecycleHooksResult><ResponseMetadata><RequestId>sim</RequestId></ResponseMetadata></DescribeLifecycleHooksResponse>";
    stub.on("DescribeLifecycleHooks", c -> AwsStubServer.Reply.xml(hooks));
    serveNodeGroups();
  }

  /** An On-Demand and a Spot managed node group, each with its Auto Scaling group. */
  private void serveNodeGroups() {
    var groups = new LinkedHashMap<String, String[]>();
    groups.put(ON_DEMAND_NODE_GROUP, new String[] {"ON_DEMAND", ASG});
    groups.put(SPOT_NODE_GROUP, new String[] {"SPOT", SPOT_ASG});
    capacityRebalance.put(ASG, false);
    capacityRebalance.put(SPOT_ASG, false);
    String base = "GET /clusters/" + DemoFleet.CLUSTER + "/node-groups";
    String list = Json.write(Map.of("nodegroups", List.copyOf(groups.keySet())));
    stub.on(base, c -> json(list));
    groups.forEach(
        (name, g) -> {
          String described =
              Json.write(
                  Map.of(
                      "nodegroup",
                      Map.of(
                          "nodegroupName",
                          name,
                          "nodegroupArn",
                          "arn:aws:eks:us-east-1:"
                              + ACCOUNT
                              + ":nodegroup/"
                              + DemoFleet.CLUSTER
                              + "/"
                              + name
                              + "/sim",
                          "clusterName",
                          DemoFleet.CLUSTER,
                          "status",
                          "ACTIVE",
                          "capacityType",
                          g[0],
                          "resources",
                          Map.of("autoScalingGroups", List.of(Map.of("name", g[1]))))));
          stub.on(base + "/" + name, c -> json(described));
        });
    stub.on(
        "DescribeAutoScalingGroups",
        c -> {
          var xml = new StringBuilder();
          xml.append(
              "<DescribeAutoScalingGroupsResponse xmlns=\"http://autoscaling.amazonaws.com/doc/2011-01-01/\"><DescribeAutoScalingGroupsResult><AutoScalingGroups>");
          for (int i = 1; c.params().containsKey("AutoScalingGroupNames.member." + i); i++) {
            String name = c.params().get("AutoScalingGroupNames.member." + i);
            Boolean rebalance = capacityRebalance.get(name);
            if (rebalance == null) {
              continue;
            }
            xml.append("<member><AutoScalingGroupName>")
                .append(name)
                .append(
                    "</AutoScalingGroupName><AutoScalingGroupARN>arn:aws:autoscaling:us-east-1:")
                .append(ACCOUNT)
                .append(":autoScalingGroup:sim:autoScalingGroupName/")
                .append(name)
                .append(
                    "</AutoScalingGroupARN><MinSize>0</MinSize><MaxSize>4</MaxSize><DesiredCapacity>2</DesiredCapacity><DefaultCooldown>300</DefaultCooldown><AvailabilityZones><member>us-east-1a</member></AvailabilityZones><HealthCheckType>EC2</HealthCheckType><CreatedTime>2026-12-01T09:00:00Z</CreatedTime><CapacityRebalance>")
                .append(rebalance)
                .append("</CapacityRebalance></member>");
          }
          xml.append(
              "</AutoScalingGroups></DescribeAutoScalingGroupsResult><ResponseMetadata><RequestId>sim</RequestId></ResponseMetadata></DescribeAutoScalingGroupsResponse>");
          return AwsStubServer.Reply.xml(xml.toString());
        });
  }

  private String aliasArn(String function) {
    return "arn:aws:lambda:us-east-1:"
        + ACCOUNT
        + ":function:"
        + physical(function)
        + ":"
        + Doctor.ALIAS;
  }

  private static AwsStubServer.Reply json(String body) {
    return new AwsStubServer.Reply(200, "application/json", body);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  @Override
  public void close() {
    kubernetes.close();
    cluster.close();
    stub.close();
  }
}
