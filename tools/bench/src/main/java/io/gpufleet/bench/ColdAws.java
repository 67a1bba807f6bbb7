package io.gpufleet.bench;

import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimEks;
import io.gpufleet.sim.aws.SimEventBridge;
import io.gpufleet.sim.aws.SimSsm;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
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
  private static final String ENVIRONMENT =
      "as deployed: CLUSTER_NAME="
          + CLUSTER
          + " found with EKS DescribeCluster (stub) -> the simulated API"
          + " server (HTTPS, its certificate as the cluster CA), EKS token (SigV4-presigned STS); OUTCOME_EVENT_BUS="
          + BUS
          + " (PutEvents to the stub); the schedule's policy from SSM"
          + " (GetParameter on the stub, SchedulePolicy's default); every AWS endpoint HTTPS (a"
          + " certificate of the bench added to the JDK's cacerts as the function's trust store);"
          + " AWS_ACCESS_KEY_ID credentials;"
          + " no KUBE_API_URL; ";

  private final BenchTls tls;
  // behind AWS's own host names (null: endpoint overrides, see unnamedWhy)
  private final AwsHosts hosts;
  private final String unnamedWhy;
  // one endpoint per service, as in a region (eks., events., ssm.): each is its own connection and
  // TLS handshake for the function, as in Lambda; the last answers any other call with an error
  private final AwsStubServer eks;
  private final AwsStubServer bus;
  private final AwsStubServer ssmStub;
  private final AwsStubServer stub;
  private final SimEventBridge events;
  private final SimSsm ssm;

  private ColdAws(BenchTls tls, AwsHosts hosts, String unnamedWhy) {
    this.tls = tls;
    this.hosts = hosts;
    this.unnamedWhy = unnamedWhy;
    this.eks = stub(1);
    this.bus = stub(2);
    this.ssmStub = stub(3);
    this.stub = stub(4);
    this.events = SimEventBridge.serve(bus);
    this.ssm = SimSsm.serve(ssmStub);
    if (hosts != null) {
      hosts
          .route("eks", hosts.address(1))
          .route("events", hosts.address(2))
          .route("ssm", hosts.address(3))
          .fallback(hosts.address(4));
    }
  }

  static ColdAws start() {
    return start(Path.of(System.getProperty("java.home")));
  }

  /**
   * Stubs whose certificate the function running on {@code functionJavaHome} trusts, behind AWS's
   * own host names where this process may listen on port 443 ({@link AwsHosts}), else behind
   * endpoint overrides ({@code AWS_ENDPOINT_URL_*}).
   */
  static ColdAws start(Path functionJavaHome) {
    var hosts = AwsHosts.allocate();
    var why = hosts.unavailable();
    return why.isPresent()
        ? new ColdAws(BenchTls.create(functionJavaHome), null, why.get())
        : new ColdAws(BenchTls.create(functionJavaHome, hosts), hosts, null);
  }

  /** Stubs behind endpoint overrides only (the behaviour without port 443), for tests. */
  static ColdAws startWithOverrides(Path functionJavaHome) {
    return new ColdAws(BenchTls.create(functionJavaHome), null, "asked for");
  }

  /** The certificate every AWS endpoint here serves, and the function's trust in it. */
  BenchTls tls() {
    return tls;
  }

  /** Whether the function reaches the stubs by AWS's own host names (else by overrides). */
  boolean named() {
    return hosts != null;
  }

  /** The host names' routes, for a scenario's own stubs; only when {@link #named()}. */
  AwsHosts hosts() {
    if (hosts == null) {
      throw new IllegalStateException("the stubs are behind endpoint overrides: " + unnamedWhy);
    }
    return hosts;
  }

  /**
   * Where a stub (the {@code n}-th, 1 to 7; 1 to 4 are this class's) listens: its own address on
   * port 443 when {@link #named()}, else a free loopback port.
   */
  InetSocketAddress listen(int n) {
    return hosts != null
        ? hosts.socket(n)
        : new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0);
  }

  /** An HTTPS stub at {@link #listen(int)}. */
  AwsStubServer stub(int n) {
    return AwsStubServer.startHttps(tls.serverContext(), listen(n));
  }

  /**
   * Puts {@code key} = {@code endpoint} into {@code env} when the stubs are behind overrides;
   * behind host names the function finds the endpoint as in Lambda, and {@code env} stays as it is.
   */
  void override(Map<String, String> env, String key, URI endpoint) {
    if (hosts == null) {
      env.put(key, endpoint.toString());
    }
  }

  /**
   * The function JVM's options: the trust store, and behind host names the hosts file ({@code
   * -Djdk.net.hosts.file}, written anew from the routes as they are now).
   */
  List<String> functionJvmOptions() {
    var options = new ArrayList<>(tls.functionJvmOptions());
    if (hosts != null) {
      Path file = tls.file("hosts");
      hosts.write(file);
      options.add("-Djdk.net.hosts.file=" + file);
    }
    return options;
  }

  /** What the JSON line's {@code environment} says. */
  String description() {
    return ENVIRONMENT
        + (hosts != null
            ? "AWS's own endpoints (https://<prefix>.<region>.amazonaws.com, port 443, no endpoint"
                + " override) led to the stubs by a hosts file (-Djdk.net.hosts.file): a connection"
                + " and a full handshake per host, its name checked against the certificate"
            : "endpoint overrides (AWS_ENDPOINT_URL_*; not AWS's host names: " + unnamedWhy + ")");
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
    override(env, "AWS_ENDPOINT_URL_EKS", eks.endpoint());
    return env;
  }

  /** The environment of a function that reaches no cluster: outcome bus and credentials. */
  Map<String, String> environment() {
    var env = new LinkedHashMap<String, String>();
    env.put("OUTCOME_EVENT_BUS", BUS);
    override(env, "AWS_ENDPOINT_URL_EVENTBRIDGE", bus.endpoint());
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
    var env = new LinkedHashMap<String, String>();
    env.put("SCHEDULE_POLICY", "ssm:" + name);
    override(env, "AWS_ENDPOINT_URL_SSM", ssmStub.endpoint());
    return env;
  }

  /**
   * The fallback stub (any call it does not serve gets an error): {@code AWS_ENDPOINT_URL} behind
   * overrides, every unrouted prefix behind host names.
   */
  URI endpoint() {
    return stub.endpoint();
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
