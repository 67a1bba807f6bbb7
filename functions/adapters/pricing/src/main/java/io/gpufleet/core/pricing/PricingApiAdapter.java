package io.gpufleet.core.pricing;

import io.gpufleet.core.aws.AwsClients;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.pricing.PricingClient;
import software.amazon.awssdk.services.pricing.model.Filter;
import software.amazon.awssdk.services.pricing.model.FilterType;
import software.amazon.awssdk.services.pricing.model.GetProductsRequest;

/**
 * The Pricing API adapter: GetProducts for service code AmazonEC2 with the TERM_MATCH filters that
 * narrow an On-Demand Linux price to one product, sent to the endpoint region of the priced
 * region's partition, every call through the endpoint's token bucket.
 */
public final class PricingApiAdapter implements PricingApiPort {
  private static final Logger LOG = LoggerFactory.getLogger(PricingApiAdapter.class);

  private final AwsClients aws;
  private final Optional<String> endpointOverride;
  private final Map<String, PricingClient> clients = new ConcurrentHashMap<>();
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();
  private final double ratePerSecond;
  private final int burst;

  /**
   * @param endpointOverride a fixed endpoint region (e.g. ap-south-1) instead of the partition's
   *     default
   */
  public PricingApiAdapter(
      AwsClients aws, Optional<String> endpointOverride, double ratePerSecond, int burst) {
    this.aws = aws;
    this.endpointOverride = endpointOverride;
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
  }

  /** The filters for one (region, instance type), as the reference lists them. */
  public static List<Filter> filters(String region, String instanceType) {
    var f = new ArrayList<Filter>();
    for (var e :
        List.of(
            Map.entry("regionCode", region),
            Map.entry("instanceType", instanceType),
            Map.entry("operatingSystem", "Linux"),
            Map.entry("tenancy", "Shared"),
            Map.entry("preInstalledSw", "NA"),
            Map.entry("capacitystatus", "Used"),
            Map.entry("marketoption", "OnDemand"),
            Map.entry("licenseModel", "No License required"),
            Map.entry("locationType", "AWS Region"))) {
      f.add(
          Filter.builder()
              .type(FilterType.TERM_MATCH)
              .field(e.getKey())
              .value(e.getValue())
              .build());
    }
    return f;
  }

  /**
   * The endpoint region for a priced region: the override when it is in the same partition.
   *
   * @throws IllegalArgumentException when the call would cross partitions or the partition has no
   *     Pricing endpoint (GovCloud)
   */
  public String endpointRegion(String pricedRegion) {
    String endpoint =
        endpointOverride.orElseGet(() -> PricingEndpoint.endpointRegionFor(pricedRegion));
    if (!PricingEndpoint.partitionOf(endpoint).equals(PricingEndpoint.partitionOf(pricedRegion))) {
      throw new IllegalArgumentException(
          "refusing a cross-partition Pricing call: "
              + pricedRegion
              + " is in "
              + PricingEndpoint.partitionOf(pricedRegion)
              + ", endpoint "
              + endpoint
              + " in "
              + PricingEndpoint.partitionOf(endpoint));
    }
    return endpoint;
  }

  @Override
  public Optional<BigDecimal> hourly(String region, String instanceType) {
    String endpoint = endpointRegion(region);
    PricingClient client =
        clients.computeIfAbsent(
            endpoint, r -> aws.withRegion(Region.of(r)).build(PricingClient.builder()));
    TokenBucket bucket =
        buckets.computeIfAbsent(endpoint, r -> TokenBucket.system(ratePerSecond, burst));
    String currency = PricingEndpoint.currencyFor(region);
    var priceList = new ArrayList<String>();
    String next = null;
    do {
      acquire(bucket);
      var request =
          GetProductsRequest.builder()
              .serviceCode("AmazonEC2")
              .formatVersion("aws_v1")
              .filters(filters(region, instanceType))
              .maxResults(100)
              .nextToken(next)
              .build();
      var response = client.getProducts(request);
      priceList.addAll(response.priceList());
      next = response.nextToken();
    } while (next != null && !next.isEmpty());
    var choice = PriceListParser.choose(priceList, currency);
    if (!choice.ignored().isEmpty()) {
      LOG.info(
          "pricing {} {}: {} products matched; using {}; ignored {}",
          region,
          instanceType,
          choice.ignored().size() + (choice.chosen().isPresent() ? 1 : 0),
          choice.chosen().map(PriceListParser.ProductPrice::usageType).orElse("none"),
          choice.ignored());
    }
    return choice.chosen().map(PriceListParser.ProductPrice::perUnit);
  }

  private static void acquire(TokenBucket bucket) {
    try {
      bucket.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a Pricing API token", e);
    }
  }
}
