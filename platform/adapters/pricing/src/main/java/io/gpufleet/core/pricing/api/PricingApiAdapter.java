package io.gpufleet.core.pricing.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.pricing.PriceListParser;
import io.gpufleet.core.pricing.PricingApiPort;
import io.gpufleet.core.pricing.PricingEndpoint;
import io.gpufleet.core.pricing.TokenBucket;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.regions.Region;

/**
 * The Pricing API adapter: GetProducts for service code AmazonEC2 with the TERM_MATCH filters that
 * narrow an On-Demand Linux price to one product, sent to the endpoint region of the priced
 * region's partition, every call (each page too) through the endpoint's token bucket. The call goes
 * through the JSON protocol client ({@link AwsJson#PRICING}), not the SDK's Pricing client.
 */
public final class PricingApiAdapter implements PricingApiPort {
  private static final Logger LOG = LoggerFactory.getLogger(PricingApiAdapter.class);

  private final AwsClients aws;
  private final Optional<String> endpointOverride;
  private final Map<String, AwsJson> clients = new ConcurrentHashMap<>();
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

  /** A TERM_MATCH filter of GetProducts: the product's attribute {@code field} is {@code value}. */
  public record TermMatch(String field, String value) {}

  /** The filters for one (region, instance type), as the reference lists them. */
  public static List<TermMatch> filters(String region, String instanceType) {
    return List.of(
        new TermMatch("regionCode", region),
        new TermMatch("instanceType", instanceType),
        new TermMatch("operatingSystem", "Linux"),
        new TermMatch("tenancy", "Shared"),
        new TermMatch("preInstalledSw", "NA"),
        new TermMatch("capacitystatus", "Used"),
        new TermMatch("marketoption", "OnDemand"),
        new TermMatch("licenseModel", "No License required"),
        new TermMatch("locationType", "AWS Region"));
  }

  /** The GetProducts input for one (region, instance type), without a page token. */
  static ObjectNode request(String region, String instanceType) {
    ObjectNode input =
        AwsJson.input()
            .put("ServiceCode", "AmazonEC2")
            .put("FormatVersion", "aws_v1")
            .put("MaxResults", 100);
    var filters = input.putArray("Filters");
    for (TermMatch f : filters(region, instanceType)) {
      filters.addObject().put("Type", "TERM_MATCH").put("Field", f.field()).put("Value", f.value());
    }
    return input;
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
    AwsJson client =
        clients.computeIfAbsent(
            endpoint, r -> AwsJson.from(aws.withRegion(Region.of(r)), AwsJson.PRICING));
    TokenBucket bucket =
        buckets.computeIfAbsent(endpoint, r -> TokenBucket.system(ratePerSecond, burst));
    String currency = PricingEndpoint.currencyFor(region);
    var priceList = new ArrayList<String>();
    // a token for the first page here, for each further page before it is asked for
    acquire(bucket);
    client.paginate(
        "GetProducts",
        request(region, instanceType),
        page -> {
          page.path("PriceList").forEach(p -> priceList.add(p.asText()));
          if (!page.path("NextToken").asText("").isEmpty()) {
            acquire(bucket);
          }
        });
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
