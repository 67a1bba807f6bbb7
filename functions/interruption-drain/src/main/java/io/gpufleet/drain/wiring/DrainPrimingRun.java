package io.gpufleet.drain.wiring;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.k8s.JdkHttp2Classes;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.lambda.LoopbackHttps;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.drain.DrainSettings;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A complete drain before the SnapStart snapshot, as the first Spot warning will run it: the event
 * decoded by the handler's own entry, the node found, claimed, tainted and cordoned, its pods
 * listed and evicted in parallel (budget refusals retried), their deletion watched, the outcome
 * rendered — with the same Kubernetes client (fabric8 on the JDK HTTP client, TLS, the cluster CA
 * trusted as in Lambda) and JSON paths as against EKS, but against a {@link PrimingCluster} behind
 * a {@link LoopbackHttps} that exists only during the run. Nothing leaves the process: no AWS sink,
 * no metrics line, no EC2 lookup, a fixed bearer token that is no credential; the server and the
 * client (its connection pool and selector thread) are closed before it returns.
 */
final class DrainPrimingRun {
  /** What a run did: rounds, and over them the requests the loopback cluster served. */
  record Result(
      int rounds,
      long patches,
      long evictions,
      long refusals,
      long podsLeft,
      List<String> unexpected,
      int port,
      String answer) {}

  /** Pods per priming node and how many of them a budget guards (their first eviction: 429). */
  static final int PODS = 40;

  static final int GUARDED = 2;

  /**
   * Rounds of the drain: enough calls for the JIT to compile the drain's per-request and per-pod
   * paths (Lambda's JVM runs C1 only, which compiles a method after about 200 calls: 8 x 40
   * evictions pass that), few enough to stay well inside a snapshot INIT.
   */
  static final int ROUNDS = 8;

  private DrainPrimingRun() {}

  static Result run() {
    return run(ROUNDS, PODS, GUARDED);
  }

  static Result run(int rounds, int pods, int guarded) {
    JdkHttp2Classes.load();
    long patches = 0;
    long evictions = 0;
    long refusals = 0;
    long left = 0;
    var unexpected = new java.util.ArrayList<String>();
    int port = -1;
    String answer = null;
    for (int i = 0; i < rounds; i++) {
      var cluster = new PrimingCluster(pods, guarded);
      try (var server = LoopbackHttps.start(cluster)) {
        port = server.port();
        answer = drainOnce(server);
      }
      patches += cluster.patches();
      evictions += cluster.evictions();
      refusals += cluster.refusals();
      left += cluster.podsLeft();
      unexpected.addAll(cluster.unexpected());
    }
    return new Result(rounds, patches, evictions, refusals, left, unexpected, port, answer);
  }

  private static String drainOnce(LoopbackHttps server) {
    try (KubernetesClient kube =
        KubeClients.forUrl(server.url(), Optional.of(server.caData()), () -> "priming")) {
      var parts = DrainWiring.Parts.of(DrainSettings.defaults("priming"));
      var service = DrainWiring.service(kube, parts);
      var entry = DrainHandler.entry(service, MetricsPort.NONE, Clock.systemUTC());
      var out = new ByteArrayOutputStream();
      entry.handle(
          new ByteArrayInputStream(event(Instant.now()).getBytes(StandardCharsets.UTF_8)),
          out,
          new LocalContext("gpufleet-priming", 60_000));
      return out.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("priming drain", e);
    }
  }

  /**
   * A Spot warning for the priming node, sent now (a warning from the past would be past its
   * deadline and skip the evictions). Read at each run, kept nowhere.
   */
  static String event(Instant now) {
    return "{\"version\":\"0\",\"id\":\"00000000-0000-0000-0000-00000000prim\","
        + "\"detail-type\":\"EC2 Spot Instance Interruption Warning\",\"source\":\"aws.ec2\","
        + "\"account\":\"000000000000\",\"time\":\""
        + now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
        + "\",\"region\":\"us-east-1\",\"resources\":[\"arn:aws:ec2:us-east-1a:instance/"
        + PrimingCluster.INSTANCE
        + "\"],\"detail\":{\"instance-id\":\""
        + PrimingCluster.INSTANCE
        + "\",\"instance-action\":\"terminate\"}}";
  }
}
