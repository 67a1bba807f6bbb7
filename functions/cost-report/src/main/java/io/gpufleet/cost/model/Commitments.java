package io.gpufleet.cost.model;

import io.gpufleet.core.catalog.InstanceCatalog;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What Savings Plans and Reserved Instances make an On-Demand node cost, in one of two forms:
 *
 * <ul>
 *   <li>{@code cost-explorer}: coverage and discount read from Cost Explorer for the window. Cost
 *       Explorer says what share of a family's (Savings Plans) or a type's (Reserved Instances)
 *       On-Demand usage a commitment covered and what the commitments cost per On-Demand dollar; it
 *       cannot say which instance was covered, so every On-Demand node of that family/type is
 *       charged the blended rate: {@code list × (1 − cRI − cSP + cRI·dRI + cSP·dSP)}.
 *   <li>{@code rate-table}: a configured effective hourly rate per instance type (or family, {@code
 *       p5.*}) for accounts without Cost Explorer access.
 * </ul>
 *
 * {@code none} leaves every On-Demand node at its list price. Spot nodes are never covered. {@code
 * fallbacks} names each read that failed or had no data and what was done instead (also among
 * {@code notes}); the report lists them among its warnings.
 */
public record Commitments(
    String source,
    Map<String, Coverage> savingsPlansByFamily,
    double savingsPlanRatio,
    Map<String, Coverage> reservedByType,
    double reservedRatio,
    Map<String, BigDecimal> rateTable,
    List<String> notes,
    List<String> fallbacks) {

  public Commitments(
      String source,
      Map<String, Coverage> savingsPlansByFamily,
      double savingsPlanRatio,
      Map<String, Coverage> reservedByType,
      double reservedRatio,
      Map<String, BigDecimal> rateTable,
      List<String> notes) {
    this(
        source,
        savingsPlansByFamily,
        savingsPlanRatio,
        reservedByType,
        reservedRatio,
        rateTable,
        notes,
        List.of());
  }

  /** A share of On-Demand usage covered (0..1) and what it was measured on. */
  public record Coverage(double covered, String detail) {}

  /** The effective On-Demand rate of one node, where its source and the why. */
  public record Effective(BigDecimal perHour, String source, String detail) {}

  public static final String NONE = "none";
  public static final String COST_EXPLORER = "cost-explorer";
  public static final String RATE_TABLE = "rate-table";

  public static Commitments none(String why) {
    return new Commitments(NONE, Map.of(), 1, Map.of(), 1, Map.of(), List.of(why));
  }

  public static Commitments table(Map<String, BigDecimal> rates) {
    return new Commitments(RATE_TABLE, Map.of(), 1, Map.of(), 1, Map.copyOf(rates), List.of());
  }

  /** The rate an On-Demand node paid, when a commitment changes it. */
  public Optional<Effective> effective(String region, String instanceType, BigDecimal list) {
    if (instanceType == null) {
      return Optional.empty();
    }
    if (RATE_TABLE.equals(source)) {
      BigDecimal r = rateTable.get(instanceType);
      String key = instanceType;
      if (r == null) {
        key = InstanceCatalog.family(instanceType) + ".*";
        r = rateTable.get(key);
      }
      return r == null
          ? Optional.empty()
          : Optional.of(new Effective(r, RATE_TABLE, "configured effective rate for " + key));
    }
    if (!COST_EXPLORER.equals(source) || list == null) {
      return Optional.empty();
    }
    Coverage ri = reservedByType.get(region + "/" + instanceType);
    Coverage sp = savingsPlansByFamily.get(region + "/" + InstanceCatalog.family(instanceType));
    double cRi = ri == null ? 0 : ri.covered();
    double cSp = sp == null ? 0 : Math.min(sp.covered(), 1 - cRi);
    if (cRi <= 0 && cSp <= 0) {
      return Optional.empty();
    }
    double factor = 1 - cRi - cSp + cRi * reservedRatio + cSp * savingsPlanRatio;
    var parts = new StringBuilder();
    if (cSp > 0) {
      parts.append(
          String.format(
              java.util.Locale.ROOT,
              "Savings Plans cover %.0f %% (%s) at %.3f per On-Demand dollar",
              cSp * 100,
              sp.detail(),
              savingsPlanRatio));
    }
    if (cRi > 0) {
      parts
          .append(parts.isEmpty() ? "" : "; ")
          .append(
              String.format(
                  java.util.Locale.ROOT,
                  "Reserved Instances cover %.0f %% (%s) at %.3f per On-Demand dollar",
                  cRi * 100,
                  ri.detail(),
                  reservedRatio));
    }
    String label =
        cSp > 0 && cRi > 0 ? "savings-plan+reserved" : cSp > 0 ? "savings-plan" : "reserved";
    return Optional.of(
        new Effective(
            list.multiply(BigDecimal.valueOf(factor), MathContext.DECIMAL64),
            label + " (cost-explorer)",
            parts.toString()));
  }
}
