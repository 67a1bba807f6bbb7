package io.gpufleet.drain;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.drain.k8s.FabricClusterGateway;
import org.slf4j.LoggerFactory;

/**
 * Init work that does not depend on the cluster client, run on a second thread while the main
 * thread builds the client: logging, the Jackson 2 mapper (event decoding, outcome JSON) and the
 * Jackson 3 classes of the Kubernetes model. No network, credentials, tokens, randomness or clock;
 * the handler joins it before it is returned, so nothing of it overlaps an invocation.
 */
final class DrainWarmup {
  private DrainWarmup() {}

  static Thread start() {
    Thread t = new Thread(DrainWarmup::run, "gpufleet-init-warmup");
    t.setDaemon(true);
    t.start();
    return t;
  }

  static void run() {
    try {
      // Jackson first: the main thread initialises logging at once (the client's configuration
      // logs), and two threads starting on it would just wait for each other
      DrainPriming.prime(new EventDecoder());
      FabricClusterGateway.prime(new KubernetesSerialization());
      LoggerFactory.getLogger(DrainHandler.class);
    } catch (RuntimeException | LinkageError e) {
      // only a head start: whatever fails here fails (and is reported) on the main path
    }
  }

  static void join(Thread t) {
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
