package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpufleet.drain.DrainClusterPort.ClusterUnavailableException;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * How the adapter's requests go out: at most {@code maxInFlight} at once across all drains of this
 * container (bounds connections), reads retried briefly on transient answers, and failures turned
 * into {@link ClusterUnavailableException} (so the event is retried).
 */
final class KubeCalls {
  static final int READ_ATTEMPTS = 3;
  static final long READ_BACKOFF_MS = 100;

  private final Semaphore inFlight;

  KubeCalls(int maxInFlight) {
    this.inFlight = new Semaphore(maxInFlight);
  }

  /** {@code call} within the in-flight limit. */
  <T> T limited(Supplier<T> call) {
    inFlight.acquireUninterruptibly();
    try {
      return call.get();
    } finally {
      inFlight.release();
    }
  }

  /** Reads are idempotent: transport errors, 429 and 5xx are retried briefly before giving up. */
  <T> T read(String what, Supplier<T> call) {
    for (int attempt = 1; ; attempt++) {
      try {
        return limited(call);
      } catch (KubernetesClientException e) {
        int code = e.getCode();
        boolean transient_ = code <= 0 || code == 429 || code >= 500;
        if (!transient_ || attempt >= READ_ATTEMPTS) {
          throw unavailable(what, e);
        }
        try {
          Thread.sleep(READ_BACKOFF_MS << (attempt - 1));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw unavailable(what, e);
        }
      }
    }
  }

  static String rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  static ClusterUnavailableException unavailable(String what, KubernetesClientException e) {
    return new ClusterUnavailableException(
        "Kubernetes API: "
            + what
            + " failed ("
            + (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " + e.getMessage() : rootCause(e))
            + ")",
        e);
  }
}
