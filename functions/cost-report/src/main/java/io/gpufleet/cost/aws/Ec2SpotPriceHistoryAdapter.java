package io.gpufleet.cost.aws;

import io.gpufleet.cost.SpotPriceHistoryPort;
import io.gpufleet.cost.model.SpotPricePoint;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.services.ec2.Ec2Client;

/** DescribeSpotPriceHistory for Linux/UNIX (both product descriptions), paged. */
public final class Ec2SpotPriceHistoryAdapter implements SpotPriceHistoryPort {
  static final List<String> PRODUCTS = List.of("Linux/UNIX", "Linux/UNIX (Amazon VPC)");
  private final Ec2Client ec2;

  public Ec2SpotPriceHistoryAdapter(Ec2Client ec2) {
    this.ec2 = ec2;
  }

  @Override
  public List<SpotPricePoint> history(Set<String> instanceTypes, Instant start, Instant end) {
    var out = new ArrayList<SpotPricePoint>();
    if (instanceTypes.isEmpty()) {
      return out;
    }
    var types = new ArrayList<>(instanceTypes);
    for (int from = 0; from < types.size(); from += 50) {
      var batch = types.subList(from, Math.min(types.size(), from + 50));
      ec2.describeSpotPriceHistoryPaginator(
              r ->
                  r.instanceTypesWithStrings(batch)
                      .productDescriptions(PRODUCTS)
                      .startTime(start)
                      .endTime(end)
                      .maxResults(1000))
          .spotPriceHistory()
          .forEach(
              p ->
                  out.add(
                      new SpotPricePoint(
                          p.availabilityZone(),
                          p.instanceTypeAsString(),
                          p.timestamp(),
                          new BigDecimal(p.spotPrice()))));
    }
    return out;
  }
}
