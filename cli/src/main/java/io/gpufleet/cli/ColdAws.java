package io.gpufleet.cli;

import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimEks;
import io.gpufleet.sim.aws.SimEventBridge;
import io.gpufleet.sim.aws.SimSsm;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
          + " found with EKS DescribeCluster (stub, AWS_ENDPOINT_URL_EKS; each service its own HTTPS"
          + " endpoint) -> the simulated API"
          + " server (HTTPS, its certificate as the cluster CA), EKS token (SigV4-presigned STS); OUTCOME_EVENT_BUS="
          + BUS
          + " (PutEvents to the stub, AWS_ENDPOINT_URL_EVENTBRIDGE); the schedule's policy from SSM"
          + " (GetParameter on the stub, SchedulePolicy's default); every AWS endpoint HTTPS (a"
          + " localhost certificate added to the JDK's cacerts as the function's trust store);"
          + " AWS_ACCESS_KEY_ID credentials;"
          + " no KUBE_API_URL";

  private final BenchTls tls;
  // one endpoint per service, as in a region (eks., events., ssm.): each is its own connection and
  // TLS handshake for the function, as in Lambda; the last answers any other call with an error
  private final AwsStubServer eks;
  private final AwsStubServer bus;
  private final AwsStubServer ssmStub;
  private final AwsStubServer stub;
  private final SimEventBridge events;
  private final SimSsm ssm;

  private ColdAws(BenchTls tls) {
    this.tls = tls;
    this.eks = AwsStubServer.startHttps(tls.serverContext());
    this.bus = AwsStubServer.startHttps(tls.serverContext());
    this.ssmStub = AwsStubServer.startHttps(tls.serverContext());
    this.stub = AwsStubServer.startHttps(tls.serverContext());
    this.events = SimEventBridge.serve(bus);
    this.ssm = SimSsm.serve(ssmStub);
  }

  static ColdAws start() {
    return start(Path.of(System.getProperty("java.home")));
  }

  /** Stubs whose certificate the function running on {@code functionJavaHome} trusts. */
  static ColdAws start(Path functionJavaHome) {
    return new ColdAws(BenchTls.create(functionJavaHome));
  }

  /** The certificate every AWS endpoint here serves, and the function's trust in it. */
  BenchTls tls() {
    return tls;
  }

  /**
   * The environment of one run against {@code cluster} (an HTTPS one, {@link
   * SimCluster#startHttps}): DescribeCluster of {@link #CLUSTER} answers with its URL and its
   * certificate as the cluster CA from now on.
   */
  Map<String, String> environment(SimCluster cluster) {
    SimEks.serve(eks, CLUSTER, cluster.url(), cluster.caData());
    var env = environment();
    env.put("CLUSTER_NAME", CLUSTER);
    env.put("AWS_ENDPOINT_URL_EKS", eks.endpoint().toString());
    return env;
  }

  /** The environment of a function that reaches no cluster: outcome bus and credentials. */
  Map<String, String> environment() {
    var env = new LinkedHashMap<String, String>();
    env.put("OUTCOME_EVENT_BUS", BUS);
    env.put("AWS_ENDPOINT_URL_EVENTBRIDGE", bus.endpoint().toString());
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
    return Map.of(
        "SCHEDULE_POLICY", "ssm:" + name, "AWS_ENDPOINT_URL_SSM", ssmStub.endpoint().toString());
  }

  /** The stub to name as {@code AWS_ENDPOINT_URL} where nothing else serves AWS. */
  String endpoint() {
    return stub.endpoint().toString();
  }

  /** Outcome events accepted on the bus so far. */
  int outcomeEvents() {
    return events.accepted(BUS).size();
  }

  /** DescribeCluster calls answered so far. */
  int describeClusterCalls() {
    return eks.calls(SimEks.describeCluster(CLUSTER)).size();
  }

  @Override
  public void close() {
    try {
      for (AwsStubServer s : List.of(eks, bus, ssmStub, stub)) {
        s.close();
      }
    } finally {
      tls.close();
    }
  }
}
