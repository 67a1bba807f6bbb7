package io.gpufleet.core.catalog;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.regex.Pattern;

/**
 * NVIDIA MIG profiles of the GPUs on AWS instance types and the fraction of one physical GPU each
 * profile blocks.
 *
 * <p>A profile {@code <g>g.<mem>gb} takes g of the GPU's 7 compute slices and some eighths of its
 * memory (NVIDIA MIG user guide, "Supported MIG profiles"; the profiles per GPU are the {@code
 * all-<profile>} entries of NVIDIA/mig-parted's default config). What a profile keeps from other
 * tenants is the larger of the two shares: {@code max(g/7, eighths/8)}; so on an 80 GB card 1g.10gb
 * is 1/7 (seven fit), 1g.20gb is 1/4 (four fit), 3g.40gb is 1/2 (two fit), 7g.80gb is the whole
 * GPU; on a 40 GB A100, 1g.10gb takes two memory eighths and is 1/4. Our convention, not NVIDIA's;
 * it makes the profiles that fill a GPU add up to at most one GPU.
 */
public final class MigProfiles {
  private static final Pattern PROFILE = Pattern.compile("([1-7])g\\.(\\d+)gb");

  /** GPU (model and memory in GB as on the card) → profile → memory eighths. */
  private static final Map<String, Map<String, Integer>> EIGHTHS =
      Map.of(
          "A100-40",
          Map.of("1g.5gb", 1, "1g.10gb", 2, "2g.10gb", 2, "3g.20gb", 4, "4g.20gb", 4, "7g.40gb", 8),
          "A100-80",
          eighty(),
          "H100-80",
          eighty(),
          "H200-141",
          Map.of(
              "1g.18gb", 1, "1g.35gb", 2, "2g.35gb", 2, "3g.71gb", 4, "4g.71gb", 4, "7g.141gb", 8),
          // only 1g.23gb is labelled B200 by mig-parted; the rest follow the same layout
          "B200-179",
          Map.of(
              "1g.23gb", 1, "1g.45gb", 2, "2g.45gb", 2, "3g.90gb", 4, "4g.90gb", 4, "7g.180gb", 8));

  private static Map<String, Integer> eighty() {
    return Map.of(
        "1g.10gb", 1, "1g.20gb", 2, "2g.20gb", 2, "3g.40gb", 4, "4g.40gb", 4, "7g.80gb", 8);
  }

  private MigProfiles() {}

  /** The GPU key of an instance type ("H100-80" for p5.48xlarge), if it has MIG-capable GPUs. */
  public static Optional<String> gpuOf(String instanceType) {
    return InstanceCatalog.find(instanceType == null ? "" : instanceType)
        .map(s -> s.acceleratorModel() + "-" + s.acceleratorMemoryMib() / 1024)
        .filter(EIGHTHS::containsKey);
  }

  /**
   * The profile part of a resource name, product label or DRA profile attribute: "3g.40gb" of
   * {@code nvidia.com/mig-3g.40gb}, {@code mig-1g.10gb.shared}, {@code
   * A100-SXM4-40GB-MIG-1g.5gb-SHARED}, {@code 1g.10gb+me}; empty when there is none.
   */
  public static Optional<String> profileIn(String text) {
    if (text == null) {
      return Optional.empty();
    }
    var m = PROFILE.matcher(text.toLowerCase(Locale.ROOT));
    return m.find() ? Optional.of(m.group()) : Optional.empty();
  }

  /**
   * The fraction of one physical GPU a profile blocks on this instance type. A profile the GPU is
   * not known to offer is empty (the caller says so rather than guess); so is an unknown type.
   */
  public static OptionalDouble fraction(String instanceType, String profile) {
    var gpu = gpuOf(instanceType);
    var p = profileIn(profile);
    if (gpu.isEmpty() || p.isEmpty()) {
      return OptionalDouble.empty();
    }
    Integer eighths = EIGHTHS.get(gpu.get()).get(p.get());
    if (eighths == null) {
      return OptionalDouble.empty();
    }
    int slices = p.get().charAt(0) - '0';
    return OptionalDouble.of(Math.max(slices / 7.0, eighths / 8.0));
  }

  /** The profiles a GPU of this instance type offers (empty for non-MIG types). */
  public static java.util.Set<String> profiles(String instanceType) {
    return gpuOf(instanceType).map(g -> EIGHTHS.get(g).keySet()).orElse(java.util.Set.of());
  }
}
