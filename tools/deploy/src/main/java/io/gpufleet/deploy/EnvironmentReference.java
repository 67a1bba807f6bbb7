package io.gpufleet.deploy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.cost.wiring.CostWiring;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * docs/environment.md, generated from the code. For each function, its Lambda init wiring ({@code
 * *Wiring.fromEnvironment()}) runs once with {@link Settings#fromEnvironment()} answering the
 * environment template.yaml gives that function (parameters at their defaults, the branch of an
 * {@code Fn::If} that sets the variable); {@link Settings} reports every read with its kind,
 * fallback and accepted values. Names, types, defaults and ranges therefore come from the code that
 * reads them.
 *
 * <p>Descriptions come from one place per variable: a variable the template fills from a parameter
 * ({@code !Ref Param}, also inside {@code Fn::If} with {@code AWS::NoValue}) takes that parameter's
 * Description (what {@code sam deploy --guided} shows the operator); every other variable takes its
 * line in {@link #DESCRIPTIONS}. Variables the template sets for the runtime or a library rather
 * than for this code are listed in {@link #READ_ELSEWHERE}.
 */
public final class EnvironmentReference {
  /** Where the page lives, from the repository root. */
  public static final String PAGE = "docs/environment.md";

  /** Each function by the handler its template resource names. */
  static final Map<String, String> HANDLERS =
      orderedMap(
          "interruption-drain", "io.gpufleet.drain.wiring.DrainHandler::handleRequest",
          "disruption-schedule", "io.gpufleet.schedule.wiring.ScheduleHandler::handleRequest",
          "capacity-preflight", "io.gpufleet.preflight.wiring.PreflightHandler::handleRequest",
          "cost-report", "io.gpufleet.cost.wiring.CostHandler::handleRequest");

  /**
   * Set for the recording run only, as Lambda (AWS_REGION) or a local run (KUBE_API_URL, so init
   * builds the cluster client without calling EKS DescribeCluster) would.
   */
  static final Map<String, String> RUN_ENVIRONMENT =
      Map.of("AWS_REGION", "us-east-1", "KUBE_API_URL", "https://127.0.0.1:6443");

  /** Descriptions of the variables no template parameter feeds: one line each. */
  static final Map<String, String> DESCRIPTIONS =
      new TreeMap<>(
          Map.ofEntries(
              Map.entry(
                  "AWS_REGION",
                  "Region of the function's AWS clients; Lambda sets it (the CLI: --region or"
                      + " the shell)."),
              Map.entry(
                  "AWS_DEFAULT_REGION", "Region used when AWS_REGION is unset (local runs only)."),
              Map.entry(
                  "KUBE_API_URL",
                  "Local runs and tests: this API server URL instead of the EKS cluster found"
                      + " with DescribeCluster."),
              Map.entry(
                  "KUBE_CA_DATA",
                  "With KUBE_API_URL: base64 PEM of the API server's CA (unset: trust the"
                      + " server only over http://)."),
              Map.entry("KUBE_TOKEN", "With KUBE_API_URL: the bearer token sent to it."),
              Map.entry(
                  SettingsDocument.VARIABLE,
                  "Where the function's settings document is (ssm:/parameter/name,"
                      + " s3://bucket/key or file:/path): the knobs whose Template column says"
                      + " \"settings document\", checked at init by"
                      + " schemas/settings/<function>.schema.json (docs/settings.md). No document"
                      + " there: every knob keeps its default."),
              Map.entry(
                  "SLACK_WEBHOOK_URL",
                  "Not read any more: set, it fails init (an environment variable is readable"
                      + " with lambda:GetFunctionConfiguration); use SLACK_WEBHOOK_SECRET."),
              Map.entry(
                  "SECRET_CACHE_TTL",
                  "How long the Slack webhook URL read from Secrets Manager is kept before it"
                      + " is read again."),
              Map.entry(
                  "POWERTOOLS_SERVICE_NAME",
                  "The function's name in logs and the Service dimension of every metric"
                      + " (Powertools reads it too)."),
              Map.entry(
                  "POWERTOOLS_METRICS_NAMESPACE",
                  "CloudWatch namespace of the EMF metrics (Powertools reads it too)."),
              Map.entry(
                  "PRICING_ENDPOINT_REGION",
                  "Pricing API endpoint to call (unset: the one nearest the function's"
                      + " region)."),
              Map.entry(
                  "PRICING_RATE_PER_SECOND",
                  "Pricing API requests per second this function allows itself (token"
                      + " bucket)."),
              Map.entry("PRICING_BURST", "Size of that token bucket: requests sent at once."),
              Map.entry(
                  "PRICING_API",
                  "false = never call the Pricing API: cached prices, then the static table."),
              Map.entry(
                  "PRICE_CACHE_TTL",
                  "Age after which a cached On-Demand price is looked up again."),
              Map.entry(
                  "PRICE_CACHE_KEY", "Object key of the On-Demand price cache in the bucket."),
              Map.entry(
                  "LIFECYCLE_CONTINUATION_QUEUE_URL",
                  "SQS queue through which the drain resumes work that outlives an invocation:"
                      + " a lifecycle drain still going, a rebalance's hold waiting for the"
                      + " replacement (unset: neither continues; a held rebalance evicts at"
                      + " once)."),
              Map.entry(
                  "REPORT_BUCKET",
                  "Bucket of reports, inventory snapshots and the price cache (required in"
                      + " Lambda; the CLI writes to --out)."),
              Map.entry(
                  "COST_WINDOW",
                  "Window reported when the trigger names none (last-hour, last-day, ...)."),
              Map.entry(
                  "SCHEDULE_RECORDS_BUCKET",
                  "Bucket (the report bucket) the schedule writes its hold records to, under"
                      + " schedule/ (read by the named query schedule-savings); empty: none."),
              Map.entry(
                  "SCHEDULE_ACCOUNT_ID",
                  "Account partition of the hold records (12 digits; required with"
                      + " SCHEDULE_RECORDS_BUCKET)."),
              Map.entry(
                  "COST_ACCOUNT_ID",
                  "Billing account of the FOCUS rows (12 digits); set, the report also writes"
                      + " FOCUS files under focus/."),
              Map.entry(
                  "COST_FOCUS",
                  "on (default when COST_ACCOUNT_ID is set) or off: FOCUS 1.2 Parquet files per"
                      + " whole UTC hour or day window."),
              Map.entry(
                  "COST_SNAPSHOT_RETENTION",
                  "How long gone nodes and pods stay in the inventory snapshot (must cover"
                      + " month to date)."),
              Map.entry(
                  "COST_PRICING_CONCURRENCY",
                  "Price lookups in flight (the Pricing API token bucket still limits the"
                      + " rate)."),
              Map.entry(
                  "DRAIN_CAPACITY_BLOCK_EC2_LOOKUP",
                  "Find a Capacity Block's instances with EC2 DescribeInstances too (nodes"
                      + " without Karpenter's label); false = labels only."),
              Map.entry(
                  "DRAIN_EARLY_REPLACEMENT",
                  "Replacement before removal for Auto Scaling groups tagged"
                      + " gpufleet.io/replace-early=true (no Capacity Rebalancing): raise by one on"
                      + " a rebalance, Spot or reservation warning, terminate the old instance"
                      + " with ShouldDecrementDesiredCapacity after the drain; false = no Auto"
                      + " Scaling calls."),
              Map.entry(
                  "DRAIN_NODE_LOOKUP_EC2",
                  "Find an instance's node with one EC2 DescribeInstances (private DNS name,"
                      + " checked by providerID; cluster tags pick the cluster) instead of listing"
                      + " every node; misses and EC2 failures fall back to the listing; false ="
                      + " always list."),
              Map.entry(
                  "ROUTING_NEGATIVE_MAX",
                  "Most instances remembered as in no listed cluster (see ROUTING_NEGATIVE_TTL)."),
              Map.entry("SCHEDULE_WRITE_CONCURRENCY", "Server-side applies in flight at once."),
              Map.entry(
                  "EVENT_ACCOUNTS",
                  "Accounts whose events the drain acts on (comma separated): the stack's own plus"
                      + " DrainEventAccounts; the decoder refuses an event of any other account."
                      + " Empty: every account (local runs)."),
              Map.entry(
                  "SCHEDULE_PROTECTED_NAMESPACES",
                  "Namespaces no policy may name or scale, added to the built-in ones (kube-system,"
                      + " kube-public, kube-node-lease, karpenter, gpu-operator,"
                      + " nvidia-gpu-operator, gpufleet-system); comma separated."),
              Map.entry(
                  "SCHEDULE_MAX_REPLICAS", "Replica ceiling of every workload rule and window."),
              Map.entry(
                  "SCHEDULE_MAX_CHANGES",
                  "Objects one run may change; a run that would change more writes nothing and"
                      + " reports GUARDRAIL (alarmed)."),
              Map.entry(
                  "SCHEDULE_FLOOR_WINDOWS",
                  "Windows (comma separated) in which budgets have a floor: at most"
                      + " SCHEDULE_FLOOR_MAX_DISRUPTION of a pool's nodes (or 1 node) disrupted at"
                      + " once, consolidateAfter at least 1m."),
              Map.entry(
                  "SCHEDULE_FLOOR_MAX_DISRUPTION",
                  "Percent of a pool's nodes a budget may let be disrupted at once in the floor"
                      + " windows."),
              Map.entry(
                  "SCHEDULE_KUBE_EVENTS", "Write a Kubernetes Event on every changed object."),
              Map.entry(
                  "PREFLIGHT_PLAN",
                  "The plan itself (YAML or JSON), instead of PREFLIGHT_PLAN_S3_URI."),
              Map.entry("PREFLIGHT_REGION_CONCURRENCY", "Regions checked at once."),
              Map.entry("PREFLIGHT_CALL_CONCURRENCY", "AWS calls in flight per region."),
              Map.entry(
                  "PREFLIGHT_REGION_TIMEOUT",
                  "After this long a region's answer is UNKNOWN and the report goes on."),
              Map.entry(
                  "PREFLIGHT_LOW_SPOT_SCORE",
                  "Spot placement scores below this are reported as a risk."),
              Map.entry(
                  "PREFLIGHT_CAPACITY_BLOCK_HOURS",
                  "Duration asked of Capacity Block offerings: "
                      + io.gpufleet.preflight.CapacityBlocks.DURATIONS
                      + " (EC2 refuses others)."),
              Map.entry(
                  "PREFLIGHT_PRICE_WAIT",
                  "Longest wait for one On-Demand price before the static table answers."),
              Map.entry(
                  "RESULTS_BUCKET",
                  "Bucket of preflight reports, dedupe markers and the price cache (unset:"
                      + " nothing is stored)."),
              Map.entry("RESULTS_PREFIX", "Key prefix of everything preflight stores there."),
              Map.entry(
                  "QUOTA_INCREASE_FACTOR",
                  "An increase asks for quota x this, or what the plan needs if more, capped"
                      + " at QUOTA_INCREASE_MAX_VCPU."),
              Map.entry(
                  "ROUTING_NEGATIVE_TTL",
                  "How long an instance found in no listed cluster is answered NOT_IN_CLUSTER without looking again (state changes and rebalance recommendations only; warnings and lifecycle actions always look). 0 = off. At most 1h."),
              Map.entry(
                  "DRAIN_ACTIONS",
                  "Actions per event kind; empty = built-in defaults. Kinds not named keep their default, 'none' disables a kind. Example spot-interruption=taint+cordon+drain;rebalance=taint+cordon;state-change=cordon+drain;health-scheduled=taint+cordon+drain"),
              Map.entry(
                  "DRAIN_DEADLINE_MARGIN",
                  "Stop evicting this long before the two-minute Spot notice ends (15, 15s, 500ms, 1m; at most 90s)."),
              Map.entry(
                  "DRAIN_SKIP_DAEMONSETS",
                  "Leave DaemonSet pods on the node (kubectl drain --ignore-daemonsets)."),
              Map.entry(
                  "DRAIN_EXCLUDE_FROM_LB",
                  "Label the node node.kubernetes.io/exclude-from-external-load-balancers before draining it."),
              Map.entry("DRAIN_EVICTION_CONCURRENCY", "Evictions in flight at once."),
              Map.entry(
                  "DRAIN_EXCLUDE_NODES",
                  "Label selector (kubectl syntax, e.g. gpufleet.io/no-drain=true,team notin (infra)); nodes it matches are never touched and their outcome says EXCLUDED. Empty = none."),
              Map.entry(
                  "DRAIN_LEAVE_KARPENTER_NODES",
                  "Leave nodes labelled karpenter.sh/nodepool to Karpenter's own interruption queue (set true when Karpenter's --interruption-queue is configured for this cluster)."),
              Map.entry(
                  "DRAIN_DRY_RUN",
                  "Log and answer what each event would do (outcome DRY_RUN), change nothing."),
              Map.entry(
                  "DRAIN_MESSAGE_TEMPLATE",
                  "Text of the SNS/Slack summary with placeholders {kind} {status} {node} {instance} {cluster} {event} {message} {evicted} {left} {podsLeft} {deadline} {deadlineMet} {hookResult}; {{ and }} are literal braces. Empty = the built-in summary. Checked at init."),
              Map.entry(
                  "LIFECYCLE_HEARTBEAT_INTERVAL",
                  "RecordLifecycleActionHeartbeat this often while pods remain (30s-1h)."),
              Map.entry(
                  "LIFECYCLE_CHECK_INTERVAL",
                  "A drain still going when an invocation ends resumes this much later (10s-15m)."),
              Map.entry(
                  "LIFECYCLE_MAX_DRAIN",
                  "Longest lifecycle drain (at most 48h); then the action completes with LIFECYCLE_RESULT_AT_LIMIT."),
              Map.entry(
                  "LIFECYCLE_RESULT_AT_LIMIT",
                  "CompleteLifecycleAction result when LIFECYCLE_MAX_DRAIN is reached."),
              Map.entry(
                  "LIFECYCLE_LAUNCH_READY_TIMEOUT",
                  "A launch hook completes when its node is Ready, or after this long (0 = at once)."),
              Map.entry(
                  "COST_ALLOCATION_RULE",
                  "How node cost is split over pods: gpu (by GPU request), cpu-memory, or weighted:gpu=W,cpu=W,memory=W (weights adding up to 1). Stated in every report header."),
              Map.entry(
                  "PREFLIGHT_CANDIDATE_REGIONS",
                  "Comma-separated regions a plan with 'regions: all' looks at. Empty = the 17 regions every account has enabled."),
              Map.entry(
                  "QUOTA_INCREASE_MAX_VCPU",
                  "The most vCPU an automatic increase request may ever ask for (needed when enabled)."),
              Map.entry(
                  "COST_PROMETHEUS_URL",
                  "With the parameter CostUtilisation=prometheus, the query API base URL, e.g. https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-... (the function must reach it)."),
              Map.entry(
                  "COST_GPU_SHARING_REPLICAS",
                  "CONFIG=N pairs: time-slicing/MPS replicas of each NVIDIA device-plugin config (node label nvidia.com/device-plugin.config) for nodes without an nvidia.com/gpu.replicas label."),
              Map.entry(
                  "COST_EFFECTIVE_RATES",
                  "With the parameter CostCommitments=rate-table, TYPE=USD_PER_HOUR pairs, comma separated; a family as FAMILY.* (e.g. p5.48xlarge=31.20,p4d.*=14.80).")));

  /**
   * Variables the template sets that this code does not read: who reads them and why they are set.
   */
  static final Map<String, String> READ_ELSEWHERE =
      new TreeMap<>(
          Map.of(
              "POWERTOOLS_SERVICE_NAME",
              "Powertools for AWS Lambda: the service name on every log line and metric (SnapStart"
                  + " priming names it too).",
              "POWERTOOLS_LOG_LEVEL",
              "Powertools for AWS Lambda: the log level.",
              "JAVA_TOOL_OPTIONS",
              "The JVM, at start: tiered compilation stopped at C1 and the serial collector, for"
                  + " a short cold start; a 96 MB young generation and a 64 MB first metaspace"
                  + " threshold, so a cold start runs one young collection instead of six and no"
                  + " full one."));

  /**
   * One variable of one function as the code reads it and the template sets it; {@code setting}: a
   * knob of the function's settings document (the template leaves it to the document).
   */
  record Variable(
      String name,
      String type,
      String fallback,
      String accepts,
      boolean required,
      String template,
      String description,
      boolean setting) {
    Variable inSettings() {
      return new Variable(
          name, type, fallback, accepts, required, "settings document", description, true);
    }
  }

  /** A knob the settings document decides: read, not required, not set by the template. */
  static boolean isSetting(Variable v) {
    return !v.required() && v.template() == null && !ENVIRONMENT_ONLY.contains(v.name());
  }

  /** One function: its template resources and its variables by name. */
  record FunctionVariables(
      String function,
      List<String> resources,
      List<Variable> variables,
      Map<String, String> elsewhere) {}

  /**
   * Variables no settings document may set: they say where the function runs (region, a local API
   * server), where the document itself is, or are refused outright.
   */
  static final Set<String> ENVIRONMENT_ONLY =
      Set.of(
          "AWS_REGION",
          "AWS_DEFAULT_REGION",
          "KUBE_API_URL",
          "KUBE_CA_DATA",
          "KUBE_TOKEN",
          "SLACK_WEBHOOK_URL",
          SettingsDocument.VARIABLE,
          "PREFLIGHT_PLAN");

  /**
   * The page, each function's settings schema (by path from the root) and what is wrong between
   * code, template and descriptions (empty: nothing).
   */
  public record Result(String markdown, Map<String, String> schemas, List<String> problems) {
    /** Every generated file by its path from the repository root. */
    public Map<String, String> files() {
      var out = new LinkedHashMap<String, String>();
      out.put(PAGE, markdown);
      out.putAll(schemas);
      return out;
    }
  }

  private final Path root;
  private final Map<String, Object> template;

  public EnvironmentReference(Path root) {
    this.root = root;
    try {
      this.template = CfnYaml.load(Files.readString(root.resolve("template.yaml")));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + root.resolve("template.yaml"), e);
    }
  }

  /** The repository root: the nearest directory above {@code from} holding template.yaml. */
  public Path page() {
    return root.resolve(PAGE);
  }

  /** Runs every function's init wiring on its template environment and writes up the reads. */
  public Result generate() {
    var problems = new ArrayList<String>();
    var functions = new ArrayList<FunctionVariables>();
    var byParameter = new TreeMap<String, String>();
    var readAnywhere = new TreeSet<String>();
    // per function: variable -> raw template value, Globals first, the function's own over them
    var rawByFunction = new LinkedHashMap<String, Map<String, Object>>();
    var resources = new LinkedHashMap<String, List<String>>();
    for (var f : HANDLERS.entrySet()) {
      List<String> ids = resourcesWithHandler(f.getValue());
      if (ids.isEmpty()) {
        problems.add(f.getKey() + ": no AWS::Serverless::Function with Handler " + f.getValue());
        continue;
      }
      var raw = new LinkedHashMap<String, Object>();
      raw.putAll(variables(globals()));
      for (String id : ids) {
        raw.putAll(variables(properties(id)));
      }
      rawByFunction.put(f.getKey(), raw);
      resources.put(f.getKey(), ids);
      // a parameter's Description describes its variable in every function
      raw.forEach((name, value) -> parameterOf(value).ifPresent(p -> byParameter.put(name, p)));
    }
    for (var f : rawByFunction.entrySet()) {
      var raw = f.getValue();
      List<String> ids = resources.get(f.getKey());
      var env = new LinkedHashMap<String, String>();
      raw.forEach((name, value) -> resolve(value).ifPresent(v -> env.put(name, v)));
      RUN_ENVIRONMENT.forEach(env::putIfAbsent);
      // the reads are the code's defaults: no settings document is fetched while recording
      env.put(SettingsDocument.VARIABLE, "");

      Map<String, List<Settings.Read>> reads = new LinkedHashMap<>();
      try {
        record(f.getKey(), env, reads);
      } catch (RuntimeException e) {
        problems.add(f.getKey() + ": init failed on the template's environment: " + e);
      }
      readAnywhere.addAll(reads.keySet());
      var vars = new ArrayList<Variable>();
      for (var r : reads.entrySet()) {
        String name = r.getKey();
        Optional<String> parameter = Optional.ofNullable(byParameter.get(name));
        String description =
            parameter
                .map(p -> "Parameter " + p + ": " + oneLine(parameterDescription(p)))
                .orElse(DESCRIPTIONS.get(name));
        if (description == null) {
          problems.add(
              f.getKey()
                  + " reads "
                  + name
                  + " but it has no description: add it to EnvironmentReference.DESCRIPTIONS"
                  + " (or feed it from a template parameter with a Description)");
          description = "";
        }
        Variable read = merge(name, r.getValue(), templateValue(raw.get(name)), description);
        Variable v = isSetting(read) ? read.inSettings() : read;
        parameter.ifPresent(p -> problems.addAll(disagreements(f.getKey(), v, p)));
        vars.add(v);
      }
      var elsewhere = new TreeMap<String, String>();
      for (String name : raw.keySet()) {
        if (reads.containsKey(name)) {
          continue;
        }
        String who = READ_ELSEWHERE.get(name);
        if (who == null) {
          problems.add(
              f.getKey()
                  + ": template.yaml sets "
                  + name
                  + " but no code of the function reads it (remove it, or name its reader in"
                  + " EnvironmentReference.READ_ELSEWHERE)");
        } else {
          elsewhere.put(name, who);
        }
      }
      functions.add(new FunctionVariables(f.getKey(), ids, vars, elsewhere));
    }
    for (String name : DESCRIPTIONS.keySet()) {
      if (byParameter.containsKey(name)) {
        problems.add(
            name
                + " is described twice: by parameter "
                + byParameter.get(name)
                + " and in EnvironmentReference.DESCRIPTIONS (drop the latter)");
      } else if (!readAnywhere.contains(name)) {
        problems.add(
            name + " is described in EnvironmentReference.DESCRIPTIONS but nothing reads it");
      }
    }
    var schemas = new LinkedHashMap<String, String>();
    for (var f : functions) {
      schemas.put(
          SettingsSchema.path(f.function()), SettingsSchema.render(f.function(), f.variables()));
    }
    return new Result(render(functions), schemas, problems);
  }

  /**
   * What a template parameter accepts that the code feeding on it refuses: a stack that deploys
   * would fail at init. Numbers: MinValue..MaxValue inside the code's range; AllowedValues: each
   * one the code accepts.
   */
  private List<String> disagreements(String function, Variable v, String parameter) {
    var out = new ArrayList<String>();
    Map<String, Object> p = map(parameters().get(parameter));
    String where = function + ": parameter " + parameter + " (" + v.name() + ") ";
    if (v.type().equals("integer") && v.accepts() != null) {
      String[] range = v.accepts().split("\\.\\.");
      long min = Long.parseLong(range[0]);
      long max = Long.parseLong(range[1]);
      Object lo = p.get("MinValue");
      Object hi = p.get("MaxValue");
      if (lo == null || hi == null) {
        out.add(where + "has no MinValue/MaxValue; the code accepts " + v.accepts());
      } else if (Long.parseLong(String.valueOf(lo)) < min
          || Long.parseLong(String.valueOf(hi)) > max) {
        out.add(where + "allows " + lo + ".." + hi + "; the code accepts " + v.accepts());
      }
    }
    if (p.get("AllowedValues") instanceof List<?> allowed) {
      List<String> accepted =
          switch (v.type()) {
            case "enum" -> List.of(v.accepts().split(" \\| "));
            case "boolean" -> List.of("true", "false");
            default -> null;
          };
      if (accepted != null) {
        for (Object a : allowed) {
          if (!accepted.contains(String.valueOf(a))) {
            out.add(where + "allows '" + a + "'; the code accepts " + accepted);
          }
        }
      }
    }
    return out;
  }

  /** The reads of one function's init, in first-read order. */
  static void record(
      String function, Map<String, String> env, Map<String, List<Settings.Read>> reads) {
    var settings =
        new Settings(
            env, read -> reads.computeIfAbsent(read.name(), n -> new ArrayList<>()).add(read));
    Supplier<Object> init =
        switch (function) {
          case "interruption-drain" -> () -> close(DrainWiring.fromEnvironment().client());
          case "disruption-schedule" -> () -> close(ScheduleWiring.fromEnvironment().client());
          case "cost-report" -> () -> close(CostWiring.fromEnvironment().client());
          case "capacity-preflight" -> () -> PreflightWiring.fromEnvironment();
          default -> throw new IllegalArgumentException("unknown function " + function);
        };
    Settings.withEnvironment(settings, init);
    if (reads.containsKey("KUBE_API_URL")) {
      // the bearer token is read on the cluster client's first request: ask for it here
      try (KubernetesClient kube =
          KubeClients.fromEnvironment(
              settings,
              "unused",
              () -> {
                throw new IllegalStateException("no AWS call while recording");
              },
              Clock.systemUTC())) {
        kube.getConfiguration().getOauthTokenProvider().getToken();
      }
    }
  }

  private static Object close(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return null;
  }

  private static Variable merge(
      String name, List<Settings.Read> reads, String template, String description) {
    String kind = "string";
    String fallback = null;
    String accepts = null;
    boolean required = false;
    for (var r : reads) {
      if (r.kind().equals("required")) {
        required = true;
      } else if (kind.equals("string")) {
        kind = r.kind();
      }
      fallback = fallback != null ? fallback : r.fallback();
      accepts = accepts != null ? accepts : r.accepts();
    }
    String type =
        switch (kind) {
          case "bool" -> "boolean";
          case "one-of" -> "enum";
          default -> kind;
        };
    return new Variable(name, type, fallback, accepts, required, template, description, false);
  }

  private String render(List<FunctionVariables> functions) {
    var md = new StringBuilder();
    md.append("# Environment variables\n\n")
        .append(
            "<!-- Generated by `./gpufleet docs environment` from the code; do not edit. A test"
                + " (EnvironmentReferenceTest) fails when this page and the code disagree. -->\n\n")
        .append(
            "Every variable each function reads at init, as its code reads it: each function's"
                + " Lambda wiring runs once on the environment `template.yaml` gives it"
                + " (parameters at their defaults), and `io.gpufleet.core.config.Settings` notes"
                + " every read with its type, default and accepted values. **Template** says what"
                + " the template sets the variable to; a description that starts with"
                + " \"Parameter\" is that template parameter's own Description; \"settings"
                + " document\" means the template leaves the knob to the function's settings"
                + " document (`SETTINGS_DOCUMENT`, docs/settings.md), keyed by the variable's"
                + " name. The CLI reads the same variables (its flags set them). Durations take `15`, `15s`, `500ms`,"
                + " `2m` or `1h`; an empty value counts as unset.\n\n")
        .append("Functions:");
    for (var f : functions) {
      md.append(" [").append(f.function()).append("](#").append(f.function()).append(")");
    }
    md.append("\n");
    for (var f : functions) {
      md.append("\n## ").append(f.function()).append("\n\n");
      md.append("Template resource")
          .append(f.resources().size() > 1 ? "s" : "")
          .append(": ")
          .append(String.join(", ", f.resources().stream().map(r -> "`" + r + "`").toList()))
          .append(" (handler `")
          .append(HANDLERS.get(f.function()))
          .append("`).\n\n");
      md.append("| Variable | Type | Default | Accepts | Required | Template | Description |\n");
      md.append("|---|---|---|---|---|---|---|\n");
      for (var v : f.variables()) {
        md.append("| `")
            .append(v.name())
            .append("` | ")
            .append(v.type())
            .append(" | ")
            .append(code(v.fallback()))
            .append(" | ")
            .append(v.accepts() == null ? "" : cell(v.accepts()))
            .append(" | ")
            .append(v.required() ? "yes" : "no")
            .append(" | ")
            .append(v.template() == null ? "" : cell(v.template()))
            .append(" | ")
            .append(cell(v.description()))
            .append(" |\n");
      }
      if (!f.elsewhere().isEmpty()) {
        md.append("\nAlso set by the template, read by the runtime or a library:\n\n");
        f.elsewhere()
            .forEach(
                (name, who) ->
                    md.append("- `").append(name).append("`: ").append(who).append("\n"));
      }
    }
    return md.toString();
  }

  private static String code(String value) {
    if (value == null) {
      return "";
    }
    if (value.isEmpty()) {
      return "(empty)";
    }
    return "`" + value.replace("|", "\\|") + "`";
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

  private static String oneLine(String text) {
    return text == null ? "" : text.trim().replaceAll("\\s+", " ");
  }

  // ---- the template ----

  private List<String> resourcesWithHandler(String handler) {
    var ids = new ArrayList<String>();
    Object globalHandler = globals().get("Handler");
    for (var e : map(template.get("Resources")).entrySet()) {
      Map<String, Object> r = map(e.getValue());
      if (!"AWS::Serverless::Function".equals(r.get("Type"))) {
        continue;
      }
      Object h = map(r.get("Properties")).getOrDefault("Handler", globalHandler);
      if (handler.equals(h)) {
        ids.add(e.getKey());
      }
    }
    return ids;
  }

  private Map<String, Object> globals() {
    return map(map(template.get("Globals")).get("Function"));
  }

  private Map<String, Object> properties(String id) {
    return map(map(map(template.get("Resources")).get(id)).get("Properties"));
  }

  private static Map<String, Object> variables(Map<String, Object> properties) {
    return map(map(properties.get("Environment")).get("Variables"));
  }

  private Map<String, Object> parameters() {
    return map(template.get("Parameters"));
  }

  private String parameterDescription(String name) {
    return String.valueOf(map(parameters().get(name)).getOrDefault("Description", ""));
  }

  /**
   * The parameter that alone feeds a variable: {@code !Ref P}, or an {@code Fn::If} whose branches
   * are {@code !Ref P} or {@code AWS::NoValue}.
   */
  private Optional<String> parameterOf(Object value) {
    var found = new TreeSet<String>();
    if (!collectParameters(value, found) || found.size() != 1) {
      return Optional.empty();
    }
    return Optional.of(found.first());
  }

  private boolean collectParameters(Object value, TreeSet<String> found) {
    if (value instanceof Map<?, ?> m && m.size() == 1 && m.containsKey("Ref")) {
      String ref = String.valueOf(m.get("Ref"));
      if (ref.equals("AWS::NoValue")) {
        return true;
      }
      if (parameters().containsKey(ref)) {
        found.add(ref);
        return true;
      }
      return false;
    }
    if (value instanceof Map<?, ?> m && m.size() == 1 && m.get("Fn::If") instanceof List<?> l) {
      return l.size() == 3
          && collectParameters(l.get(1), found)
          && collectParameters(l.get(2), found);
    }
    // a list parameter written as one string: !Join [",", !Ref P]
    if (value instanceof Map<?, ?> m && m.size() == 1 && m.get("Fn::Join") instanceof List<?> l) {
      return l.size() == 2 && l.get(1) instanceof Map<?, ?> && collectParameters(l.get(1), found);
    }
    return false;
  }

  /** How the template sets a variable, for the Template column. */
  private String templateValue(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Map<?, ?> m && m.size() == 1) {
      var e = m.entrySet().iterator().next();
      String fn = String.valueOf(e.getKey());
      if (fn.equals("Ref")) {
        String ref = String.valueOf(e.getValue());
        if (ref.equals("AWS::NoValue")) {
          return "unset";
        }
        return parameters().containsKey(ref) ? "parameter " + ref : "resource " + ref;
      }
      if (fn.equals("Fn::If") && e.getValue() instanceof List<?> l && l.size() == 3) {
        String yes = templateValue(l.get(1));
        String no = templateValue(l.get(2));
        String cond = String.valueOf(l.get(0));
        if (no == null || no.equals("unset")) {
          return yes + " if " + cond;
        }
        if (yes == null || yes.equals("unset")) {
          return no + " unless " + cond;
        }
        return yes + " if " + cond + ", else " + no;
      }
      if (fn.equals("Fn::Join") && e.getValue() instanceof List<?> l && l.size() == 2) {
        return templateValue(l.get(1)) + " joined with '" + l.get(0) + "'";
      }
      if (fn.equals("Fn::GetAtt")) {
        return "resource " + e.getValue();
      }
      return fn;
    }
    return "`" + value + "`";
  }

  /**
   * The value the recording run gives a variable: a literal as written, a parameter its default, a
   * resource a placeholder name; an {@code Fn::If} its branch that sets the variable.
   */
  private Optional<String> resolve(Object value) {
    if (value instanceof Map<?, ?> m && m.size() == 1) {
      var e = m.entrySet().iterator().next();
      String fn = String.valueOf(e.getKey());
      switch (fn) {
        case "Ref":
          {
            String ref = String.valueOf(e.getValue());
            if (ref.equals("AWS::NoValue")) {
              return Optional.empty();
            }
            if (ref.equals("AWS::AccountId")) {
              return Optional.of("123456789012"); // checked as an account id by the code
            }
            if (parameters().containsKey(ref)) {
              // a parameter without a default (the cluster name) gets a placeholder
              Object def = map(parameters().get(ref)).get("Default");
              return Optional.of(def == null ? placeholder(ref) : String.valueOf(def));
            }
            return Optional.of(placeholder(ref));
          }
        case "Fn::If":
          {
            List<?> l = (List<?>) e.getValue();
            return resolve(l.get(1)).or(() -> resolve(l.get(2)));
          }
        case "Fn::Join":
          {
            // a list parameter's default is already the joined text (CommaDelimitedList)
            List<?> l = (List<?>) e.getValue();
            if (l.get(1) instanceof List<?> parts) {
              var out = new ArrayList<String>();
              for (Object part : parts) {
                resolve(part).ifPresent(out::add);
              }
              return Optional.of(String.join(String.valueOf(l.get(0)), out));
            }
            return resolve(l.get(1)).map(t -> t.replace(",", String.valueOf(l.get(0))));
          }
        case "Fn::Sub":
          {
            // "${AWS::AccountId},${Others}" with its variables: each resolved as above
            Object arg = e.getValue();
            String text = String.valueOf(arg instanceof List<?> l ? l.get(0) : arg);
            Map<String, Object> vars = arg instanceof List<?> l ? map(l.get(1)) : Map.of();
            var m2 = java.util.regex.Pattern.compile("\\$\\{([A-Za-z0-9:]+)}").matcher(text);
            var sb = new StringBuilder();
            while (m2.find()) {
              String name = m2.group(1);
              String v =
                  vars.containsKey(name)
                      ? resolve(vars.get(name)).orElse("")
                      : resolve(Map.of("Ref", name)).orElse("");
              m2.appendReplacement(sb, java.util.regex.Matcher.quoteReplacement(v));
            }
            m2.appendTail(sb);
            return Optional.of(sb.toString());
          }
        default:
          return Optional.of(placeholder(String.valueOf(e.getValue())));
      }
    }
    return value == null ? Optional.empty() : Optional.of(String.valueOf(value));
  }

  private static String placeholder(String ref) {
    return "gpufleet-" + ref.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static Map<String, String> orderedMap(String... kv) {
    var m = new LinkedHashMap<String, String>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }
}
