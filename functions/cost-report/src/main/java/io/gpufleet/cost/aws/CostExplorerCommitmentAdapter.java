package io.gpufleet.cost.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.AwsJson;
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
 * All through {@link AwsJson} (every page followed). Cost Explorer data is daily and lags by up to
 * a day: a window's last day may be partial.
 */
public final class CostExplorerCommitmentAdapter implements CommitmentPort {
  static final String EC2 = "Amazon Elastic Compute Cloud - Compute";
  private final AwsJson ce;

  /**
   * @param ce a Cost Explorer client ({@link AwsJson#COST_EXPLORER}); Cost Explorer answers from
   *     us-east-1 in the aws partition, whatever region the function runs in
   */
  public CostExplorerCommitmentAdapter(AwsJson ce) {
    if (!ce.service().equals(AwsJson.COST_EXPLORER)) {
      throw new IllegalArgumentException("not a Cost Explorer client: " + ce.service());
    }
    this.ce = ce;
  }

  @Override
  public Commitments read(ReportWindow w) {
    LocalDate start = w.start().atZone(ZoneOffset.UTC).toLocalDate();
    LocalDate end = w.end().atZone(ZoneOffset.UTC).toLocalDate().plusDays(1);
    var notes = new ArrayList<String>();
    int[] pages = {0};

    // Savings Plans coverage per family and region
    var spCovered = new HashMap<String, double[]>();
    ObjectNode spCoverage = period(start, end).put("Granularity", "DAILY");
    groupBy(spCoverage, "INSTANCE_FAMILY", "REGION");
    spCoverage.set("Filter", ec2());
    ce.paginate(
        "GetSavingsPlansCoverage",
        spCoverage,
        page -> {
          pages[0]++;
          for (JsonNode c : page.path("SavingsPlansCoverages")) {
            JsonNode attrs = c.path("Attributes");
            String family = attr(attrs, "instancefamily", "instancetypefamily");
            String region = attr(attrs, "region");
            JsonNode coverage = c.path("Coverage");
            if (family == null || region == null || !coverage.isObject()) {
              continue;
            }
            var acc = spCovered.computeIfAbsent(region + "/" + family, k -> new double[2]);
            acc[0] += num(coverage.path("SpendCoveredBySavingsPlans"));
            acc[1] += num(coverage.path("TotalCost"));
          }
        });

    JsonNode spTotal = ce.call("GetSavingsPlansUtilization", period(start, end)).path("Total");
    double spRatio = 1;
    if (spTotal.path("Savings").isObject() && spTotal.path("Utilization").isObject()) {
      double used = num(spTotal.path("Utilization").path("UsedCommitment"));
      double odEq = num(spTotal.path("Savings").path("OnDemandCostEquivalent"));
      if (odEq > 0) {
        spRatio = used / odEq;
      }
    }

    // Reserved Instance coverage per type and region
    var riHours = new HashMap<String, double[]>();
    ObjectNode riCoverage = period(start, end).put("Granularity", "DAILY");
    groupBy(riCoverage, "INSTANCE_TYPE", "REGION");
    riCoverage.set("Filter", ec2());
    ce.paginate(
        "GetReservationCoverage",
        riCoverage,
        "NextPageToken",
        AwsJson.DEFAULT_MAX_PAGES,
        page -> {
          pages[0]++;
          for (JsonNode t : page.path("CoveragesByTime")) {
            for (JsonNode g : t.path("Groups")) {
              String type = attr(g.path("Attributes"), "instancetype");
              String region = attr(g.path("Attributes"), "region");
              JsonNode hours = g.path("Coverage").path("CoverageHours");
              if (type == null || region == null || !hours.isObject()) {
                continue;
              }
              var acc = riHours.computeIfAbsent(region + "/" + type, k -> new double[2]);
              acc[0] += num(hours.path("ReservedHours"));
              acc[1] += num(hours.path("TotalRunningHours"));
            }
          }
        });

    ObjectNode riUtilisation = period(start, end);
    riUtilisation.set("Filter", ec2());
    JsonNode riTotal = ce.call("GetReservationUtilization", riUtilisation).path("Total");
    double riRatio = 1;
    if (riTotal.isObject()) {
      double fee = num(riTotal.path("TotalAmortizedFee"));
      double od = num(riTotal.path("OnDemandCostOfRIHoursUsed"));
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
            pages[0] + 2));
    return new Commitments(
        Commitments.COST_EXPLORER, sp, spRatio, ri, riRatio, Map.of(), List.copyOf(notes));
  }

  /** A request naming the window's days: {@code TimePeriod} {Start, End (exclusive)}. */
  private static ObjectNode period(LocalDate start, LocalDate end) {
    ObjectNode input = AwsJson.input();
    input.putObject("TimePeriod").put("Start", start.toString()).put("End", end.toString());
    return input;
  }

  private static void groupBy(ObjectNode input, String... dimensions) {
    var groups = input.putArray("GroupBy");
    for (String key : dimensions) {
      groups.addObject().put("Type", "DIMENSION").put("Key", key);
    }
  }

  /** EC2 compute only: {@code Dimensions} {Key SERVICE, Values [EC2]}. */
  private static ObjectNode ec2() {
    ObjectNode filter = AwsJson.input();
    filter.putObject("Dimensions").put("Key", "SERVICE").putArray("Values").add(EC2);
    return filter;
  }

  /** An attribute by any of its spellings (INSTANCE_FAMILY, instanceFamily, region, REGION). */
  private static String attr(JsonNode attrs, String... names) {
    for (var it = attrs.fields(); it.hasNext(); ) {
      var e = it.next();
      String k = e.getKey().replace("_", "").toLowerCase(Locale.ROOT);
      for (String n : names) {
        if (k.equals(n) && e.getValue().isTextual()) {
          return e.getValue().asText();
        }
      }
    }
    return null;
  }

  /** Cost Explorer's amounts are decimal strings; absent or unreadable is 0. */
  private static double num(JsonNode value) {
    String s = value.asText("");
    if (s.isBlank()) {
      return 0;
    }
    try {
      return Double.parseDouble(s.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
