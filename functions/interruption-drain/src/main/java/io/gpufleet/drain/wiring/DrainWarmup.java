package io.gpufleet.drain.wiring;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpufleet.drain.k8s.DrainClusterAdapter;
import org.slf4j.LoggerFactory;

/**
 * Init work that does not depend on the cluster client, run on a second thread while the main
 * thread primes the Jackson 2 paths and builds the client: logging first, then the Jackson 3
 * classes of the Kubernetes model. No network, credentials, tokens, randomness or clock; the
 * handler joins it before it is returned, so nothing of it overlaps an invocation.
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
      // logging first: the main thread starts with the Jackson 2 work (see DrainHandler.wire),
      // and the client it builds next logs, so it finds logging ready instead of building it
      LoggerFactory.getLogger(DrainHandler.class);
      DrainClusterAdapter.prime(new KubernetesSerialization());
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
