package io.gpufleet.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpufleet.core.json.Json;
import io.gpufleet.deploy.confinement.ConfinementRender;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.StackResourceSummary;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eks.model.ResourceNotFoundException;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * {@code gpufleet doctor}'s checks of a deployed stack against its cluster: read-only (describe,
 * list, get), each a {@link Finding} PASS / WARN / FAIL with the fix. The RBAC and admission check
 * renders the manifests with {@link ConfinementRender} for the stack's own parameters and compares
 * them with what the cluster holds.
 */
public final class Doctor {
  public enum Status {
    PASS,
    WARN,
    FAIL
  }

  /** One check's verdict, what was seen, and what to do about it (empty when it passes). */
  public record Finding(String check, Status status, String detail, String fix) {}

  /** The clients the checks read through (built by the CLI for a real or simulated account). */
  public record Clients(
      CloudFormationClient cloudFormation,
      LambdaClient lambda,
      EksClient eks,
      EventBridgeClient events,
      AutoScalingClient autoScaling,
      software.amazon.awssdk.services.ssm.SsmClient ssm,
      software.amazon.awssdk.services.cloudwatch.CloudWatchClient cloudWatch,
      KubernetesClient kubernetes) {}

  /** Each function: its template resource, execution role and the parameter naming its group. */
  record Function(String resource, String role, String groupParameter) {}

  static final List<Function> FUNCTIONS =
      List.of(
          new Function("InterruptionDrainFunction", "InterruptionDrainRole", "KubernetesGroup"),
          new Function("CostReportFunction", "CostReportRole", "CostKubernetesGroup"),
          new Function(
              "DisruptionScheduleFunction", "DisruptionScheduleRole", "ScheduleKubernetesGroup"),
          new Function(
              "CapacityPreflightFunction", "CapacityPreflightRole", "PreflightKubernetesGroup"));

  static final String ALIAS = "live";

  /** Outputs every deployment of this version has (the others depend on a condition). */
  static final List<String> OUTPUTS =
      List.of(
          "AlarmTopicArn",
          "DashboardName",
          "RehearsalExperimentTemplateId",
          "InterruptionDrainAliasArn",
          "InterruptionDrainRoleArn",
          "CapacityPreflightAliasArn");

  private final Clients c;
  private final Path root;
  private final String stack;
  private final java.time.Clock clock;
  private final List<Finding> findings = new ArrayList<>();
  private Map<String, String> parameters = Map.of();
  private Map<String, String> outputs = Map.of();
  private Map<String, StackResourceSummary> resources = Map.of();
  private String account = "";

  public Doctor(Clients clients, Path root, String stack) {
    this(clients, root, stack, java.time.Clock.systemUTC());
  }

  /** With the clock the last-run check measures its windows from. */
  public Doctor(Clients clients, Path root, String stack, java.time.Clock clock) {
    this.c = clients;
    this.root = root;
    this.stack = stack;
    this.clock = clock;
  }

  /** Runs every check; a check that cannot read what it needs is a FAIL naming the error. */
  public List<Finding> run() {
    if (!stack()) {
      return findings;
    }
    guarded("function aliases", this::aliases);
    guarded("reserved concurrency", this::reservedConcurrency);
    String cluster = parameters.getOrDefault("ClusterName", "");
    guarded("authentication mode", () -> authenticationMode(cluster));
    guarded("access entries", () -> accessEntries(cluster));
    guarded("RBAC and admission manifests", this::manifests);
    guarded("other interruption handlers", this::otherHandlers);
    guarded("rules", this::rules);
    guarded("lifecycle hooks", this::lifecycleHooks);
    guarded(
        DoctorFleet.REBALANCE_CHECK,
        () -> findings.add(DoctorFleet.capacityRebalance(c.eks(), c.autoScaling(), cluster)));
    guarded("schedule policy", this::schedulePolicy);
    guarded("settings documents", this::settingsDocuments);
    guarded(
        "last runs",
        () ->
            findings.addAll(
                DoctorFleet.lastRuns(c.cloudWatch(), parameters, stack, clock.instant())));
    return findings;
  }

  /** The exit code: 1 when a check failed. */
  public static int exitCode(List<Finding> findings) {
    return findings.stream().anyMatch(f -> f.status() == Status.FAIL) ? 1 : 0;
  }

  private void guarded(String check, Runnable body) {
    try {
      body.run();
    } catch (RuntimeException e) {
      fail(check, "could not check: " + e.getMessage(), "give the caller read access and retry");
    }
  }

  private boolean stack() {
    try {
      var s = c.cloudFormation().describeStacks(r -> r.stackName(stack)).stacks().get(0);
      parameters = new TreeMap<>();
      s.parameters().forEach(p -> parameters.put(p.parameterKey(), p.parameterValue()));
      outputs = new TreeMap<>();
      s.outputs().forEach(o -> outputs.put(o.outputKey(), o.outputValue()));
      account = s.stackId().split(":")[4];
      var all = new LinkedHashMap<String, StackResourceSummary>();
      c.cloudFormation()
          .listStackResourcesPaginator(r -> r.stackName(stack))
          .stackResourceSummaries()
          .forEach(r -> all.put(r.logicalResourceId(), r));
      resources = all;
      var missing = OUTPUTS.stream().filter(o -> !outputs.containsKey(o)).toList();
      String status = s.stackStatusAsString();
      if (!status.endsWith("_COMPLETE") || status.contains("ROLLBACK")) {
        fail(
            "stack outputs",
            "stack " + stack + " is " + status,
            "fix the failed deploy, then deploy again");
      } else if (!missing.isEmpty()) {
        fail(
            "stack outputs",
            "stack " + stack + " lacks outputs " + missing + " (deployed from an older version?)",
            "sam deploy this version");
      } else {
        pass("stack outputs", "stack " + stack + " " + status + ", " + outputs.size() + " outputs");
      }
      return true;
    } catch (RuntimeException e) {
      fail(
          "stack outputs",
          "cannot read stack " + stack + ": " + e.getMessage(),
          "pass --stack NAME --region REGION of the deployed stack");
      return false;
    }
  }

  private void aliases() {
    var problems = new ArrayList<String>();
    for (var f : FUNCTIONS) {
      var r = resources.get(f.resource());
      if (r == null) {
        problems.add(f.resource() + " is not in the stack");
        continue;
      }
      try {
        var alias = c.lambda().getAlias(a -> a.functionName(r.physicalResourceId()).name(ALIAS));
        if (alias.functionVersion() == null || alias.functionVersion().equals("$LATEST")) {
          problems.add(r.physicalResourceId() + ":" + ALIAS + " points at $LATEST (no SnapStart)");
        }
      } catch (software.amazon.awssdk.services.lambda.model.ResourceNotFoundException e) {
        problems.add(r.physicalResourceId() + " has no alias " + ALIAS);
      }
    }
    verdict(
        "function aliases",
        problems,
        "every function has alias " + ALIAS + " on a published version",
        "sam deploy again (AutoPublishAlias publishes it)");
  }

  private void reservedConcurrency() {
    var drain = resources.get("InterruptionDrainFunction");
    int wanted = Integer.parseInt(parameters.getOrDefault("DrainReservedConcurrency", "0"));
    var got =
        c.lambda()
            .getFunctionConcurrency(r -> r.functionName(drain.physicalResourceId()))
            .reservedConcurrentExecutions();
    if (got == null) {
      if (wanted > 0) {
        fail(
            "reserved concurrency",
            "the drain has none, the stack asks for " + wanted,
            "sam deploy again (someone removed it)");
      } else {
        warn(
            "reserved concurrency",
            "the drain has no reserved concurrency: other functions can starve it during a mass interruption",
            "deploy with DrainReservedConcurrency=10 (or more)");
      }
    } else if (wanted > 0 && got != wanted) {
      warn(
          "reserved concurrency",
          "the drain has " + got + ", the stack asks for " + wanted,
          "sam deploy again");
    } else {
      pass("reserved concurrency", "the drain has " + got + " reserved");
    }
  }

  private void authenticationMode(String cluster) {
    var access = c.eks().describeCluster(r -> r.name(cluster)).cluster().accessConfig();
    String mode = access == null ? null : access.authenticationModeAsString();
    if ("API".equals(mode) || "API_AND_CONFIG_MAP".equals(mode)) {
      pass("authentication mode", "cluster " + cluster + " accepts access entries (" + mode + ")");
    } else {
      fail(
          "authentication mode",
          "cluster " + cluster + " authentication mode is " + mode + ": access entries are ignored",
          "aws eks update-cluster-config --name "
              + cluster
              + " --access-config authenticationMode=API_AND_CONFIG_MAP");
    }
  }

  private void accessEntries(String cluster) {
    var problems = new ArrayList<String>();
    for (var f : FUNCTIONS) {
      var role = resources.get(f.role());
      if (role == null) {
        problems.add(f.role() + " is not in the stack");
        continue;
      }
      String arn = "arn:aws:iam::" + account + ":role/" + role.physicalResourceId();
      String group = parameters.getOrDefault(f.groupParameter(), "");
      try {
        var groups =
            c.eks()
                .describeAccessEntry(r -> r.clusterName(cluster).principalArn(arn))
                .accessEntry()
                .kubernetesGroups();
        if (!groups.contains(group)) {
          problems.add(
              arn + " is in groups " + groups + ", not " + group + " (" + f.groupParameter() + ")");
        }
      } catch (ResourceNotFoundException e) {
        problems.add("no access entry for " + arn);
      }
    }
    verdict(
        "access entries",
        problems,
        "each function's role has its access entry with the stack's group",
        "deploy with CreateAccessEntry=true, or: aws eks create-access-entry --cluster-name "
            + cluster
            + " --principal-arn ROLE_ARN --kubernetes-groups GROUP");
  }

  private void manifests() {
    var known = ConfinementRender.parameters(root).keySet();
    var overrides = new TreeMap<String, String>();
    parameters.forEach(
        (k, v) -> {
          if (known.contains(k)) {
            overrides.put(k, v);
          }
        });
    var problems = new ArrayList<String>();
    int objects = 0;
    for (var e : ConfinementRender.render(root, overrides).entrySet()) {
      var items =
          c.kubernetes()
              .load(new ByteArrayInputStream(e.getValue().getBytes(StandardCharsets.UTF_8)))
              .items();
      for (HasMetadata want : items) {
        objects++;
        String what = e.getKey() + ": " + want.getKind() + " " + want.getMetadata().getName();
        HasMetadata live = c.kubernetes().resource(want).get();
        if (live == null) {
          problems.add(what + " is not applied");
          continue;
        }
        var wanted =
            (com.fasterxml.jackson.databind.node.ObjectNode) read(Serialization.asJson(want));
        var got = read(Serialization.asJson(live));
        wanted.remove("metadata");
        String diff = firstDifference("", wanted, got);
        if (diff != null) {
          problems.add(what + " differs from this version's render at " + diff);
        }
      }
    }
    String fix =
        overrides.equals(defaults())
            ? "kubectl apply -f deploy/rbac -f deploy/admission"
            : "./gpufleet confinement render "
                + setFlags(overrides)
                + " --out rendered && kubectl apply -f rendered/rbac -f rendered/admission";
    verdict(
        "RBAC and admission manifests",
        problems,
        objects + " objects applied as rendered for the stack's parameters " + overrides,
        fix);
  }

  private Map<String, String> defaults() {
    var d = new TreeMap<String, String>();
    ConfinementRender.parameters(root)
        .forEach((k, v) -> d.put(k, String.valueOf(v.defaultValue())));
    return d;
  }

  private static String setFlags(Map<String, String> overrides) {
    var sb = new StringBuilder();
    overrides.forEach(
        (k, v) ->
            sb.append(sb.isEmpty() ? "" : " ").append("--set ").append(k).append('=').append(v));
    return sb.toString();
  }

  private static JsonNode read(String json) {
    try {
      return Json.MAPPER.readTree(json);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Where {@code live} lacks or changes what {@code want} sets (fields the server adds are fine).
   */
  public static String firstDifference(String path, JsonNode want, JsonNode live) {
    if (want.isObject()) {
      if (!live.isObject()) {
        return path.isEmpty() ? "/" : path;
      }
      for (var f : want.properties()) {
        String d = firstDifference(path + "/" + f.getKey(), f.getValue(), live.path(f.getKey()));
        if (d != null) {
          return d;
        }
      }
      return null;
    }
    if (want.isArray()) {
      if (!live.isArray() || live.size() != want.size()) {
        return path;
      }
      for (int i = 0; i < want.size(); i++) {
        String d = firstDifference(path + "/" + i, want.get(i), live.get(i));
        if (d != null) {
          return d;
        }
      }
      return null;
    }
    return want.asText().equals(live.asText()) && !live.isMissingNode()
        ? null
        : path + " (want " + want + ", found " + (live.isMissingNode() ? "nothing" : live) + ")";
  }

  private void otherHandlers() {
    var kube = c.kubernetes();
    var seen = new ArrayList<String>();
    for (var d : kube.apps().deployments().inAnyNamespace().list().getItems()) {
      String name = d.getMetadata().getName();
      if (name.contains("aws-node-termination-handler")) {
        seen.add("NTH (Deployment " + d.getMetadata().getNamespace() + "/" + name + ")");
      }
      if (name.equals("karpenter")) {
        var env = new HashMap<String, String>();
        d.getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .forEach(
                ct -> {
                  if (ct.getEnv() != null) {
                    ct.getEnv().forEach(v -> env.put(v.getName(), v.getValue()));
                  }
                });
        String queue = env.get("INTERRUPTION_QUEUE");
        if (queue != null && !queue.isBlank()) {
          seen.add("Karpenter's interruption queue " + queue);
        }
      }
    }
    for (var ds : kube.apps().daemonSets().inAnyNamespace().list().getItems()) {
      if (ds.getMetadata().getName().contains("aws-node-termination-handler")) {
        seen.add(
            "NTH (DaemonSet "
                + ds.getMetadata().getNamespace()
                + "/"
                + ds.getMetadata().getName()
                + ")");
      }
    }
    boolean leaves =
        "true"
            .equalsIgnoreCase(settings(DRAIN).getOrDefault("DRAIN_LEAVE_KARPENTER_NODES", "false"));
    if (seen.isEmpty()) {
      pass(
          "other interruption handlers",
          "neither Karpenter's interruption queue nor NTH: the drain is the only handler");
    } else if (leaves) {
      pass(
          "other interruption handlers",
          String.join(", ", seen)
              + " present; the drain leaves Karpenter's nodes to it"
              + " (DRAIN_LEAVE_KARPENTER_NODES: true in its settings document)");
    } else {
      warn(
          "other interruption handlers",
          String.join(", ", seen)
              + " also drains on the same events: two handlers race on one node",
          "set DRAIN_LEAVE_KARPENTER_NODES: true in the drain's settings document (./gpufleet"
              + " settings put interruption-drain FILE --stack "
              + stack
              + "; Karpenter's nodes are then left to Karpenter), or turn the other handler off");
    }
  }

  private void rules() {
    var problems = new ArrayList<String>();
    int n = 0;
    for (var r : resources.values()) {
      if (!r.resourceType().equals("AWS::Events::Rule")) {
        continue;
      }
      n++;
      String name = r.physicalResourceId();
      String bus = name.contains("|") ? name.substring(0, name.indexOf('|')) : null;
      String rule = name.contains("|") ? name.substring(name.indexOf('|') + 1) : name;
      var described = c.events().describeRule(d -> d.name(rule).eventBusName(bus));
      if (!"ENABLED".equals(described.stateAsString())) {
        problems.add(rule + " is " + described.stateAsString());
      }
      var targets = c.events().listTargetsByRule(t -> t.rule(rule).eventBusName(bus)).targets();
      if (targets.isEmpty()) {
        problems.add(rule + " has no target");
      }
      for (var t : targets) {
        String arn = t.arn();
        boolean lambda = arn.contains(":lambda:");
        if (lambda && !arn.endsWith(":" + ALIAS)) {
          problems.add(rule + " targets " + arn + ", not the alias " + ALIAS);
        }
      }
    }
    verdict(
        "rules",
        problems,
        n + " rules enabled, each targeting an alias or a queue",
        "sam deploy again (someone disabled or retargeted a rule); aws events enable-rule --name RULE");
  }

  private void lifecycleHooks() {
    String names = parameters.getOrDefault("LifecycleHookGroupNames", "");
    var groups = names.isBlank() ? List.<String>of() : List.of(names.split(","));
    if (groups.isEmpty()) {
      pass(
          "lifecycle hooks",
          "the stack names no Auto Scaling group (LifecycleHookGroupNames empty)");
      return;
    }
    var problems = new ArrayList<String>();
    for (String g : groups) {
      var hooks =
          c.autoScaling()
              .describeLifecycleHooks(r -> r.autoScalingGroupName(g.strip()))
              .lifecycleHooks();
      if (hooks.stream()
          .noneMatch(h -> "autoscaling:EC2_INSTANCE_TERMINATING".equals(h.lifecycleTransition()))) {
        problems.add(g.strip() + " has no EC2_INSTANCE_TERMINATING hook");
      }
    }
    verdict(
        "lifecycle hooks",
        problems,
        groups.size() + " groups hold a terminating hook",
        "deploy with LifecycleHookForGroup, or: aws autoscaling put-lifecycle-hook --auto-scaling-group-name GROUP --lifecycle-transition autoscaling:EC2_INSTANCE_TERMINATING ...");
  }

  private void schedulePolicy() {
    String where = parameters.getOrDefault("SchedulePolicy", "");
    if (!where.startsWith("ssm:")) {
      warn(
          "schedule policy",
          "the policy is at " + where + ": doctor reads ssm: policies only",
          "check the object with the schedule's dry run (ScheduleDryRun=true)");
      return;
    }
    String name = where.substring("ssm:".length());
    String text = c.ssm().getParameter(r -> r.name(name).withDecryption(true)).parameter().value();
    try {
      var policy = io.gpufleet.schedule.policy.PolicyParser.parse(text, where);
      var problems = io.gpufleet.schedule.policy.Guardrails.defaults().problems(policy);
      verdict(
          "schedule policy",
          problems,
          where
              + " parses and is within the guardrails ("
              + policy.nodePools().size()
              + " NodePools, "
              + policy.workloads().size()
              + " workloads)",
          "fix the policy in " + where + " (deploy/policy/disruption-schedule.example.yaml)");
    } catch (io.gpufleet.core.config.ConfigException e) {
      fail(
          "schedule policy",
          where + " is invalid: " + e.getMessage(),
          "fix the policy in " + where + " (deploy/policy/disruption-schedule.example.yaml)");
    }
  }

  static final String DRAIN = "interruption-drain";

  /** Each function's settings document as deployed: absent (defaults) or valid by its schema. */
  private void settingsDocuments() {
    var problems = new ArrayList<String>();
    var found = new ArrayList<String>();
    for (String function : EnvironmentReference.HANDLERS.keySet()) {
      try {
        var knobs = settings(function);
        found.add(function + (knobs.isEmpty() ? ": defaults" : ": " + knobs.size() + " set"));
      } catch (io.gpufleet.core.config.ConfigException e) {
        problems.add(e.getMessage());
      }
    }
    verdict(
        "settings documents",
        problems,
        String.join(", ", found),
        "fix the document and write it back with ./gpufleet settings put FUNCTION FILE --stack "
            + stack
            + " (it is checked before it is written)");
  }

  /** A function's settings document as deployed, by knob (empty: none, every knob at default). */
  private Map<String, String> settings(String function) {
    String name = io.gpufleet.core.schema.SettingsDocument.parameterName(stack, function);
    try {
      String text =
          c.ssm().getParameter(r -> r.name(name).withDecryption(true)).parameter().value();
      return io.gpufleet.core.schema.SettingsDocument.values(function, text, "ssm:" + name);
    } catch (software.amazon.awssdk.services.ssm.model.ParameterNotFoundException e) {
      return Map.of();
    }
  }

  private void verdict(String check, List<String> problems, String ok, String fix) {
    if (problems.isEmpty()) {
      pass(check, ok);
    } else {
      fail(check, String.join("; ", problems), fix);
    }
  }

  private void pass(String check, String detail) {
    findings.add(new Finding(check, Status.PASS, detail, ""));
  }

  private void warn(String check, String detail, String fix) {
    findings.add(new Finding(check, Status.WARN, detail, fix));
  }

  private void fail(String check, String detail, String fix) {
    findings.add(new Finding(check, Status.FAIL, detail, fix));
  }
}
