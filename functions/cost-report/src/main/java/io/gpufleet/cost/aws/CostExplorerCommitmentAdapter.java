package io.gpufleet.cost.aws;

import io.gpufleet.cost.CommitmentPort;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.ReportWindow;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.costexplorer.CostExplorerClient;
import software.amazon.awssdk.services.costexplorer.model.DateInterval;
import software.amazon.awssdk.services.costexplorer.model.Dimension;
import software.amazon.awssdk.services.costexplorer.model.DimensionValues;
import software.amazon.awssdk.services.costexplorer.model.Expression;
import software.amazon.awssdk.services.costexplorer.model.GetReservationCoverageRequest;
import software.amazon.awssdk.services.costexplorer.model.GetReservationUtilizationRequest;
import software.amazon.awssdk.services.costexplorer.model.GetSavingsPlansCoverageRequest;
import software.amazon.awssdk.services.costexplorer.model.GetSavingsPlansUtilizationRequest;
import software.amazon.awssdk.services.costexplorer.model.Granularity;
import software.amazon.awssdk.services.costexplorer.model.GroupDefinition;
import software.amazon.awssdk.services.costexplorer.model.GroupDefinitionType;

/**
 * Savings Plans and Reserved Instance coverage from Cost Explorer (endpoint ce.us-east-1, USD 0.01
 * per request and per page) for the report window's days:
 *
 * <ol>
 *   <li>GetSavingsPlansCoverage grouped by INSTANCE_FAMILY and REGION: the share of each family's
 *       EC2 On-Demand-equivalent spend the plans covered (SpendCoveredBySavingsPlans / TotalCost);
 *   <li>GetSavingsPlansUtilization: what a plan dollar buys (UsedCommitment /
 *       OnDemandCostEquivalent);
 *   <li>GetReservationCoverage grouped by INSTANCE_TYPE and REGION: the share of each type's
 *       running hours reservations covered (ReservedHours / TotalRunningHours);
 *   <li>GetReservationUtilization: what reservations cost per On-Demand dollar of the hours they
 *       covered (TotalAmortizedFee / OnDemandCostOfRIHoursUsed; unused reservation hours make it
 *       dearer, as they should).
 * </ol>
 *
 * Cost Explorer data is daily and lags by up to a day: a window's last day may be partial.
 */
public final class CostExplorerCommitmentAdapter implements CommitmentPort {
  static final String EC2 = "Amazon Elastic Compute Cloud - Compute";
  private final CostExplorerClient ce;

  public CostExplorerCommitmentAdapter(CostExplorerClient ce) {
    this.ce = ce;
  }

  @Override
  public Commitments read(ReportWindow w) {
    LocalDate start = w.start().atZone(ZoneOffset.UTC).toLocalDate();
    LocalDate end = w.end().atZone(ZoneOffset.UTC).toLocalDate().plusDays(1);
    var period = DateInterval.builder().start(start.toString()).end(end.toString()).build();
    var ec2 =
        Expression.builder()
            .dimensions(DimensionValues.builder().key(Dimension.SERVICE).values(EC2).build())
            .build();
    var notes = new ArrayList<String>();

    // Savings Plans coverage per family and region
    var spCovered = new HashMap<String, double[]>();
    String token = null;
    int pages = 0;
    do {
      var resp =
          ce.getSavingsPlansCoverage(
              GetSavingsPlansCoverageRequest.builder()
                  .timePeriod(period)
                  .granularity(Granularity.DAILY)
                  .groupBy(group("INSTANCE_FAMILY"), group("REGION"))
                  .filter(ec2)
                  .nextToken(token)
                  .build());
      pages++;
      for (var c : resp.savingsPlansCoverages()) {
        String family = attr(c.attributes(), "instancefamily", "instancetypefamily");
        String region = attr(c.attributes(), "region");
        if (family == null || region == null || c.coverage() == null) {
          continue;
        }
        var acc = spCovered.computeIfAbsent(region + "/" + family, k -> new double[2]);
        acc[0] += num(c.coverage().spendCoveredBySavingsPlans());
        acc[1] += num(c.coverage().totalCost());
      }
      token = resp.nextToken();
    } while (token != null && !token.isEmpty());

    var spUtil =
        ce.getSavingsPlansUtilization(
            GetSavingsPlansUtilizationRequest.builder().timePeriod(period).build());
    double spRatio = 1;
    if (spUtil.total() != null
        && spUtil.total().savings() != null
        && spUtil.total().utilization() != null) {
      double used = num(spUtil.total().utilization().usedCommitment());
      double odEq = num(spUtil.total().savings().onDemandCostEquivalent());
      if (odEq > 0) {
        spRatio = used / odEq;
      }
    }

    // Reserved Instance coverage per type and region
    var riHours = new HashMap<String, double[]>();
    token = null;
    do {
      var resp =
          ce.getReservationCoverage(
              GetReservationCoverageRequest.builder()
                  .timePeriod(period)
                  .granularity(Granularity.DAILY)
                  .groupBy(group("INSTANCE_TYPE"), group("REGION"))
                  .filter(ec2)
                  .nextPageToken(token)
                  .build());
      pages++;
      for (var t : resp.coveragesByTime()) {
        for (var g : t.groups()) {
          String type = attr(g.attributes(), "instancetype");
          String region = attr(g.attributes(), "region");
          if (type == null
              || region == null
              || g.coverage() == null
              || g.coverage().coverageHours() == null) {
            continue;
          }
          var acc = riHours.computeIfAbsent(region + "/" + type, k -> new double[2]);
          acc[0] += num(g.coverage().coverageHours().reservedHours());
          acc[1] += num(g.coverage().coverageHours().totalRunningHours());
        }
      }
      token = resp.nextPageToken();
    } while (token != null && !token.isEmpty());

    var riUtil =
        ce.getReservationUtilization(
            GetReservationUtilizationRequest.builder().timePeriod(period).filter(ec2).build());
    double riRatio = 1;
    if (riUtil.total() != null) {
      double fee = num(riUtil.total().totalAmortizedFee());
      double od = num(riUtil.total().onDemandCostOfRIHoursUsed());
      if (od > 0) {
        riRatio = fee / od;
      }
    }

    var sp = new HashMap<String, Commitments.Coverage>();
    spCovered.forEach(
        (k, v) -> {
          if (v[1] > 0 && v[0] > 0) {
            sp.put(
                k,
                new Commitments.Coverage(
                    Math.min(1, v[0] / v[1]),
                    String.format(
                        Locale.ROOT,
                        "%s: USD %.2f of USD %.2f On-Demand-equivalent spend",
                        k,
                        v[0],
                        v[1])));
          }
        });
    var ri = new HashMap<String, Commitments.Coverage>();
    riHours.forEach(
        (k, v) -> {
          if (v[1] > 0 && v[0] > 0) {
            ri.put(
                k,
                new Commitments.Coverage(
                    Math.min(1, v[0] / v[1]),
                    String.format(
                        Locale.ROOT, "%s: %.1f of %.1f running hours reserved", k, v[0], v[1])));
          }
        });
    notes.add(
        String.format(
            Locale.ROOT,
            "Cost Explorer %s..%s: %d families with Savings Plans coverage (USD %.3f per"
                + " On-Demand dollar), %d types with Reserved Instance coverage (USD %.3f per"
                + " On-Demand dollar); %d requests",
            start,
            end,
            sp.size(),
            spRatio,
            ri.size(),
            riRatio,
            pages + 2));
    return new Commitments(
        Commitments.COST_EXPLORER, sp, spRatio, ri, riRatio, Map.of(), List.copyOf(notes));
  }

  private static GroupDefinition group(String key) {
    return GroupDefinition.builder().type(GroupDefinitionType.DIMENSION).key(key).build();
  }

  /** An attribute by any of its spellings (INSTANCE_FAMILY, instanceFamily, region, REGION). */
  private static String attr(Map<String, String> attrs, String... names) {
    for (var e : attrs.entrySet()) {
      String k = e.getKey().replace("_", "").toLowerCase(Locale.ROOT);
      for (String n : names) {
        if (k.equals(n)) {
          return e.getValue();
        }
      }
    }
    return null;
  }

  private static double num(String s) {
    if (s == null || s.isBlank()) {
      return 0;
    }
    try {
      return Double.parseDouble(s.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
