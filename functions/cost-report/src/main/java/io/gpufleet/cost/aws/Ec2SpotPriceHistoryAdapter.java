package io.gpufleet.cost.aws;

import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.cost.SpotPriceHistoryPort;
import io.gpufleet.cost.model.SpotPricePoint;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** DescribeSpotPriceHistory for Linux/UNIX (both product descriptions), paged (EC2 Query). */
public final class Ec2SpotPriceHistoryAdapter implements SpotPriceHistoryPort {
  static final List<String> PRODUCTS = List.of("Linux/UNIX", "Linux/UNIX (Amazon VPC)");
  private final Ec2Query ec2;

  public Ec2SpotPriceHistoryAdapter(Ec2Query ec2) {
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
      ec2.paginate(
          Ec2Query.Params.of("DescribeSpotPriceHistory")
              .list("InstanceType", batch)
              .list("ProductDescription", PRODUCTS)
              .put("StartTime", start)
              .put("EndTime", end)
              .put("MaxResults", 1000),
          page ->
              page.items("spotPriceHistorySet")
                  .forEach(
                      p ->
                          out.add(
                              new SpotPricePoint(
                                  p.text("availabilityZone"),
                                  p.text("instanceType"),
                                  p.instant("timestamp"),
                                  new BigDecimal(p.text("spotPrice"))))));
    }
    return out;
  }
}
