package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.MetricsSink;
import io.gpufleet.core.outcome.Notifier;
import io.gpufleet.schedule.NativeBudgets;
import io.gpufleet.schedule.PolicySource;
import io.gpufleet.schedule.ScheduleRbac;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.ScheduleWiring;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.PolicyParser;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.eks.EksClient;

/**
 * {@code gpufleet budgets render|apply}: the disruption schedule from a laptop. {@code render}
 * prints the native Karpenter budgets for a policy; {@code apply} runs the same reconcile as the
 * Lambda against a real cluster, for now or for {@code --at}, optionally as a dry run.
 */
final class BudgetsCommand {
  private final PrintStream out;
  private final PrintStream err;

  BudgetsCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  int run(List<String> argv) throws Exception {
    if (argv.isEmpty() || !Set.of("render", "apply", "rbac").contains(argv.get(0))) {
      throw new ConfigException(
          "budgets: say render, apply or rbac (gpufleet budgets render --policy p.yaml)");
    }
    String sub = argv.get(0);
    List<String> rest = argv.subList(1, argv.size());
    return switch (sub) {
      case "render" -> render(rest);
      case "rbac" -> rbac(rest);
      default -> apply(rest);
    };
  }

  /**
   * The RoleBindings (or, for a policy whose rules name no namespaces, the ClusterRoleBinding) that
   * give the schedule's group its write permissions where the policy scales workloads.
   */
  private int rbac(List<String> argv) {
    var args = Args.parse("budgets rbac", argv, Set.of("policy", "group"), Set.of());
    Path file = Path.of(args.require("policy"));
    Policy policy = load(file);
    String group = args.get("group").orElse(ScheduleRbac.DEFAULT_GROUP);
    out.print(ScheduleRbac.yaml(policy, group, file.toString()));
    return 0;
  }

  private int render(List<String> argv) {
    var args = Args.parse("budgets render", argv, Set.of("policy", "at"), Set.of("json"));
    Path file = Path.of(args.require("policy"));
    Policy policy = load(file);
    Instant at = at(args.get("at"), policy).orElseGet(Instant::now);
    var result = NativeBudgets.render(policy, at);
    if (args.flag("json")) {
      out.println(
          Json.writePretty(
              new RenderJson(result.rules(), result.dstShifts(), result.transitions(), at)));
    } else {
      out.print(NativeBudgets.toText(result));
    }
    return 0;
  }

  record RenderJson(
      List<NativeBudgets.Rendered> rules,
      List<NativeBudgets.Shift> dstShifts,
      List<NativeBudgets.Transition> transitions,
      Instant renderedAt) {}

  private int apply(List<String> argv) throws Exception {
    var args =
        Args.parse(
            "budgets apply",
            argv,
            Set.of("policy", "at", "cluster", "region", "context"),
            Set.of("dry-run", "kubeconfig", "json"));
    Path file = Path.of(args.require("policy"));
    // validated before anything connects or writes
    Policy policy = load(file);
    Instant at = at(args.get("at"), policy).orElseGet(Instant::now);
    boolean dryRun = args.flag("dry-run");
    String cluster = args.get("cluster").orElse(args.get("context").orElse("kubeconfig"));
    try (KubernetesClient client = connect(args)) {
      var service =
          ScheduleWiring.service(
              client,
              ScheduleSettings.defaults(cluster, file.toString()),
              PolicySource.file(file),
              MetricsSink.NONE,
              EventPublisher.NONE,
              Notifier.NONE,
              Clock.systemUTC());
      ScheduleOutcome o = service.reconcile(at, dryRun, null);
      if (args.flag("json")) {
        out.println(Json.writePretty(o));
      } else {
        print(o, out);
      }
      return switch (o.status()) {
        case RECONCILED, DRY_RUN -> 0;
        case INVALID_POLICY -> 2;
        default -> 3;
      };
    }
  }

  static Policy load(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("budgets: policy file " + file + " does not exist");
    }
    return PolicyParser.parse(PolicySource.file(file).load(), file.toString());
  }

  /**
   * ISO-8601 with an offset (2026-03-29T02:30:00+02:00, ...Z), or local time in the policy zone.
   */
  static Optional<Instant> at(Optional<String> text, Policy policy) {
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String t = text.get();
    try {
      return Optional.of(OffsetDateTime.parse(t).toInstant());
    } catch (DateTimeParseException e) {
      try {
        return Optional.of(LocalDateTime.parse(t).atZone(policy.zone()).toInstant());
      } catch (DateTimeParseException e2) {
        throw new ConfigException(
            "budgets: --at '"
                + t
                + "' is not ISO-8601 (2026-03-29T02:30:00+02:00, or local time"
                + " in the policy's zone: 2026-03-29T10:00)");
      }
    }
  }

  private static KubernetesClient connect(Args args) {
    if (args.flag("kubeconfig") || args.get("cluster").isEmpty()) {
      if (args.get("region").isPresent()) {
        throw new ConfigException("budgets apply: --region goes with --cluster");
      }
      return KubeClients.fromKubeconfig(args.get("context"));
    }
    if (args.get("context").isPresent()) {
      throw new ConfigException("budgets apply: --context goes with --kubeconfig");
    }
    String region =
        args.get("region")
            .or(() -> Optional.ofNullable(System.getenv("AWS_REGION")))
            .orElseThrow(
                () -> new ConfigException("budgets apply: --region is required (or AWS_REGION)"));
    var aws =
        new AwsClients(
            Region.of(region), DefaultCredentialsProvider.builder().build(), Optional.empty());
    return KubeClients.forEks(
        aws.build(EksClient.builder()),
        args.require("cluster"),
        aws.region(),
        aws.credentials(),
        Clock.systemUTC());
  }

  /** The outcome as a table: every write (or would-be write) and every object left alone. */
  static void print(ScheduleOutcome o, PrintStream out) {
    out.println(
        o.status()
            + ": "
            + o.message()
            + (o.window() == null
                ? ""
                : " (window "
                    + o.window()
                    + ", "
                    + o.windowReason().toLowerCase()
                    + ", local time "
                    + o.localTime()
                    + " "
                    + o.timeZone()
                    + ")"));
    if (o.changes().isEmpty() && o.notices().isEmpty()) {
      return;
    }
    var table = new Table("KIND", "OBJECT", "ACTION", "BEFORE", "AFTER", "RESULT", "NOTE");
    for (Change c : o.changes()) {
      row(table, c);
    }
    for (Change c : o.notices()) {
      row(table, c);
    }
    out.print(table.render());
  }

  private static void row(Table table, Change c) {
    boolean notice = !c.isWrite();
    table.add(
        c.kind(),
        c.namespace() == null ? c.name() : c.namespace() + "/" + c.name(),
        c.action(),
        compact(c.before()),
        notice ? "-" : compact(c.after()),
        c.result() == Change.Result.FAILED ? "FAILED: " + c.error() : notice ? "-" : c.result(),
        c.note());
  }

  static String compact(com.fasterxml.jackson.databind.JsonNode n) {
    if (n == null) {
      return "-";
    }
    if (n.size() == 1 && !n.has("budgets")) {
      String key = n.fieldNames().next();
      return (key.equals("pausedReplicas") ? "paused-replicas" : key) + " " + n.get(key).asText();
    }
    if (n.isEmpty()) {
      return "(unset)";
    }
    var parts = new java.util.ArrayList<String>();
    if (n.has("budgets")) {
      var b = new java.util.ArrayList<String>();
      n.get("budgets")
          .forEach(
              x ->
                  b.add(
                      x.path("nodes").asText()
                          + (x.has("reasons")
                              ? x.get("reasons").toString().replace("\"", "")
                              : "")));
      parts.add("budgets " + String.join(" ", b));
    }
    if (n.has("consolidateAfter")) {
      parts.add("after " + n.get("consolidateAfter").asText());
    }
    return String.join(", ", parts);
  }
}
