package io.gpufleet.sim.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.pricing.StaticPrices;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A Pricing API GetProducts answer for {@link AwsStubServer} in the real shape: {@code PriceList}
 * is an array of JSON documents <em>encoded as strings</em>, the price at {@code
 * terms.OnDemand.<offer>.priceDimensions.<rate>.pricePerUnit.USD}. Register with {@code
 * stub.on(PricingStub.OPERATION, pricing::answer)}. The request must carry the On-Demand Linux
 * TERM_MATCH filters (a missing one is a 400, so a client that forgets it fails); with {@link
 * #withDecoys()} each answer also lists products that match loosely (a capacity reservation usage
 * type) ahead of the BoxUsage one, as the live API sometimes does.
 */
public final class PricingStub {
  public static final String OPERATION = "AWSPriceListService.GetProducts";
  static final java.util.List<String> REQUIRED_FILTERS =
      java.util.List.of(
          "regionCode",
          "instanceType",
          "operatingSystem",
          "tenancy",
          "preInstalledSw",
          "capacitystatus",
          "marketoption",
          "licenseModel",
          "locationType");

  private final Map<String, BigDecimal> prices = new ConcurrentHashMap<>();
  private volatile boolean decoys;
  private volatile int pageSize = 100;

  public PricingStub price(String region, String instanceType, String usdPerHour) {
    prices.put(region + "|" + instanceType, new BigDecimal(usdPerHour));
    return this;
  }

  /**
   * Answers for these types in this region with the us-east-1 list prices of the instance catalog
   * (what the real Pricing API would say, as far as the catalog's sourced prices know it).
   */
  public PricingStub listPrices(String region, String... instanceTypes) {
    for (String t : instanceTypes) {
      prices.put(region + "|" + t, StaticPrices.price(t).orElseThrow().usdPerHour());
    }
    return this;
  }

  /**
   * At most this many PriceList documents a page (and the request's MaxResults), the rest behind a
   * NextToken.
   */
  public PricingStub pageSize(int size) {
    this.pageSize = size;
    return this;
  }

  public PricingStub withDecoys() {
    this.decoys = true;
    return this;
  }

  /** A handler for {@link AwsStubServer#on(String, Function)}. */
  public AwsStubServer.Reply answer(AwsStubServer.Call call) {
    JsonNode req;
    try {
      req = Json.MAPPER.readTree(call.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!"AmazonEC2".equals(req.path("ServiceCode").asText())) {
      return error("InvalidParameterException", "ServiceCode must be AmazonEC2");
    }
    var filters = new HashMap<String, String>();
    for (JsonNode f : req.path("Filters")) {
      if (!"TERM_MATCH".equals(f.path("Type").asText())) {
        return error("InvalidParameterException", "filter type " + f.path("Type").asText());
      }
      filters.put(f.path("Field").asText(), f.path("Value").asText());
    }
    for (String name : REQUIRED_FILTERS) {
      if (!filters.containsKey(name)) {
        return error("InvalidParameterException", "stub expects a TERM_MATCH filter on " + name);
      }
    }
    String region = filters.get("regionCode");
    String type = filters.get("instanceType");
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("FormatVersion", "aws_v1");
    ArrayNode list = body.putArray("PriceList");
    BigDecimal price = prices.get(region + "|" + type);
    if (price != null) {
      if (decoys) {
        list.add(document(region, type, "Reservation:" + type, "Hrs", BigDecimal.ZERO, "DECOY1"));
      }
      list.add(
          document(region, type, usagePrefix(region) + "BoxUsage:" + type, "Hrs", price, "SKU1"));
      if (decoys) {
        list.add(
            document(
                region,
                type,
                usagePrefix(region) + "EBSOptimized:" + type,
                "Hrs",
                price,
                "DECOY2"));
      }
    }
    int from = req.hasNonNull("NextToken") ? Integer.parseInt(req.get("NextToken").asText()) : 0;
    int size = Math.min(pageSize, req.path("MaxResults").asInt(100));
    int to = Math.min(list.size(), from + size);
    ArrayNode page = Json.MAPPER.createArrayNode();
    for (int i = from; i < to; i++) {
      page.add(list.get(i));
    }
    body.set("PriceList", page);
    if (to < list.size()) {
      body.put("NextToken", Integer.toString(to));
    }
    return AwsStubServer.Reply.json(body.toString());
  }

  private static AwsStubServer.Reply error(String code, String message) {
    return new AwsStubServer.Reply(
        400,
        "application/x-amz-json-1.1",
        "{\"__type\":\"" + code + "\",\"message\":\"" + message + "\"}");
  }

  private static String usagePrefix(String region) {
    return switch (region) {
      case "us-east-1" -> "";
      case "us-east-2" -> "USE2-";
      case "us-west-2" -> "USW2-";
      case "eu-west-1" -> "EU-";
      default -> region.toUpperCase(java.util.Locale.ROOT) + "-";
    };
  }

  /** One PriceList entry, as the string the API puts in the array. */
  public static String document(
      String region, String type, String usageType, String unit, BigDecimal usd, String sku) {
    ObjectNode doc = Json.MAPPER.createObjectNode();
    ObjectNode product = doc.putObject("product");
    product.put("productFamily", "Compute Instance");
    product.put("sku", sku);
    ObjectNode a = product.putObject("attributes");
    a.put("servicecode", "AmazonEC2");
    a.put("regionCode", region);
    a.put("instanceType", type);
    a.put("usagetype", usageType);
    a.put("operation", "RunInstances");
    a.put("operatingSystem", "Linux");
    a.put("tenancy", "Shared");
    a.put("preInstalledSw", "NA");
    a.put("capacitystatus", "Used");
    a.put("marketoption", "OnDemand");
    a.put("licenseModel", "No License required");
    a.put("locationType", "AWS Region");
    doc.put("serviceCode", "AmazonEC2");
    ObjectNode offer = doc.putObject("terms").putObject("OnDemand").putObject(sku + ".JRTCKXETXF");
    offer.put("sku", sku);
    offer.put("offerTermCode", "JRTCKXETXF");
    offer.put("effectiveDate", "2026-11-01T00:00:00Z");
    offer.putObject("termAttributes");
    ObjectNode dim = offer.putObject("priceDimensions").putObject(sku + ".JRTCKXETXF.6YS6EN2CT7");
    dim.put("unit", unit);
    dim.put("beginRange", "0");
    dim.put("endRange", "Inf");
    dim.put("rateCode", sku + ".JRTCKXETXF.6YS6EN2CT7");
    dim.putArray("appliesTo");
    dim.put("description", usd + " per On Demand Linux " + type + " Instance Hour");
    // China regions are priced in CNY (from the cn-northwest-1 endpoint), all others in USD
    dim.putObject("pricePerUnit")
        .put(
            region.startsWith("cn-") ? "CNY" : "USD",
            usd.setScale(10, java.math.RoundingMode.UNNECESSARY).toPlainString());
    doc.put("version", "20261101000000");
    doc.put("publicationDate", "2026-11-01T00:00:00Z");
    return doc.toString();
  }
}
