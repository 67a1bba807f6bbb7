package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.schedule.NativeBudgets;
import io.gpufleet.schedule.PolicySourcePort;
import io.gpufleet.schedule.ScheduleRbac;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.policy.Policy;
import io.gpufleet.schedule.policy.PolicyParser;
import io.gpufleet.schedule.wiring.ScheduleWiring;
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
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpufleet budgets render|apply}: the disruption schedule from a laptop. {@code render}
 * prints the native Karpenter budgets for a policy; {@code apply} runs the same reconcile as the
 * Lambda against a real cluster, for now or for {@code --at}, optionally as a dry run.
 */
@Command(
    name = "budgets",
    synopsisSubcommandLabel = "COMMAND",
    description = "The disruption schedule from a laptop: render, apply, rbac.",
    subcommands = {
      BudgetsCommand.Render.class,
      BudgetsCommand.Apply.class,
      BudgetsCommand.Rbac.class
    })
final class BudgetsCommand implements Callable<Integer> {
  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw Cli.bad(spec, "say render, apply or rbac (gpufleet budgets render --policy p.yaml)");
  }

  /**
   * The RoleBindings that give the schedule's group its write permissions in the namespaces the
   * policy scales workloads in; never a ClusterRoleBinding (a rule naming no namespace, or a
   * protected one, is refused).
   */
  @Command(
      name = "rbac",
      description =
          "RoleBindings of the schedule's write role for the namespaces a policy names (YAML on"
              + " stdout, for kubectl apply -f -).")
  static final class Rbac implements Callable<Integer> {
    private final PrintStream out;

    @Mixin Cli.Help help;

    @Option(names = "--policy", paramLabel = "FILE", required = true, description = "The policy.")
    Path policy;

    @Option(
        names = "--group",
        paramLabel = "G",
        defaultValue = ScheduleRbac.DEFAULT_GROUP,
        description = "Kubernetes group the bindings name (default: ${DEFAULT-VALUE}).")
    String group;

    Rbac(PrintStream out, PrintStream err) {
      this.out = out;
    }

    @Override
    public Integer call() {
      Policy loaded = load(policy);
      try {
        out.print(ScheduleRbac.yaml(loaded, group, policy.toString()));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("budgets rbac: " + policy + ": " + e.getMessage());
      }
      return 0;
    }
  }

  @Command(
      name = "render",
      description =
          "Native Karpenter disruption.budgets (UTC cron) for a policy, and the dates DST shifts"
              + " them.")
  static final class Render implements Callable<Integer> {
    private final PrintStream out;

    @Mixin Cli.Help help;

    @Option(names = "--policy", paramLabel = "FILE", required = true, description = "The policy.")
    Path policy;

    @Option(
        names = "--at",
        paramLabel = "TIME",
        description =
            "Render as of this time: ISO-8601 with an offset, or local time in the policy's zone"
                + " (default: now).")
    String at;

    @Option(names = "--json", description = "Print the budgets as JSON.")
    boolean json;

    Render(PrintStream out, PrintStream err) {
      this.out = out;
    }

    @Override
    public Integer call() {
      Policy loaded = load(policy);
      Instant when = at(Optional.ofNullable(at), loaded).orElseGet(Instant::now);
      var result = NativeBudgets.render(loaded, when);
      if (json) {
        out.println(
            Json.writePretty(
                new RenderJson(result.rules(), result.dstShifts(), result.transitions(), when)));
      } else {
        out.print(NativeBudgets.toText(result));
      }
      return 0;
    }
  }

  record RenderJson(
      List<NativeBudgets.Rendered> rules,
      List<NativeBudgets.Shift> dstShifts,
      List<NativeBudgets.Transition> transitions,
      Instant renderedAt) {}

  @Command(
      name = "apply",
      description = {
        "Reconcile NodePool budgets and workload replicas for now (or --at) with the Lambda's code,"
            + " through the kubeconfig (default) or EKS (--cluster).",
        "Exit codes: 0 reconciled or dry run, 2 bad flag or invalid policy, 3 some writes failed, 1"
            + " other failure."
      })
  static final class Apply implements Callable<Integer> {
    private final PrintStream out;

    @Mixin Cli.Help help;
    @Spec CommandSpec spec;

    @Option(names = "--policy", paramLabel = "FILE", required = true, description = "The policy.")
    Path policy;

    @Option(
        names = "--at",
        paramLabel = "TIME",
        description =
            "Reconcile as of this time: ISO-8601 with an offset (2026-03-29T02:30:00+02:00), or"
                + " local time in the policy's zone (default: now).")
    String at;

    @Option(names = "--dry-run", description = "Show the writes it would make; write nothing.")
    boolean dryRun;

    @Option(names = "--json", description = "Print the outcome as JSON.")
    boolean json;

    @picocli.CommandLine.Mixin ClusterTarget target = new ClusterTarget();

    Apply(PrintStream out, PrintStream err) {
      this.out = out;
    }

    @Override
    public Integer call() throws Exception {
      // the kubeconfig unless --cluster names an EKS cluster
      boolean viaKubeconfig = target.kubeconfig || target.cluster == null;
      if (viaKubeconfig && target.region != null) {
        throw Cli.bad(spec, "--region goes with --cluster");
      }
      target.checkContext(spec, viaKubeconfig);
      // validated before anything connects or writes
      Policy loaded = load(policy);
      Instant when = at(Optional.ofNullable(at), loaded).orElseGet(Instant::now);
      String clusterName =
          target.cluster != null
              ? target.cluster
              : target.context != null ? target.context : "kubeconfig";
      try (KubernetesClient client =
          target.connect("budgets apply", viaKubeconfig, target.cluster)) {
        var service =
            ScheduleWiring.service(
                client,
                ScheduleSettings.defaults(clusterName, policy.toString()),
                PolicySourcePort.file(policy),
                MetricsPort.NONE,
                EventPublisherPort.NONE,
                NotifierPort.NONE,
                Clock.systemUTC());
        ScheduleOutcome o = service.reconcile(when, dryRun, null);
        if (json) {
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
  }

  static Policy load(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("budgets: policy file " + file + " does not exist");
    }
    return PolicyParser.parse(PolicySourcePort.file(file).load(), file.toString());
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
