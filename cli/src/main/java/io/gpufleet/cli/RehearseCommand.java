package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.deploy.Rehearsal;
import io.gpufleet.deploy.RehearsalSimulation;
import io.gpufleet.drain.DrainSettings;
import io.gpufleet.drain.wiring.DrainWiring;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.Stack;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.fis.FisClient;

/** {@code gpufleet rehearse}: a real Spot interruption of one node, timed against the deadline. */
@Command(
    name = "rehearse",
    description = {
      "Rehearse a Spot interruption: pick (or --node) one Spot GPU node of the stack's cluster and"
          + " show what a drain would do (the dry run). With --yes: tag its instance"
          + " gpufleet:rehearse=<stack>, start the stack's FIS experiment"
          + " (RehearsalExperimentTemplateId), follow the chain (warning sent, drain outcome,"
          + " cordoned, evictions issued, all pods gone, instance terminated, replacement node"
          + " Ready) and print the timeline with the verdict against the 2-minute deadline;"
          + " untag at the end. Interrupting it (Ctrl-C) stops the experiment.",
      "Refused before any write: a non-Spot node, a node outside the cluster, a second rehearsal"
          + " while one runs. Without --yes nothing is written. --simulate rehearses on the"
          + " simulated account and cluster (a simulated FIS sends the warning through the real"
          + " drain handler).",
      "Exit codes: 0 deadline met (or dry run only), 1 deadline missed or chain broken, 2 refused"
          + " or bad flag."
    })
final class RehearseCommand implements Callable<Integer> {

  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;

  @Option(names = "--simulate", description = "Rehearse on the simulated account and cluster.")
  boolean simulate;

  @Option(
      names = "--node",
      paramLabel = "NAME",
      description = "The node to rehearse on (default: the Spot GPU node least likely to block).")
  String node;

  @Option(names = "--yes", description = "Really start the experiment (otherwise: dry run only).")
  boolean yes;

  @Option(names = "--json", description = "Print the plan or the timeline as JSON.")
  boolean json;

  @Option(
      names = "--stack",
      paramLabel = "S",
      defaultValue = "gpufleet",
      description = "Stack name (default: gpufleet).")
  String stack;

  @Option(
      names = "--cluster",
      paramLabel = "C",
      description = "EKS cluster (default: the stack's ClusterName parameter).")
  String cluster;

  @Option(
      names = "--region",
      paramLabel = "R",
      description = "The stack's region (default: AWS_REGION, AWS_DEFAULT_REGION).")
  String region;

  RehearseCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    if (simulate) {
      try (var sim = new RehearsalSimulation(List.of())) {
        return rehearse(sim.clients(), sim, sim.cfn, RehearsalSimulation.STACK);
      }
    }
    String r =
        Optional.ofNullable(region)
            .or(() -> Optional.ofNullable(System.getenv("AWS_REGION")))
            .or(() -> Optional.ofNullable(System.getenv("AWS_DEFAULT_REGION")))
            .orElseThrow(
                () -> new ConfigException("rehearse: --region is required (or AWS_REGION)"));
    var aws =
        new AwsClients(
            Region.of(r), DefaultCredentialsProvider.builder().build(), Optional.empty());
    try (var cfn = CloudFormationClient.builder().region(Region.of(r)).build();
        var ec2 = Ec2Client.builder().region(Region.of(r)).build();
        var fis = FisClient.builder().region(Region.of(r)).build()) {
      String clusterName =
          cluster != null ? cluster : parameter(describe(cfn, stack), "ClusterName");
      try (KubernetesClient kube = KubeClients.forEks(aws, clusterName, Clock.systemUTC())) {
        var env = new HashMap<>(System.getenv());
        env.put("CLUSTER_NAME", clusterName);
        var drain =
            DrainWiring.service(kube, DrainWiring.Parts.of(DrainSettings.from(new Settings(env))));
        Rehearsal.World wallClock =
            new Rehearsal.World() {
              @Override
              public Instant now() {
                return Instant.now();
              }

              @Override
              public void pass(Duration d) throws InterruptedException {
                Thread.sleep(d); // polling a real account between two looks
              }
            };
        this.cluster = clusterName;
        return rehearse(new Rehearsal.Clients(ec2, fis, kube, drain), wallClock, cfn, stack);
      }
    }
  }

  /** The rehearsal of {@code stackName} with these clients; refusals exit 2 before any write. */
  int rehearse(
      Rehearsal.Clients clients, Rehearsal.World world, CloudFormationClient cfn, String stackName)
      throws InterruptedException {
    Stack s = describe(cfn, stackName);
    String clusterName = cluster != null ? cluster : parameter(s, "ClusterName");
    String template =
        s.outputs().stream()
            .filter(o -> o.outputKey().equals(Rehearsal.TEMPLATE_OUTPUT))
            .map(o -> o.outputValue())
            .findFirst()
            .orElseThrow(
                () ->
                    new ConfigException(
                        "stack "
                            + stackName
                            + " has no "
                            + Rehearsal.TEMPLATE_OUTPUT
                            + " output: deploy this version"
                            + " of template.yaml first"));
    var rehearsal = new Rehearsal(clients, world, stackName, clusterName);
    Rehearsal.Target target;
    try {
      target = rehearsal.choose(Optional.ofNullable(node));
      rehearsal.refuseIfRunning(template);
    } catch (Rehearsal.Refused e) {
      err.println("rehearse: refused: " + e.getMessage());
      return Cli.BAD_INPUT;
    }
    if (!yes) {
      printPlan(target, template, stackName, clusterName);
      return 0;
    }
    err.printf(
        "rehearse: interrupting %s (%s) in cluster %s with experiment template %s...%n",
        target.node(), target.instanceId(), clusterName, template);
    var result = rehearsal.run(target, template);
    if (json) {
      out.println(Json.writePretty(result));
    } else {
      out.printf(
          "Rehearsal on node %s (instance %s, cluster %s, experiment %s)%n",
          result.node(), result.instanceId(), result.cluster(), result.experimentId());
      Instant zero = result.timeline().isEmpty() ? null : result.timeline().get(0).at();
      for (var step : result.timeline()) {
        out.printf(
            "%s  +%7.1fs  %-30s %s%n",
            step.at(),
            Duration.between(zero, step.at()).toMillis() / 1000.0,
            step.what(),
            step.detail());
      }
      out.println("verdict: " + result.verdict());
    }
    return result.passed() ? 0 : Cli.FAILED;
  }

  private void printPlan(Rehearsal.Target t, String template, String stackName, String c) {
    if (json) {
      var plan = new LinkedHashMap<String, Object>();
      plan.put("stack", stackName);
      plan.put("cluster", c);
      plan.put("node", t.node());
      plan.put("instanceId", t.instanceId());
      plan.put("experimentTemplateId", template);
      plan.put("dryRun", t.dryRun());
      plan.put(
          "wouldDo",
          List.of(
              "ec2:CreateTags " + t.instanceId() + " " + Rehearsal.TAG + "=" + stackName,
              "fis:StartExperiment " + template,
              "follow the chain, then ec2:DeleteTags " + t.instanceId()));
      out.println(Json.writePretty(plan));
      return;
    }
    DrainCommand.printDryRun(out, t.dryRun());
    out.println("With --yes, rehearse would:");
    out.println("  tag instance " + t.instanceId() + " " + Rehearsal.TAG + "=" + stackName);
    out.println(
        "  start experiment template "
            + template
            + " (a Spot interruption warning to that instance; it terminates 2 minutes later)");
    out.println("  follow the drain and the replacement, then untag the instance");
    out.println("Nothing was written (no --yes).");
  }

  private static Stack describe(CloudFormationClient cfn, String stackName) {
    return cfn.describeStacks(r -> r.stackName(stackName)).stacks().get(0);
  }

  private static String parameter(Stack s, String key) {
    return s.parameters().stream()
        .filter(p -> p.parameterKey().equals(key))
        .map(p -> p.parameterValue())
        .findFirst()
        .orElseThrow(() -> new ConfigException("stack " + s.stackName() + " has no " + key));
  }
}
