package io.gpufleet.core.catalog;

import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The accelerated instance types GPU Fleet Ops knows without asking EC2 (a fallback and the basis
 * of validation and worst-case estimates; live runs read DescribeInstanceTypes), and the family to
 * quota-bucket rule: the letters before the generation digit, longest prefix wins.
 */
public final class InstanceCatalog {
  private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9-]*\\.[a-z0-9-]+");
  private static final long GIB = 1024;

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

  private static final Map<String, InstanceSpec> SPECS = new LinkedHashMap<>();

  static {
    // P: NVIDIA training GPUs
    add("p3.2xlarge", 8, 61 * GIB, 1, "V100", 16);
    add("p3.8xlarge", 32, 244 * GIB, 4, "V100", 16);
    add("p3.16xlarge", 64, 488 * GIB, 8, "V100", 16);
    add("p4d.24xlarge", 96, 1152 * GIB, 8, "A100", 40);
    add("p4de.24xlarge", 96, 1152 * GIB, 8, "A100", 80);
    add("p5.4xlarge", 16, 256 * GIB, 1, "H100", 80);
    add("p5.48xlarge", 192, 2048 * GIB, 8, "H100", 80);
    add("p5e.48xlarge", 192, 2048 * GIB, 8, "H200", 141);
    add("p5en.48xlarge", 192, 2048 * GIB, 8, "H200", 141);
    add("p6-b200.48xlarge", 192, 2048 * GIB, 8, "B200", 179);
    // G and VT: inference and graphics GPUs
    gSeries("g4dn", "T4", 16, 4);
    add("g4dn.metal", 96, 384 * GIB, 8, "T4", 16);
    gSeries("g5", "A10G", 24, 4);
    gSeries("g6", "L4", 24, 4);
    gSeries("g6e", "L40S", 48, 8);
    add("gr6.4xlarge", 16, 128 * GIB, 1, "L4", 24);
    add("gr6.8xlarge", 32, 256 * GIB, 1, "L4", 24);
    add("vt1.3xlarge", 12, 24 * GIB, 1, "Xilinx U30", 0);
    add("vt1.6xlarge", 24, 48 * GIB, 2, "Xilinx U30", 0);
    add("vt1.24xlarge", 96, 192 * GIB, 8, "Xilinx U30", 0);
    // Trn, Inf, DL: AWS and Habana accelerators
    add("trn1.2xlarge", 8, 32 * GIB, 1, "Trainium", 32);
    add("trn1.32xlarge", 128, 512 * GIB, 16, "Trainium", 32);
    add("trn1n.32xlarge", 128, 512 * GIB, 16, "Trainium", 32);
    add("trn2.48xlarge", 192, 2048 * GIB, 16, "Trainium2", 96);
    add("inf2.xlarge", 4, 16 * GIB, 1, "Inferentia2", 32);
    add("inf2.8xlarge", 32, 128 * GIB, 1, "Inferentia2", 32);
    add("inf2.24xlarge", 96, 384 * GIB, 6, "Inferentia2", 32);
    add("inf2.48xlarge", 192, 768 * GIB, 12, "Inferentia2", 32);
    add("dl1.24xlarge", 96, 768 * GIB, 8, "Gaudi HL-205", 32);
  }

  private InstanceCatalog() {}

  /** xlarge..16xlarge with one GPU, 12xlarge/24xlarge with four, 48xlarge with {@code big}. */
  private static void gSeries(String family, String gpu, long gpuGib, int memPerVcpuGib) {
    int[][] sizes = {{4, 1}, {8, 1}, {16, 1}, {32, 1}, {64, 1}, {48, 4}, {96, 4}};
    String[] names = {
      "xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge", "12xlarge", "24xlarge"
    };
    for (int i = 0; i < names.length; i++) {
      add(
          family + "." + names[i],
          sizes[i][0],
          (long) sizes[i][0] * memPerVcpuGib * GIB,
          sizes[i][1],
          gpu,
          gpuGib);
    }
    if (!family.equals("g4dn")) {
      add(family + ".48xlarge", 192, 192L * memPerVcpuGib * GIB, 8, gpu, gpuGib);
    }
  }

  private static void add(
      String type, int vcpus, long memoryMib, int accelerators, String model, long accelGib) {
    SPECS.put(type, new InstanceSpec(type, vcpus, memoryMib, accelerators, model, accelGib * GIB));
  }

  /** The built-in spec of a type, if it is one of the accelerated types listed here. */
  public static Optional<InstanceSpec> find(String instanceType) {
    return Optional.ofNullable(SPECS.get(instanceType));
  }

  public static Collection<InstanceSpec> all() {
    return SPECS.values();
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
