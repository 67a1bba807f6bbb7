package io.gpufleet.core.catalog;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The instance types GPU Fleet Ops knows without asking EC2 (a fallback and the basis of validation
 * and worst-case estimates; live runs read DescribeInstanceTypes), and the family to quota-bucket
 * rule: the letters before the generation digit, longest prefix wins.
 *
 * <p>The table is generated ({@link CatalogData}, by {@code
 * scripts/catalog/generate_instance_catalog.py}) from the DescribeInstanceTypes dump of the pinned
 * moto release plus a few sourced supplements and corrections; it also carries the static On-Demand
 * prices ({@link io.gpufleet.core.pricing.StaticPrices} reads them from here). {@link #find},
 * {@link #all} and {@link #inFamilies} cover the accelerated types only; {@link #entry} also knows
 * the few CPU types that have a static price.
 */
public final class InstanceCatalog {
  private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9-]*\\.[a-z0-9-]+");

  /** Prefix of the family name → bucket; the longest matching prefix wins. */
  private static final Map<String, QuotaBucket> PREFIXES =
      Map.ofEntries(
          Map.entry("dl", QuotaBucket.DL),
          Map.entry("trn", QuotaBucket.TRN),
          Map.entry("inf", QuotaBucket.INF),
          Map.entry("p", QuotaBucket.P),
          Map.entry("g", QuotaBucket.G_VT),
          Map.entry("gr", QuotaBucket.G_VT),
          Map.entry("vt", QuotaBucket.G_VT),
          Map.entry("f", QuotaBucket.F),
          Map.entry("x", QuotaBucket.X),
          Map.entry("u", QuotaBucket.HIGH_MEMORY),
          Map.entry("hpc", QuotaBucket.HPC));

  private static final Map<String, CatalogEntry> ENTRIES = new LinkedHashMap<>();
  private static final Map<String, InstanceSpec> SPECS = new LinkedHashMap<>();

  static {
    for (CatalogEntry e : CatalogData.rows()) {
      ENTRIES.put(e.instanceType(), e);
      if (e.accelerated()) {
        SPECS.put(e.instanceType(), e.spec());
      }
    }
  }

  private InstanceCatalog() {}

  /** Where the table's hardware facts come from ("moto 5.2.5 moto/ec2/resources/..."). */
  public static String factsSource() {
    return CatalogData.FACTS_SOURCE;
  }

  /** The built-in spec of a type, if it is one of the accelerated types listed here. */
  public static Optional<InstanceSpec> find(String instanceType) {
    return Optional.ofNullable(SPECS.get(instanceType));
  }

  /** The catalog row of a type: accelerated types and the CPU types with a static price. */
  public static Optional<CatalogEntry> entry(String instanceType) {
    return Optional.ofNullable(instanceType == null ? null : ENTRIES.get(instanceType));
  }

  /** Every row, accelerated or not, in table order. */
  public static Collection<CatalogEntry> entries() {
    return Collections.unmodifiableCollection(ENTRIES.values());
  }

  /** The accelerated types, in table order (P, G and VT, Trn, Inf, DL; by family and size). */
  public static Collection<InstanceSpec> all() {
    return Collections.unmodifiableCollection(SPECS.values());
  }

  /** The accelerator kind of a type, NONE when it has none or the catalog does not know it. */
  public static AcceleratorKind kindOf(String instanceType) {
    return entry(instanceType).map(CatalogEntry::kind).orElse(AcceleratorKind.NONE);
  }

  /** Types of the catalog in these families (karpenter.k8s.aws/instance-family values). */
  public static List<InstanceSpec> inFamilies(Collection<String> families) {
    return SPECS.values().stream().filter(s -> families.contains(s.family())).toList();
  }

  /** Looks like an EC2 instance type name ("p5.48xlarge", "p6-b200.48xlarge", "u-6tb1.metal"). */
  public static boolean wellFormed(String instanceType) {
    return instanceType != null && TYPE.matcher(instanceType).matches();
  }

  /** The part before the dot: "p5" of "p5.48xlarge", "p6-b200" of "p6-b200.48xlarge". */
  public static String family(String instanceType) {
    String t = instanceType.toLowerCase(Locale.ROOT);
    int dot = t.indexOf('.');
    return dot < 0 ? t : t.substring(0, dot);
  }

  /** The category letters of a family ("g" of g6e, "trn" of trn2, "p" of p6-b200). */
  public static String category(String family) {
    int i = 0;
    while (i < family.length() && Character.isLetter(family.charAt(i))) {
      i++;
    }
    return family.substring(0, i);
  }

  /**
   * The quota bucket of an instance type or family: the longest known prefix of the family's
   * letters before the generation digit ({@code dl1} is DL, not D; {@code trn2} is Trn; {@code gr6}
   * is G and VT); anything unknown is Standard.
   */
  public static QuotaBucket bucketOf(String instanceTypeOrFamily) {
    String letters = category(family(instanceTypeOrFamily));
    return PREFIXES.entrySet().stream()
        .filter(e -> letters.startsWith(e.getKey()))
        .max(Comparator.comparingInt(e -> e.getKey().length()))
        .map(Map.Entry::getValue)
        .orElse(QuotaBucket.STANDARD);
  }
}
