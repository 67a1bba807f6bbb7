package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.preflight.model.CapacityBlockOffer;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.RegionFacts;
import java.util.Comparator;
import java.util.List;

/**
 * Pure, one per region verdict: what open On-Demand Capacity Reservations and Capacity Blocks for
 * ML can do for the plan's On-Demand entries. P and Trainium entries beyond their reservations are
 * warned about (their On-Demand capacity is often short), with the Capacity Blocks EC2 offers held
 * to its caps: {@value CapacityBlocks#MAX_PER_BLOCK} instances per block, {@value
 * CapacityBlocks#MAX_PER_ACCOUNT} across the account's blocks (counted over the plan's entries).
 */
final class CapacityChecks {
  /** Instances the plan's entries so far would need from Capacity Blocks in this region. */
  private int fromBlocks;

  void check(
      PlanEntry entry, String type, RegionFacts facts, List<String> warnings, List<String> notes) {
    if (entry.capacityType() != CapacityType.ON_DEMAND) {
      return;
    }
    int reserved = facts.availableReservations().getOrDefault(type, 0);
    if (reserved >= entry.count()) {
      notes.add(
          "open On-Demand Capacity Reservations have "
              + reserved
              + " × "
              + type
              + " available: '"
              + entry.name()
              + "' is covered");
      return;
    }
    if (!CapacityBlocks.offered(type)) {
      if (reserved > 0) {
        notes.add(
            "open On-Demand Capacity Reservations cover "
                + reserved
                + " of "
                + entry.count()
                + " × "
                + type);
      }
      return;
    }
    int needed = entry.count() - reserved;
    int accountRoomBefore = Math.max(0, CapacityBlocks.MAX_PER_ACCOUNT - fromBlocks);
    fromBlocks += needed;
    List<CapacityBlockOffer> blocks = facts.capacityBlocks().getOrDefault(type, List.of());
    var sb = new StringBuilder();
    sb.append(type)
        .append(" On-Demand is often out of capacity: Capacity Reservations cover ")
        .append(reserved)
        .append(" of ")
        .append(entry.count());
    int blocksNeeded = CapacityBlocks.blocksFor(needed);
    if (blocksNeeded > 1) {
      sb.append("; the other ")
          .append(needed)
          .append(" need ")
          .append(blocksNeeded)
          .append(" Capacity Blocks (at most ")
          .append(CapacityBlocks.MAX_PER_BLOCK)
          .append(" instances each)");
    }
    if (needed > accountRoomBefore) {
      sb.append("; Capacity Blocks can hold at most ")
          .append(CapacityBlocks.MAX_PER_ACCOUNT)
          .append(" instances across the account, ")
          .append(needed - accountRoomBefore)
          .append(" of these cannot be in one");
    }
    if (blocks.isEmpty()) {
      sb.append("; no Capacity Block offering found");
    } else {
      var first =
          blocks.stream().min(Comparator.comparing(CapacityBlockOffer::start)).orElseThrow();
      sb.append("; ")
          .append(blocks.size())
          .append(" Capacity Block offering")
          .append(blocks.size() == 1 ? "" : "s")
          .append(", earliest ")
          .append(first.instanceCount())
          .append(" × ")
          .append(type)
          .append(" in ")
          .append(first.availabilityZone())
          .append(" from ")
          .append(first.start())
          .append(" for ")
          .append(first.durationHours())
          .append(" h");
      if (first.upfrontFee() != null) {
        sb.append(" (")
            .append(first.upfrontFee().toPlainString())
            .append(' ')
            .append(first.currency() == null ? "USD" : first.currency())
            .append(" upfront)");
      }
    }
    warnings.add(sb.toString());
  }
}
