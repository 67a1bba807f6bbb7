package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.PoolFinding;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Pure: policy rules for inference and training pools, each finding with its reason.
 *
 * <p>A pool's role is read from the label (or annotation) {@value #ROLE} = {@code inference} or
 * {@code training}; without it, from the words of its name ({@code inference}, {@code infer},
 * {@code serving}, {@code serve} → inference; {@code training}, {@code train}, {@code batch},
 * {@code finetune} → training). It is production when the label/annotation {@value #ENVIRONMENT},
 * {@code environment} or {@code env} is {@code prod}/{@code production}, or its name has the word
 * {@code prod}/{@code production}. Pools of neither role get only the role-free rules.
 */
final class PoolLint {
  static final String ROLE = "gpufleet.io/role";
  static final String ENVIRONMENT = "gpufleet.io/environment";

  /** Shorter consolidation delays on inference pools churn model servers. */
  static final Duration MIN_INFERENCE_CONSOLIDATE_AFTER = Duration.ofMinutes(30);

  static final String UNDERUTILIZED = "WhenEmptyOrUnderutilized";

  enum Role {
    INFERENCE,
    TRAINING
  }

  private static final Set<String> INFERENCE_WORDS =
      Set.of("inference", "infer", "serving", "serve");
  private static final Set<String> TRAINING_WORDS =
      Set.of("training", "train", "batch", "finetune");
  private static final Set<String> PROD = Set.of("prod", "production");
  private static final Pattern GO_DURATION =
      Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?");

  private PoolLint() {}

  static Optional<Role> role(NodePoolSpec pool) {
    String declared = meta(pool, ROLE);
    if (declared != null) {
      return switch (declared.toLowerCase(Locale.ROOT)) {
        case "inference" -> Optional.of(Role.INFERENCE);
        case "training" -> Optional.of(Role.TRAINING);
        default -> Optional.empty();
      };
    }
    List<String> words = words(pool.name());
    if (words.stream().anyMatch(INFERENCE_WORDS::contains)) {
      return Optional.of(Role.INFERENCE);
    }
    if (words.stream().anyMatch(TRAINING_WORDS::contains)) {
      return Optional.of(Role.TRAINING);
    }
    return Optional.empty();
  }

  static boolean production(NodePoolSpec pool) {
    for (String key : List.of(ENVIRONMENT, "environment", "env")) {
      String v = meta(pool, key);
      if (v != null) {
        return PROD.contains(v.toLowerCase(Locale.ROOT));
      }
    }
    return words(pool.name()).stream().anyMatch(PROD::contains);
  }

  static void lint(
      NodePoolSpec pool, boolean gpuPool, boolean hasGpuLimit, List<PoolFinding> findings) {
    Optional<Role> role = role(pool);
    boolean spot = NodePoolAnalyzer.capacityTypes(pool).contains(CapacityType.SPOT);
    String policy = pool.consolidationPolicy() == null ? UNDERUTILIZED : pool.consolidationPolicy();
    Optional<Duration> after = consolidateAfter(pool.consolidateAfter());
    if (role.orElse(null) == Role.INFERENCE && production(pool) && spot) {
      findings.add(
          warn(
              pool,
              "production inference on Spot: an interruption gives 2 minutes' notice while a"
                  + " large model takes 5-8 minutes to come back on a new node, so requests fail"
                  + " in between; run it On-Demand (or add an On-Demand pool with a higher weight"
                  + " that keeps the minimum replicas)"));
    }
    if (role.orElse(null) == Role.INFERENCE
        && UNDERUTILIZED.equals(policy)
        && after.map(a -> a.compareTo(MIN_INFERENCE_CONSOLIDATE_AFTER) < 0).orElse(false)) {
      findings.add(
          warn(
              pool,
              "inference pool consolidates "
                  + UNDERUTILIZED
                  + " after "
                  + (pool.consolidateAfter() == null ? "0s (the default)" : pool.consolidateAfter())
                  + ": each traffic dip moves model servers to other nodes and every move reloads"
                  + " the model (minutes of lost capacity); use WhenEmpty, or consolidateAfter of"
                  + " at least 30m, and time-based budgets"));
    }
    if (role.orElse(null) == Role.TRAINING && UNDERUTILIZED.equals(policy)) {
      findings.add(
          warn(
              pool,
              "training pool consolidates "
                  + UNDERUTILIZED
                  + ": Karpenter may evict a running job to repack it and the job restarts from"
                  + " its last checkpoint; use WhenEmpty"));
    }
    if (gpuPool && !hasGpuLimit) {
      findings.add(
          warn(
              pool,
              "GPU limit missing: nothing caps how many GPUs this pool launches (a cpu limit"
                  + " does not count GPUs), so a runaway scale-up spends until the quota stops it;"
                  + " set limits.nvidia.com/gpu (or aws.amazon.com/neuron)"));
    }
  }

  /** Karpenter's consolidateAfter ("30s", "10m", "1h30m", "Never"); empty for Never. */
  static Optional<Duration> consolidateAfter(String text) {
    if (text == null || text.isBlank()) {
      return Optional.of(Duration.ZERO); // karpenter.sh/v1 defaults to 0s
    }
    if ("Never".equals(text.trim())) {
      return Optional.empty();
    }
    var m = GO_DURATION.matcher(text.trim());
    if (!m.matches() || text.isBlank()) {
      return Optional.empty();
    }
    long s = 0;
    s += m.group(1) == null ? 0 : Long.parseLong(m.group(1)) * 3600;
    s += m.group(2) == null ? 0 : Long.parseLong(m.group(2)) * 60;
    s += m.group(3) == null ? 0 : Long.parseLong(m.group(3));
    return Optional.of(Duration.ofSeconds(s));
  }

  private static PoolFinding warn(NodePoolSpec pool, String message) {
    return new PoolFinding(pool.name(), PoolFinding.WARNING, message);
  }

  private static String meta(NodePoolSpec pool, String key) {
    Map<String, String> labels = pool.labels() == null ? Map.of() : pool.labels();
    Map<String, String> annotations = pool.annotations() == null ? Map.of() : pool.annotations();
    return labels.getOrDefault(key, annotations.get(key));
  }

  private static List<String> words(String name) {
    return List.of(name.toLowerCase(Locale.ROOT).split("[-_.]+"));
  }
}
