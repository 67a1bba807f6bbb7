package io.gpufleet.cost;

import io.gpufleet.cost.model.SpotPricePoint;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Port: EC2 DescribeSpotPriceHistory (Linux/UNIX) of the cluster's region. */
public interface SpotPriceHistoryPort {
  /** The price changes inside [start, end) plus the last change before start, every zone. */
  List<SpotPricePoint> history(Set<String> instanceTypes, Instant start, Instant end);
}
