package io.gpufleet.cli;

import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimEks;
import io.gpufleet.sim.aws.SimEventBridge;
import io.gpufleet.sim.aws.SimSsm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The AWS side a function reaches in Lambda as template.yaml deploys it, served here for {@code
 * bench cold}: the cluster is found with EKS DescribeCluster ({@code CLUSTER_NAME}, no {@code
 * KUBE_API_URL}; the stub answers with the simulated API server's URL and a CA), the Kubernetes
 * client signs an EKS token (presigned STS) as in Lambda, and the outcome is published to the
 * {@code default} bus ({@code OutcomeEventBusName}'s default) on the stub's EventBridge, which
 * keeps what arrives. Credentials come from the environment, as Lambda sets them without SnapStart.
 */
final class ColdAws implements AutoCloseable {
  static final String CLUSTER = "bench";
  static final String BUS = "default";

  /** What the JSON line says the child ran against. */
  static final String ENVIRONMENT =
      "as deployed: CLUSTER_NAME="
          + CLUSTER
          + " found with EKS DescribeCluster (stub, AWS_ENDPOINT_URL_EKS) -> the simulated API"
          + " server (http) with a CA, EKS token (SigV4-presigned STS); OUTCOME_EVENT_BUS="
          + BUS
          + " (PutEvents to the stub, AWS_ENDPOINT_URL_EVENTBRIDGE); the schedule's policy from SSM"
          + " (GetParameter on the stub, SchedulePolicy's default); AWS_ACCESS_KEY_ID credentials;"
          + " no KUBE_API_URL";

  private final AwsStubServer stub = AwsStubServer.start();
  private final SimEventBridge events = SimEventBridge.serve(stub);
  private final SimSsm ssm = SimSsm.serve(stub);
  private final Optional<String> caData;

  private ColdAws(Optional<String> caData) {
    this.caData = caData;
  }

  static ColdAws start() {
    return new ColdAws(Optional.of(selfSignedCa()));
  }

  /**
   * The environment of one run whose cluster's API server is at {@code apiServerUrl}:
   * DescribeCluster of {@link #CLUSTER} answers with it from now on.
   */
  Map<String, String> environment(String apiServerUrl) {
    SimEks.serve(stub, CLUSTER, apiServerUrl, caData);
    var env = environment();
    env.put("CLUSTER_NAME", CLUSTER);
    env.put("AWS_ENDPOINT_URL_EKS", stub.endpoint().toString());
    return env;
  }

  /** The environment of a function that reaches no cluster: outcome bus and credentials. */
  Map<String, String> environment() {
    var env = new LinkedHashMap<String, String>();
    env.put("OUTCOME_EVENT_BUS", BUS);
    env.put("AWS_ENDPOINT_URL_EVENTBRIDGE", stub.endpoint().toString());
    env.put("AWS_ACCESS_KEY_ID", "AKIDBENCH");
    env.put("AWS_SECRET_ACCESS_KEY", "bench");
    return env;
  }

  /**
   * A policy in the stub's SSM under {@code name}, as the template's default {@code SchedulePolicy}
   * ({@code ssm:/gpufleet/disruption-schedule}) keeps it: the environment entries that read it.
   */
  Map<String, String> ssmPolicy(String name, String document) {
    ssm.put(name, document);
    return Map.of("SCHEDULE_POLICY", "ssm:" + name, "AWS_ENDPOINT_URL_SSM", endpoint());
  }

  /** The stub, to name as {@code AWS_ENDPOINT_URL} where nothing else serves AWS. */
  String endpoint() {
    return stub.endpoint().toString();
  }

  /** Outcome events accepted on the bus so far. */
  int outcomeEvents() {
    return events.accepted(BUS).size();
  }

  /** DescribeCluster calls answered so far. */
  int describeClusterCalls() {
    return stub.calls(SimEks.describeCluster(CLUSTER)).size();
  }

  @Override
  public void close() {
    stub.close();
  }

  /**
   * A CA certificate (base64 PEM, as DescribeCluster's certificateAuthority.data), made by the
   * JDK's keytool: the function's client parses and trusts it as it does the cluster's CA in
   * Lambda.
   */
  static String selfSignedCa() {
    try {
      Path dir = Files.createTempDirectory("gpufleet-bench-ca");
      try {
        Path store = dir.resolve("ca.p12");
        Path pem = dir.resolve("ca.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(
            List.of(
                keytool,
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-dname",
                "CN=bench-ca",
                "-ext",
                "bc:c",
                "-validity",
                "2",
                "-keystore",
                store.toString(),
                "-storepass",
                "benchpass",
                "-noprompt"));
        run(
            List.of(
                keytool,
                "-exportcert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                store.toString(),
                "-storepass",
                "benchpass",
                "-file",
                pem.toString()));
        return Base64.getEncoder()
            .encodeToString(Files.readString(pem).getBytes(StandardCharsets.US_ASCII));
      } finally {
        try (var files = Files.list(dir)) {
          for (Path f : files.toList()) {
            Files.delete(f);
          }
        }
        Files.delete(dir);
      }
    } catch (IOException e) {
      throw new IllegalStateException("bench cold: cannot make the cluster CA with keytool", e);
    }
  }

  private static void run(List<String> cmd) throws IOException {
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd.subList(0, 2)) + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
