package io.gpufleet.preflight;

import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.preflight.model.CapacityBlockOffer;
import io.gpufleet.preflight.model.SpotScores;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Port: the EC2 capacity signals of a region (EC2 API in production). */
public interface CapacityPort {

  /** Availability zones per offered type (types not offered in the region are absent). */
  Map<String, Set<String>> offerings(String region, Collection<String> instanceTypes);

  /** DescribeInstanceTypes; types the region does not have are absent (not an error). */
  Map<String, InstanceSpec> instanceTypes(String region, Collection<String> instanceTypes);

  /** The Spot price in effect at {@code at}, per type and availability zone (Linux/UNIX). */
  Map<String, Map<String, BigDecimal>> spotPrices(
      String region, Collection<String> instanceTypes, Instant at);

  /** Instances still available in active open On-Demand Capacity Reservations, per type. */
  Map<String, Integer> availableReservations(String region, Collection<String> instanceTypes);

  /**
   * Capacity Block for ML offerings for {@code count} (at most 64) instances of a P or Trainium
   * type, {@code durationHours} one EC2 takes ({@link CapacityBlocks#validDuration}).
   */
  List<CapacityBlockOffer> capacityBlocks(
      String region, String instanceType, int count, int durationHours);

  /**
   * GetSpotPlacementScores for {@code targetCapacity} instances of any of the types across the
   * regions (one call per 10 regions, AWS's limit). Never throws: a capped or refused call leaves
   * its regions {@link SpotScores#unknownIn unknown}.
   */
  SpotScores spotPlacementScores(
      Collection<String> regions, Collection<String> instanceTypes, int targetCapacity);
}
