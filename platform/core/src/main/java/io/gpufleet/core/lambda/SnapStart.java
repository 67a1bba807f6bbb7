package io.gpufleet.core.lambda;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * What must be fresh after a SnapStart restore. One snapshot resumes many execution environments,
 * possibly hours after the INIT that made it: the credentials resolved during INIT, the EKS tokens
 * signed with them and the HTTP connections opened then are not to be trusted. Everything that
 * holds such state registers a {@link Renewable} here when it is built; each function's CRaC
 * resource calls {@link #afterRestore()} from its {@code afterRestore} hook.
 *
 * <p>Held weakly: a renewable lives as long as the client that owns it (for a Lambda function, the
 * whole environment), and tests or CLI runs that build many clients do not accumulate them.
 */
public final class SnapStart {
  /** State that a restore makes stale. {@link #renew()} must not do network I/O. */
  public interface Renewable {
    void renew();
  }

  private static final List<WeakReference<Renewable>> RENEWABLES = new CopyOnWriteArrayList<>();

  private SnapStart() {}

  public static void register(Renewable renewable) {
    RENEWABLES.add(new WeakReference<>(renewable));
  }

  /**
   * Renews the random source ({@link RestoreSafeRandom}) and every live registered state
   * (credentials providers, EKS token caches, Kubernetes HTTP clients) in registration order;
   * returns how many registered states were renewed.
   */
  public static int afterRestore() {
    // the jitter and backoff generator of INIT is in every environment restored from the snapshot
    RestoreSafeRandom.renew();
    int renewed = 0;
    List<WeakReference<Renewable>> gone = new ArrayList<>();
    for (var ref : RENEWABLES) {
      Renewable r = ref.get();
      if (r == null) {
        gone.add(ref);
      } else {
        r.renew();
        renewed++;
      }
    }
    RENEWABLES.removeAll(gone);
    return renewed;
  }

  /**
   * Logs a lifecycle line (CRaC hooks run outside any invocation) with the {@code service} field
   * Powertools adds only inside one, so these lines are found under the function's service too.
   */
  public static void log(Logger logger, String message, Object... args) {
    String service = System.getenv("POWERTOOLS_SERVICE_NAME");
    if (service == null) {
      logger.info(message, args);
      return;
    }
    try (var ignored = MDC.putCloseable("service", service)) {
      logger.info(message, args);
    }
  }
}
