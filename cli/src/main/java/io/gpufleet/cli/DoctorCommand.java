package io.gpufleet.cli;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpufleet.core.json.Json;
import io.gpufleet.deploy.Doctor;
import io.gpufleet.deploy.DoctorSimulation;
import io.gpufleet.scenario.ProjectHome;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.eks.EksClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.lambda.LambdaClient;

/** {@code gpufleet doctor [--simulate] [--json]}: read-only checks of a deployed stack. */
@Command(
    name = "doctor",
    description = {
      "Check a deployed stack against its cluster, read-only: stack outputs and aliases, reserved"
          + " concurrency, the cluster's authentication mode, access entries with the stack's"
          + " groups, the RBAC and admission manifests applied as this version renders them for"
          + " the stack's parameters, Karpenter's interruption queue or NTH, rules enabled and"
          + " targeting the alias, lifecycle hooks on the groups the stack names, Capacity"
          + " Rebalancing on the Spot managed node groups, the schedule policy parses and is within"
          + " the guardrails, and the last successful run of each function from its metrics.",
      "Each check prints PASS / WARN / FAIL and the fix. AWS credentials from the default chain,"
          + " Kubernetes from the current kubeconfig context. --simulate checks a simulated stack"
          + " with one deliberate misconfiguration.",
      "Exit codes: 0 no FAIL, 1 a check failed, 2 bad flag."
    })
final class DoctorCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;

  @Option(
      names = "--stack",
      paramLabel = "NAME",
      defaultValue = "gpufleet",
      description = "Stack name (default: gpufleet).")
  String stack;

  @Option(
      names = "--region",
      paramLabel = "REGION",
      description = "The stack's region (default: the SDK's default chain).")
  String region;

  @Option(names = "--simulate", description = "Check the simulated stack and cluster instead.")
  boolean simulate;

  @Option(names = "--json", description = "Print the findings as one JSON array on stdout.")
  boolean json;

  DoctorCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws Exception {
    var root = ProjectHome.findRoot(ProjectHome.path());
    List<Doctor.Finding> findings;
    if (simulate) {
      try (var sim = new DoctorSimulation(root, List.of())) {
        findings = new Doctor(sim.clients, root, DoctorSimulation.STACK).run();
      }
    } else {
      var r = region == null ? null : Region.of(region);
      try (var cfn = builder(CloudFormationClient.builder(), r);
          var lambda = builder(LambdaClient.builder(), r);
          var eks = builder(EksClient.builder(), r);
          var events = builder(EventBridgeClient.builder(), r);
          var asg = builder(AutoScalingClient.builder(), r);
          var ssm = builder(software.amazon.awssdk.services.ssm.SsmClient.builder(), r);
          var cloudWatch =
              builder(software.amazon.awssdk.services.cloudwatch.CloudWatchClient.builder(), r);
          var kube = new KubernetesClientBuilder().build()) {
        findings =
            new Doctor(
                    new Doctor.Clients(cfn, lambda, eks, events, asg, ssm, cloudWatch, kube),
                    root,
                    stack)
                .run();
      }
    }
    print(findings);
    return Doctor.exitCode(findings);
  }

  private static <B extends software.amazon.awssdk.awscore.client.builder.AwsClientBuilder<B, C>, C>
      C builder(B b, Region region) {
    return region == null ? b.build() : b.region(region).build();
  }

  private void print(List<Doctor.Finding> findings) {
    if (json) {
      out.println(Json.write(findings));
      return;
    }
    for (var f : findings) {
      out.printf("%-4s  %-30s %s%n", f.status(), f.check(), f.detail());
      if (!f.fix().isEmpty()) {
        out.printf("      %-30s fix: %s%n", "", f.fix());
      }
    }
    long failed = findings.stream().filter(f -> f.status() == Doctor.Status.FAIL).count();
    long warned = findings.stream().filter(f -> f.status() == Doctor.Status.WARN).count();
    out.println(findings.size() + " checks: " + failed + " FAIL, " + warned + " WARN");
  }
}
