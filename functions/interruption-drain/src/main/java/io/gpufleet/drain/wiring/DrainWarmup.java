package io.gpufleet.drain.wiring;

import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.drain.k8s.DrainClusterAdapter;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Init work that does not depend on the cluster client, run on a second thread while the main
 * thread primes this project's JSON paths and builds the client: logging first, then the Jackson
 * classes of the Kubernetes model, then the classes of the first EC2 call (the instance lookup:
 * credentials chain, HTTP client, SigV4 signing, the XML answer), which used to load on the first
 * event while this thread sat idle), last the metrics flush's EMF classes (the end of every
 * invocation, which the first event otherwise loads on the calling thread). No network,
 * credentials, tokens, randomness or clock; the handler runs them through {@link
 * io.gpufleet.core.lambda.InitWarmup}, which joins them before the handler is returned, so nothing
 * of it overlaps an invocation.
 */
final class DrainWarmup {
  private DrainWarmup() {}

  /**
   * The steps, in order: logging, the Kubernetes model's Jackson classes, the EC2 call's, the EMF
   * flush's.
   */
  static List<Runnable> steps() {
    // logging first: the main thread starts with the Jackson 2 work (see DrainPriming.wire), and
    // the client it builds next logs, so it finds logging ready instead of building it
    return List.of(
        () -> LoggerFactory.getLogger(DrainHandler.class),
        () -> DrainClusterAdapter.prime(KubeClients.serialization()),
        Ec2Query::prime,
        PowertoolsMetricsAdapter::prime);
  }
}
