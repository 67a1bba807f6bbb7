package io.gpufleet.cost.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.AwsCallException;
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
import java.util.function.Supplier;

/**
 * Savings Plans and Reserved Instance coverage from Cost Explorer (endpoint ce.us-east-1, USD 0.01
 * per request and per page) for the report window's days:
 *
 * <ol>
 *   <li>GetSavingsPlansCoverage grouped by INSTANCE_FAMILY and REGION: the share of each family's
 *       EC2 On-Demand-equivalent spend the plans covered (SpendCoveredBySavingsPlans / TotalCost);
 *   <li>GetSavingsPlansUtilization of Compute and EC2 Instance plans only ({@code
 *       SAVINGS_PLANS_TYPE}; without it SageMaker plans blend into the EC2 rate): what a plan
 *       dollar buys (UsedCommitment / OnDemandCostEquivalent);
 *   <li>GetReservationCoverage grouped by INSTANCE_TYPE and REGION: the share of each type's
 *       running hours reservations covered (ReservedHours / TotalRunningHours);
 *   <li>GetReservationUtilization: what reservations cost per On-Demand dollar of the hours they
 *       covered (TotalAmortizedFee / OnDemandCostOfRIHoursUsed; unused reservation hours make it
 *       dearer, as they should).
 * </ol>
 *
 * All through {@link AwsJson} (every page followed). The two kinds fail on their own: an account
 * without plans answers {@code DataUnavailableException}, which leaves the Reserved Instance reads
 * standing (and the reverse); a kind whose coverage or rate cannot be read is not applied, and the
 * note says so. Only when both fail does the read fail. Cost Explorer data is daily and lags by up
 * to a day: a window's last day may be partial.
 */
public final class CostExplorerCommitmentAdapter implements CommitmentPort {
  static final String EC2 = "Amazon Elastic Compute Cloud - Compute";

  /**
   * The {@code SAVINGS_PLANS_TYPE} values of the plans that can cover EC2 instances (Cost
   * Explorer's dimension values; SageMaker and other plans would blend into the EC2 rate).
   */
  static final List<String> EC2_PLAN_TYPES =
      List.of("ComputeSavingsPlans", "EC2InstanceSavingsPlans");

  /** What Cost Explorer answers for an account without plans or reservations in the window. */
  static final String DATA_UNAVAILABLE = "DataUnavailableException";

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
    var failures = new ArrayList<AwsCallException>();
    int[] requests = {0};

    // Savings Plans: coverage per family and region, then what a plan dollar buys
    var sp = new HashMap<String, Commitments.Coverage>();
    double spRatio = 1;
    var spCovered =
        read(
            "GetSavingsPlansCoverage",
            "Savings Plans",
            notes,
            failures,
            () -> savingsPlansCoverage(start, end, requests));
    Double spRead =
        spCovered == null
            ? null
            : read(
                "GetSavingsPlansUtilization",
                "Savings Plans",
                notes,
                failures,
                () -> savingsPlansRatio(start, end, requests));
    if (spRead != null) {
      spRatio = spRead;
      coverage(spCovered, sp, "USD %.2f of USD %.2f On-Demand-equivalent spend");
    }

    // Reserved Instances: coverage per type and region, then their cost per On-Demand dollar
    var ri = new HashMap<String, Commitments.Coverage>();
    double riRatio = 1;
    var riHours =
        read(
            "GetReservationCoverage",
            "Reserved Instances",
            notes,
            failures,
            () -> reservationCoverage(start, end, requests));
    Double riRead =
        riHours == null
            ? null
            : read(
                "GetReservationUtilization",
                "Reserved Instances",
                notes,
                failures,
                () -> reservationRatio(start, end, requests));
    if (riRead != null) {
      riRatio = riRead;
      coverage(riHours, ri, "%.1f of %.1f running hours reserved");
    }
    if (failures.size() == 2) {
      // neither half could be read (each fails at most once: its second read is then skipped):
      // the caller names the failure and prices at list
      throw failures.get(0);
    }
    var fallbacks = List.copyOf(notes);
    notes.add(
        0,
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
            requests[0]));
    return new Commitments(
        Commitments.COST_EXPLORER,
        sp,
        spRatio,
        ri,
        riRatio,
        Map.of(),
        List.copyOf(notes),
        fallbacks);
  }

  /**
   * One read, failing on its own: an account without plans or reservations answers {@code
   * DataUnavailableException} (nothing to apply); any other error leaves that commitment kind out.
   * Either way the fallback is named in {@code notes}; null when the read gave nothing to apply.
   */
  private static <T> T read(
      String operation,
      String kind,
      List<String> notes,
      List<AwsCallException> failures,
      Supplier<T> call) {
    try {
      return call.get();
    } catch (AwsCallException e) {
      if (DATA_UNAVAILABLE.equals(e.code())) {
        notes.add(
            kind
                + ": Cost Explorer has no data ("
                + operation
                + " answered "
                + DATA_UNAVAILABLE
                + "): none applied");
      } else {
        failures.add(e);
        notes.add(
            kind
                + " not applied: "
                + operation
                + " failed ("
                + e.code()
                + (e.awsMessage() == null ? "" : ": " + e.awsMessage())
                + "); those nodes at list price");
      }
      return null;
    }
  }

  private Map<String, double[]> savingsPlansCoverage(
      LocalDate start, LocalDate end, int[] requests) {
    var covered = new HashMap<String, double[]>();
    ObjectNode input = period(start, end).put("Granularity", "DAILY");
    groupBy(input, "INSTANCE_FAMILY", "REGION");
    // no SAVINGS_PLANS_TYPE filter here (the operation takes none); EC2 usage is covered only by
    // Compute and EC2 Instance plans anyway
    input.set("Filter", dimension("SERVICE", EC2));
    ce.paginate(
        "GetSavingsPlansCoverage",
        input,
        page -> {
          requests[0]++;
          for (JsonNode c : page.path("SavingsPlansCoverages")) {
            JsonNode attrs = c.path("Attributes");
            String family = attr(attrs, "instancefamily", "instancetypefamily");
            String region = attr(attrs, "region");
            JsonNode coverage = c.path("Coverage");
            if (family == null || region == null || !coverage.isObject()) {
              continue;
            }
            var acc = covered.computeIfAbsent(region + "/" + family, k -> new double[2]);
            acc[0] += num(coverage.path("SpendCoveredBySavingsPlans"));
            acc[1] += num(coverage.path("TotalCost"));
          }
        });
    return covered;
  }

  /** UsedCommitment / OnDemandCostEquivalent of the plans that can cover EC2 only. */
  private double savingsPlansRatio(LocalDate start, LocalDate end, int[] requests) {
    ObjectNode input = period(start, end);
    input.set("Filter", dimension("SAVINGS_PLANS_TYPE", EC2_PLAN_TYPES.toArray(String[]::new)));
    requests[0]++;
    JsonNode total = ce.call("GetSavingsPlansUtilization", input).path("Total");
    if (total.path("Savings").isObject() && total.path("Utilization").isObject()) {
      double used = num(total.path("Utilization").path("UsedCommitment"));
      double odEq = num(total.path("Savings").path("OnDemandCostEquivalent"));
      if (odEq > 0) {
        return used / odEq;
      }
    }
    return 1;
  }

  private Map<String, double[]> reservationCoverage(
      LocalDate start, LocalDate end, int[] requests) {
    var hours = new HashMap<String, double[]>();
    ObjectNode input = period(start, end).put("Granularity", "DAILY");
    groupBy(input, "INSTANCE_TYPE", "REGION");
    input.set("Filter", dimension("SERVICE", EC2));
    ce.paginate(
        "GetReservationCoverage",
        input,
        "NextPageToken",
        AwsJson.DEFAULT_MAX_PAGES,
        page -> {
          requests[0]++;
          for (JsonNode t : page.path("CoveragesByTime")) {
            for (JsonNode g : t.path("Groups")) {
              String type = attr(g.path("Attributes"), "instancetype");
              String region = attr(g.path("Attributes"), "region");
              JsonNode h = g.path("Coverage").path("CoverageHours");
              if (type == null || region == null || !h.isObject()) {
                continue;
              }
              var acc = hours.computeIfAbsent(region + "/" + type, k -> new double[2]);
              acc[0] += num(h.path("ReservedHours"));
              acc[1] += num(h.path("TotalRunningHours"));
            }
          }
        });
    return hours;
  }

  /** TotalAmortizedFee / OnDemandCostOfRIHoursUsed of EC2 reservations. */
  private double reservationRatio(LocalDate start, LocalDate end, int[] requests) {
    ObjectNode input = period(start, end);
    input.set("Filter", dimension("SERVICE", EC2));
    requests[0]++;
    JsonNode total = ce.call("GetReservationUtilization", input).path("Total");
    if (total.isObject()) {
      double fee = num(total.path("TotalAmortizedFee"));
      double od = num(total.path("OnDemandCostOfRIHoursUsed"));
      if (od > 0) {
        return fee / od;
      }
    }
    return 1;
  }

  private static void coverage(
      Map<String, double[]> sums, Map<String, Commitments.Coverage> out, String detail) {
    sums.forEach(
        (k, v) -> {
          if (v[1] > 0 && v[0] > 0) {
            out.put(
                k,
                new Commitments.Coverage(
                    Math.min(1, v[0] / v[1]),
                    k + ": " + String.format(Locale.ROOT, detail, v[0], v[1])));
          }
        });
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

  /** {@code Dimensions} {Key, Values}. */
  private static ObjectNode dimension(String key, String... values) {
    ObjectNode filter = AwsJson.input();
    var list = filter.putObject("Dimensions").put("Key", key).putArray("Values");
    for (String v : values) {
      list.add(v);
    }
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
