package io.gpufleet.core.pricing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class PriceListParserTest {

  static String doc(String usageType, String unit, String usd) {
    return """
        {"product":{"sku":"S1","attributes":{"usagetype":"%s","instanceType":"p5.48xlarge"}},
         "terms":{"OnDemand":{"S1.JRTCKXETXF":{"priceDimensions":{"S1.JRTCKXETXF.6YS6EN2CT7":
           {"unit":"%s","pricePerUnit":{"USD":"%s"}}}}}}}
        """
        .formatted(usageType, unit, usd);
  }

  @Test
  void shouldReadThePriceOutOfAJsonString() {
    var choice =
        PriceListParser.choose(List.of(doc("BoxUsage:p5.48xlarge", "Hrs", "55.0400000000")), "USD");

    assertThat(choice.chosen()).isPresent();
    assertThat(choice.chosen().get().perUnit()).isEqualByComparingTo("55.04");
    assertThat(choice.ignored()).isEmpty();
  }

  @Test
  void shouldPreferBoxUsageHoursAndReturnTheOthersAsIgnored() {
    var choice =
        PriceListParser.choose(
            List.of(
                doc("Reservation:p5.48xlarge", "Hrs", "0.0000000000"),
                doc("USE2-BoxUsage:p5.48xlarge", "Hrs", "55.04"),
                doc("USE2-BoxUsage:p5.48xlarge", "Quantity", "1.00")),
            "USD");

    assertThat(choice.chosen().get().usageType()).isEqualTo("USE2-BoxUsage:p5.48xlarge");
    assertThat(choice.chosen().get().perUnit()).isEqualByComparingTo(new BigDecimal("55.04"));
    assertThat(choice.ignored()).hasSize(2);
  }

  @Test
  void shouldChooseNothingWithoutABoxUsageProduct() {
    var choice = PriceListParser.choose(List.of(doc("Reservation:x", "Hrs", "1")), "USD");

    assertThat(choice.chosen()).isEmpty();
    assertThat(choice.ignored()).hasSize(1);
  }

  @Test
  void shouldReadCnyInChina() {
    String cny = doc("CNN1-BoxUsage:g5.xlarge", "Hrs", "1").replace("\"USD\"", "\"CNY\"");

    assertThat(PriceListParser.choose(List.of(cny), "CNY").chosen()).isPresent();
    assertThat(PriceListParser.choose(List.of(cny), "USD").chosen()).isEmpty();
  }

  @Test
  void shouldRejectAPriceThatIsNotADecimal() {
    assertThatThrownBy(
            () -> PriceListParser.choose(List.of(doc("BoxUsage:x", "Hrs", "n/a")), "USD"))
        .hasMessageContaining("'n/a' is not a decimal");
  }

  @Test
  void shouldPickTheEndpointByPartition() {
    assertThat(PricingEndpoint.endpointRegionFor("eu-west-1")).isEqualTo("us-east-1");
    assertThat(PricingEndpoint.endpointRegionFor("cn-north-1")).isEqualTo("cn-northwest-1");
    assertThat(PricingEndpoint.currencyFor("cn-northwest-1")).isEqualTo("CNY");
    assertThat(PricingEndpoint.currencyFor("us-west-2")).isEqualTo("USD");
    assertThat(PricingEndpoint.currencyFor("us-gov-west-1")).isEqualTo("USD");
  }

  @Test
  void shouldKnowGovCloudHasNoPricingEndpoint() {
    assertThat(PricingEndpoint.partitionOf("us-gov-east-1")).isEqualTo("aws-us-gov");
    assertThat(PricingEndpoint.hasPricingEndpoint("us-gov-west-1")).isFalse();
    assertThat(PricingEndpoint.hasPricingEndpoint("cn-northwest-1")).isTrue();
    assertThat(PricingEndpoint.hasPricingEndpoint("eusc-de-east-1")).isFalse();
    assertThatThrownBy(() -> PricingEndpoint.endpointRegionFor("us-gov-west-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no Pricing API endpoint in partition aws-us-gov");
  }
}
