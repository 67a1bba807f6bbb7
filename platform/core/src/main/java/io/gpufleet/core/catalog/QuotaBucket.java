package io.gpufleet.core.catalog;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The EC2 vCPU quota buckets. Each has one On-Demand and one Spot quota per account and region
 * (codes and names as Service Quotas lists them; the codes are the fallback when resolving them by
 * name at run time fails) and one CloudWatch {@code AWS/Usage} class.
 */
public enum QuotaBucket {
  STANDARD(
      "Standard",
      "Standard",
      "L-1216C47A",
      "L-34B43A08",
      "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
      "All Standard (A, C, D, H, I, M, R, T, Z) Spot Instance Requests",
      false),
  G_VT(
      "G and VT",
      "G",
      "L-DB2E81BA",
      "L-3819A6DF",
      "Running On-Demand G and VT instances",
      "All G and VT Spot Instance Requests",
      true),
  P(
      "P",
      "P",
      "L-417A185B",
      "L-7212CCBC",
      "Running On-Demand P instances",
      "All P Spot Instance Requests",
      true),
  INF(
      "Inf",
      "Inf",
      "L-1945791B",
      "L-B5D1601B",
      "Running On-Demand Inf instances",
      "All Inf Spot Instance Requests",
      true),
  TRN(
      "Trn",
      "Trn",
      "L-2C3B7624",
      "L-6B0D517C",
      "Running On-Demand Trn instances",
      "All Trn Spot Instance Requests",
      true),
  DL(
      "DL",
      "DL",
      "L-6E869C2A",
      "L-85EED4F7",
      "Running On-Demand DL instances",
      "All DL Spot Instance Requests",
      true),
  F(
      "F",
      "F",
      "L-74FC7D96",
      "L-88CF9481",
      "Running On-Demand F instances",
      "All F Spot Instance Requests",
      true),
  X(
      "X",
      "X",
      "L-7295265B",
      "L-E3A00192",
      "Running On-Demand X instances",
      "All X Spot Instance Requests",
      false),
  /**
   * u-* instances (On-Demand only: there is no High Memory Spot quota). The code is the one public
   * ListServiceQuotas output and the Service Quotas console links show for this quota name.
   */
  HIGH_MEMORY(
      "High Memory",
      "HighMem",
      "L-43DA4232",
      null,
      "Running On-Demand High Memory instances",
      null,
      false),
  /** hpc* instances (On-Demand only); code as for {@link #HIGH_MEMORY}. */
  HPC("HPC", "HPC", "L-F7808C92", null, "Running On-Demand HPC instances", null, false);

  private final String display;
  private final String usageClass;
  private final String onDemandCode;
  private final String spotCode;
  private final String onDemandQuotaName;
  private final String spotQuotaName;
  private final boolean accelerated;

  QuotaBucket(
      String display,
      String usageClass,
      String onDemandCode,
      String spotCode,
      String onDemandQuotaName,
      String spotQuotaName,
      boolean accelerated) {
    this.display = display;
    this.usageClass = usageClass;
    this.onDemandCode = onDemandCode;
    this.spotCode = spotCode;
    this.onDemandQuotaName = onDemandQuotaName;
    this.spotQuotaName = spotQuotaName;
    this.accelerated = accelerated;
  }

  /** For people: "G and VT", "P", "Trn". */
  public String display() {
    return display;
  }

  /** GPU, Trainium, Inferentia, Gaudi and FPGA buckets (new accounts start them at 0 vCPU). */
  public boolean accelerated() {
    return accelerated;
  }

  /** The fallback quota code from the reference table, if there is one. */
  public Optional<String> fallbackQuotaCode(CapacityType type) {
    return Optional.ofNullable(type == CapacityType.SPOT ? spotCode : onDemandCode);
  }

  /** The quota's name in Service Quotas, matched exactly when resolving codes at run time. */
  public Optional<String> quotaName(CapacityType type) {
    return Optional.ofNullable(type == CapacityType.SPOT ? spotQuotaName : onDemandQuotaName);
  }

  /** The {@code Class} dimension of the AWS/Usage vCPU metric: "P/Spot", "G/OnDemand". */
  public String usageClass(CapacityType type) {
    return usageClass + "/" + type.usageClassSuffix();
  }

  /** "P Spot", "G and VT On-Demand". */
  public String label(CapacityType type) {
    return display + " " + type.display();
  }

  /** The bucket and capacity type whose quota has this name or code, if any. */
  public static Optional<Key> byQuota(String nameOrCode) {
    for (QuotaBucket b : values()) {
      for (CapacityType t : CapacityType.values()) {
        if (nameOrCode.equals(b.quotaName(t).orElse(null))
            || nameOrCode.equals(b.fallbackQuotaCode(t).orElse(null))) {
          return Optional.of(new Key(b, t));
        }
      }
    }
    return Optional.empty();
  }

  /** Parses "P", "p", "G_VT", "g-and-vt", "G and VT", "g", "trn". */
  public static Optional<QuotaBucket> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String t = text.trim().toLowerCase(Locale.ROOT).replaceAll("[\\s_-]+", "");
    for (QuotaBucket b : values()) {
      if (t.equals(b.name().toLowerCase(Locale.ROOT).replace("_", ""))
          || t.equals(b.display.toLowerCase(Locale.ROOT).replaceAll("\\s+", ""))
          || t.equals(b.usageClass.toLowerCase(Locale.ROOT))) {
        return Optional.of(b);
      }
    }
    return Optional.empty();
  }

  /** One quota: a bucket and a capacity type. */
  public record Key(QuotaBucket bucket, CapacityType capacityType) implements Comparable<Key> {
    private static final Comparator<Key> ORDER =
        Comparator.comparing(Key::bucket).thenComparing(Key::capacityType);

    public String label() {
      return bucket.label(capacityType);
    }

    public String usageClass() {
      return bucket.usageClass(capacityType);
    }

    @Override
    public int compareTo(Key o) {
      return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
      return label();
    }
  }

  /** Every (bucket, capacity type) of the accelerated buckets. */
  public static List<Key> acceleratedKeys() {
    return java.util.Arrays.stream(values())
        .filter(QuotaBucket::accelerated)
        .flatMap(b -> java.util.Arrays.stream(CapacityType.values()).map(t -> new Key(b, t)))
        .toList();
  }
}
