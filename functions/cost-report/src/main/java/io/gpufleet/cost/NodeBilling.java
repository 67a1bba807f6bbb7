package io.gpufleet.cost;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Pure: what one node cost over its span in the window, as AWS bills it.
 *
 * <ul>
 *   <li>Spot: the time-weighted Spot price of its zone (FOCUS {@code PricingCategory} Dynamic).
 *   <li>On-Demand, and a node in an On-Demand Capacity Reservation: AWS bills reservation usage at
 *       the On-Demand rate, and Savings Plans and regional Reserved Instances apply to it as to any
 *       On-Demand usage. Both take the commitments' rate where one covers them, otherwise the list
 *       rate (Standard either way: FOCUS's Committed needs the CommitmentDiscountId of the
 *       commitment that covered the charge, which Cost Explorer's coverage cannot name).
 *   <li>Capacity Block: paid upfront, its price is not in the public price list; shown at the
 *       On-Demand equivalent (Other).
 * </ul>
 */
final class NodeBilling {
  static final String STANDARD = "Standard";
  static final String DYNAMIC = "Dynamic";
  static final String OTHER = "Other";

  private static final MathContext MC = MathContext.DECIMAL64;

  /**
   * The node's price: the On-Demand rate it was looked up at (in the report's currency), its list
   * and effective cost over the span, where the effective cost came from and why, and its FOCUS
   * PricingCategory.
   */
  record Priced(
      Optional<HourlyPrice> onDemand,
      BigDecimal list,
      BigDecimal effective,
      String source,
      String detail,
      String category) {}

  private NodeBilling() {}

  /** Prices {@code n} over {@code span} ({@code hours} long); notes what a reader should know. */
  static Priced price(
      NodeRecord n,
      Instant[] span,
      BigDecimal hours,
      String currency,
      ReportBuilder.Inputs in,
      List<String> notes) {
    var priced = in.onDemand().hourly(n.region(), n.instanceType());
    if (priced.isPresent() && !priced.get().currency().equals(currency)) {
      // never add a USD price into a CNY report (or the reverse) as if it were the same money
      notes.add(
          "On-Demand price in "
              + priced.get().currency()
              + " ignored: this report is in "
              + currency);
    }
    Optional<HourlyPrice> od = priced.filter(p -> p.currency().equals(currency));
    BigDecimal list = od.map(p -> p.perHour().multiply(hours, MC)).orElse(null);
    BigDecimal effective = list;
    String source = od.map(p -> label(p.source())).orElse("unknown");
    String detail = null;
    String category = category(n.lifecycle());
    if (n.lifecycle() == Lifecycle.SPOT) {
      var spot = in.spot().cost(n.zone(), n.instanceType(), span[0], span[1]);
      if (spot.isPresent()) {
        effective = spot.get();
        source = label(PriceSource.SPOT_HISTORY);
      } else {
        notes.add("no Spot price history for " + n.zone() + ": On-Demand price used");
      }
      if (list == null && effective != null) {
        list = effective;
        notes.add("no On-Demand price: list cost shown at the Spot price");
      }
    } else if (billedOnDemand(n.lifecycle())) {
      if (n.lifecycle() == Lifecycle.RESERVED) {
        notes.add(
            "in an On-Demand Capacity Reservation: billed at the On-Demand rate, Savings Plans"
                + " and Reserved Instances applied as to other On-Demand usage");
      }
      Optional<Commitments.Effective> c =
          in.commitments()
              .effective(n.region(), n.instanceType(), od.map(HourlyPrice::perHour).orElse(null));
      if (c.isPresent()) {
        effective = c.get().perHour().multiply(hours, MC);
        if (list == null) {
          list = effective;
        }
        source = c.get().source();
        detail = c.get().detail();
      }
    } else if (n.lifecycle() == Lifecycle.CAPACITY_BLOCK) {
      notes.add("Capacity Block prices are not in the public price list: On-Demand equivalent");
    }
    if (effective == null) {
      effective = BigDecimal.ZERO;
      list = BigDecimal.ZERO;
      notes.add("no price known for " + n.instanceType() + " in " + n.region());
    }
    return new Priced(od, list, effective, source, detail, category);
  }

  /** Usage AWS bills at the On-Demand rate, which commitments discount: On-Demand and ODCR. */
  static boolean billedOnDemand(Lifecycle lifecycle) {
    return lifecycle == Lifecycle.ON_DEMAND || lifecycle == Lifecycle.RESERVED;
  }

  /** FOCUS PricingCategory: Standard (On-Demand rate), Dynamic (Spot), Other (Capacity Blocks). */
  static String category(Lifecycle lifecycle) {
    return switch (lifecycle) {
      case SPOT -> DYNAMIC;
      case CAPACITY_BLOCK -> OTHER;
      case ON_DEMAND, RESERVED -> STANDARD;
    };
  }

  static String label(PriceSource s) {
    return ReportBuilder.label(s);
  }
}
