package io.gpufleet.testkit.lambda;

import io.gpufleet.testkit.aws.AwsEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.eks.EksClient;

/**
 * One function of template.yaml under the Lambda runtime tier, set up the way every function's
 * {@code *LambdaRuntimeIT} runs it: the module's shaded jar, the template's {@code ClusterName}
 * parameter naming an EKS cluster that the AWS emulator knows, the test account, the emulator's
 * region and endpoint, a (simulated or real) API server for Kubernetes.
 *
 * @param logicalId the function's logical id in template.yaml
 * @param module the function's module directory under {@code functions/}
 * @param clusterName what the stack's {@code ClusterName} parameter says
 */
public record RuntimeTierFunction(String logicalId, String module, String clusterName) {
  public static final String ACCOUNT = "123456789012";
  public static final String STACK = "gpufleet";

  /**
   * Creates the EKS cluster {@code ClusterName} names, so the function's DescribeCluster finds it.
   */
  public void createEksCluster(AwsEmulator aws) {
    try (var eks = aws.clients().build(EksClient.builder())) {
      eks.createCluster(
          r ->
              r.name(clusterName)
                  .version("1.31")
                  .roleArn("arn:aws:iam::" + ACCOUNT + ":role/eks-cluster-role")
                  .resourcesVpcConfig(v -> v.subnetIds("subnet-0a1b2c3d4e5f60001")));
    }
  }

  /** A run of the repository's template.yaml in stack {@link #STACK}. */
  public RuntimeTier.Setup setup(
      AwsEmulator aws, String kubeApi, Path work, Map<String, String> resources) {
    return setup(
        RuntimeTier.repositoryRoot().resolve("template.yaml"),
        STACK,
        aws,
        kubeApi,
        work,
        resources);
  }

  /**
   * A run of {@code template} (the repository's, or a mutated copy) in stack {@code stack}, with
   * {@code resources} naming the stack's physical resources the function is given (buckets ...).
   */
  public RuntimeTier.Setup setup(
      Path template,
      String stack,
      AwsEmulator aws,
      String kubeApi,
      Path work,
      Map<String, String> resources) {
    return new RuntimeTier.Setup(
        template,
        logicalId,
        new SamTemplate.Stack(
            stack, aws.region().id(), ACCOUNT, Map.of("ClusterName", clusterName), resources),
        RuntimeTier.lambdaJar(RuntimeTier.repositoryRoot().resolve("functions").resolve(module)),
        aws.endpoint(),
        kubeApi,
        work);
  }

  /** Invokes the function once in {@code mode} with {@code payload} under the emulator. */
  public static RuntimeTier.Result run(
      RuntimeTier.Setup setup, LambdaRuntime.Mode mode, byte[] payload) {
    return RuntimeTier.run(setup, mode, payload, Map.of(), RuntimeTier.runtimeLib());
  }

  /**
   * What a run that should have succeeded shows wrong (empty when nothing): an invocation Lambda
   * did not answer with 200, then {@link RuntimeTier#lifecycleProblems} and {@link
   * RuntimeTier#telemetryProblems}.
   */
  public static List<String> problems(RuntimeTier.Result r) {
    var problems = new ArrayList<String>();
    if (r.invocation().status() != 200) {
      problems.add(
          "invocation answered "
              + r.invocation().status()
              + ": "
              + r.invocation().body()
              + "\n"
              + String.join("\n", r.output()));
    }
    problems.addAll(RuntimeTier.lifecycleProblems(r));
    problems.addAll(RuntimeTier.telemetryProblems(r));
    return problems;
  }
}
