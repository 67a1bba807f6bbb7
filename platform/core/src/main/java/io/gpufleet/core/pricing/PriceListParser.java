package io.gpufleet.core.pricing;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the On-Demand hourly price out of a GetProducts {@code PriceList}: each entry is a JSON
 * document <em>as a string</em>; the price sits at {@code
 * terms.OnDemand.<offer>.priceDimensions.<rate>.pricePerUnit.<currency>}. When several products
 * match the filters, the one whose usage type contains {@code BoxUsage} with unit {@code Hrs} wins
 * and the others are returned as {@code ignored} so the caller can log them.
 */
public final class PriceListParser {
  private PriceListParser() {}

  /** One product's price. */
  public record ProductPrice(String sku, String usageType, String unit, BigDecimal perUnit) {
    boolean isBoxUsageHours() {
      return usageType.contains("BoxUsage") && "Hrs".equals(unit);
    }
  }

  /** The chosen price (if any) and the products that were passed over. */
  public record Choice(Optional<ProductPrice> chosen, List<ProductPrice> ignored) {}

  public static Choice choose(List<String> priceList, String currency) {
    var products = new ArrayList<ProductPrice>();
    for (String doc : priceList) {
      products.addAll(parse(doc, currency));
    }
    ProductPrice chosen = null;
    var ignored = new ArrayList<ProductPrice>();
    for (ProductPrice p : products) {
      if (chosen == null && p.isBoxUsageHours()) {
        chosen = p;
      } else {
        ignored.add(p);
      }
    }
    return new Choice(Optional.ofNullable(chosen), ignored);
  }

  /** Every On-Demand price dimension of one PriceList document. */
  static List<ProductPrice> parse(String document, String currency) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(document);
    } catch (IOException e) {
      throw new UncheckedIOException("PriceList entry is not JSON", e);
    }
    String sku = root.path("product").path("sku").asText("");
    String usageType = root.path("product").path("attributes").path("usagetype").asText("");
    var out = new ArrayList<ProductPrice>();
    for (JsonNode offer : iterable(root.path("terms").path("OnDemand"))) {
      for (JsonNode dim : iterable(offer.path("priceDimensions"))) {
        JsonNode price = dim.path("pricePerUnit").path(currency);
        if (price.isMissingNode() || price.asText().isBlank()) {
          continue;
        }
        BigDecimal value;
        try {
          value = new BigDecimal(price.asText()).stripTrailingZeros();
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "PriceList sku " + sku + ": price '" + price.asText() + "' is not a decimal", e);
        }
        out.add(new ProductPrice(sku, usageType, dim.path("unit").asText(""), value));
      }
    }
    return out;
  }

  private static Iterable<JsonNode> iterable(JsonNode objectNode) {
    var values = new ArrayList<JsonNode>();
    objectNode.fields().forEachRemaining(e -> values.add(e.getValue()));
    return values;
  }
}
