package io.gpufleet.cost.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.pricing.api.OnDemandPricing;
import io.gpufleet.core.pricing.api.PricingApiAdapter;
import io.gpufleet.core.store.MemoryBlobStore;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.PricingStub;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * The Pricing adapter over the project's JSON protocol client against a local stub that answers in
 * the real PriceList shape (every request also held to botocore's model by the testkit).
 */
class PricingApiAdapterTest {
  static final AwsStubServer STUB = AwsStubServer.start();
  final PricingStub pricing =
      new PricingStub()
          .withDecoys()
          .price("us-east-1", "p5.48xlarge", "55.04")
          .price("eu-west-1", "g6e.12xlarge", "11.91")
          .price("cn-north-1", "g5.xlarge", "9.876");
  final Instant now = Instant.parse("2026-11-30T02:00:00Z");
  final MemoryBlobStore store = new MemoryBlobStore();

  final AwsClients aws =
      new AwsClients(
          Region.EU_WEST_1,
          StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")),
          Optional.of(STUB.endpoint()));

  @BeforeEach
  void reset() {
    STUB.reset();
    STUB.on(PricingStub.OPERATION, pricing::answer);
  }

  @AfterAll
  static void stop() {
    STUB.close();
  }

  Settings settings(String... kv) {
    var m = new HashMap<String, String>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return new Settings(m);
  }

  @Test
  void shouldSendTheTermMatchFiltersToTheUsEast1EndpointAndPickBoxUsage() throws Exception {
    var api = new PricingApiAdapter(aws, Optional.empty(), 5, 10);

    var price = api.hourly("eu-west-1", "g6e.12xlarge");

    assertThat(price).hasValueSatisfying(p -> assertThat(p).isEqualByComparingTo("11.91"));
    var call = STUB.calls(PricingStub.OPERATION).get(0);
    assertThat(call.region()).isEqualTo("us-east-1"); // endpoint region, not the priced one
    JsonNode body = Json.MAPPER.readTree(call.body());
    assertThat(body.path("ServiceCode").asText()).isEqualTo("AmazonEC2");
    var filters = new HashMap<String, String>();
    body.path("Filters")
        .forEach(
            f -> {
              assertThat(f.path("Type").asText()).isEqualTo("TERM_MATCH");
              filters.put(f.path("Field").asText(), f.path("Value").asText());
            });
    assertThat(filters)
        .containsEntry("regionCode", "eu-west-1")
        .containsEntry("instanceType", "g6e.12xlarge")
        .containsEntry("operatingSystem", "Linux")
        .containsEntry("tenancy", "Shared")
        .containsEntry("preInstalledSw", "NA")
        .containsEntry("capacitystatus", "Used")
        .containsEntry("marketoption", "OnDemand")
        .containsEntry("licenseModel", "No License required")
        .containsEntry("locationType", "AWS Region");
  }

  @Test
  void shouldAskTheChinaEndpointForChinaRegions() {
    var api = new PricingApiAdapter(aws, Optional.empty(), 5, 10);

    api.hourly("cn-north-1", "g5.xlarge");

    assertThat(STUB.calls(PricingStub.OPERATION).get(0).region()).isEqualTo("cn-northwest-1");
  }

  @Test
  void shouldLabelChinaPricesInCnyFromTheChinaEndpoint() {
    var chain =
        OnDemandPricing.create(
            aws, settings(), Optional.of(store), Clock.fixed(now, ZoneOffset.UTC));

    var price = chain.hourly("cn-north-1", "g5.xlarge").get();

    assertThat(price.currency()).isEqualTo("CNY");
    assertThat(price.perHour()).isEqualByComparingTo("9.876");
    assertThat(price.source()).isEqualTo(PriceSource.API);
    assertThat(STUB.calls(PricingStub.OPERATION))
        .singleElement()
        .satisfies(c -> assertThat(c.region()).isEqualTo("cn-northwest-1"));
  }

  @Test
  void shouldPriceGovCloudFromTheStaticTableWithoutAnyPricingCall() {
    var chain =
        OnDemandPricing.create(
            aws, settings(), Optional.of(store), Clock.fixed(now, ZoneOffset.UTC));

    var price = chain.hourly("us-gov-west-1", "p5.48xlarge").get();

    // Then no call left the GovCloud partition, and the price says what it is
    assertThat(STUB.calls()).isEmpty();
    assertThat(chain.apiCalls()).isZero();
    assertThat(price.source()).isEqualTo(PriceSource.STATIC);
    assertThat(price.currency()).isEqualTo("USD");
    assertThat(price.asOf()).contains(StaticPrices.AS_OF);
    assertThat(price.perHour()).isEqualByComparingTo("55.04");
    assertThat(StaticPrices.sourceFor("us-gov-west-1"))
        .contains("GovCloud has no Pricing API endpoint")
        .contains("us-east-1 list price, not GovCloud's own");
  }

  @Test
  void shouldRefuseACrossPartitionPricingCallEvenWithAnEndpointOverride() {
    var commercial = new PricingApiAdapter(aws, Optional.of("us-east-1"), 5, 10);
    var india = new PricingApiAdapter(aws, Optional.of("ap-south-1"), 5, 10);

    assertThatThrownBy(() -> commercial.hourly("us-gov-west-1", "p5.48xlarge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cross-partition");
    assertThatThrownBy(() -> india.hourly("cn-northwest-1", "g5.xlarge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cn-northwest-1 is in aws-cn");
    assertThat(STUB.calls()).isEmpty();
  }

  @Test
  void shouldReturnEmptyForAnUnknownProduct() {
    var api = new PricingApiAdapter(aws, Optional.empty(), 5, 10);

    assertThat(api.hourly("us-east-1", "x9.nothing")).isEmpty();
  }

  @Test
  void shouldAskOncePerRegionAndTypePerRunThroughTheChain() {
    var chain =
        OnDemandPricing.create(
            aws, settings(), Optional.of(store), Clock.fixed(now, ZoneOffset.UTC));

    for (int i = 0; i < 5; i++) {
      assertThat(chain.hourly("us-east-1", "p5.48xlarge").get().source())
          .isEqualTo(PriceSource.API);
    }

    assertThat(STUB.calls(PricingStub.OPERATION)).hasSize(1);
  }

  @Test
  void shouldLabelTheStaticPriceWhenThePricingApiIsThrottled() {
    STUB.failNext(PricingStub.OPERATION, 20, 400, "ThrottlingException");
    var chain =
        OnDemandPricing.create(
            aws, settings(), Optional.of(store), Clock.fixed(now, ZoneOffset.UTC));

    var price = chain.hourly("us-east-1", "p5.48xlarge").get();

    assertThat(price.source()).isEqualTo(PriceSource.STATIC);
    assertThat(price.asOf()).contains(StaticPrices.AS_OF);
    assertThat(price.perHour()).isEqualByComparingTo("55.04");
    assertThat(chain.apiFailures()).isEqualTo(1);
    // the client retried the throttled call a few times, then gave up: one lookup, bounded calls
    assertThat(STUB.calls(PricingStub.OPERATION).size()).isBetween(2, 4);
  }

  @Test
  void shouldLabelTheCachedPriceWhenThePricingApiIsThrottled() {
    var first =
        OnDemandPricing.create(
            aws, settings(), Optional.of(store), Clock.fixed(now, ZoneOffset.UTC));
    first.hourly("us-east-1", "p5.48xlarge");
    first.flush();
    STUB.failNext(PricingStub.OPERATION, 20, 400, "ThrottlingException");
    var later = Clock.fixed(now.plus(Duration.ofDays(10)), ZoneOffset.UTC); // past the cache TTL

    var price =
        OnDemandPricing.create(aws, settings(), Optional.of(store), later)
            .hourly("us-east-1", "p5.48xlarge")
            .get();

    assertThat(price.source()).isEqualTo(PriceSource.CACHE);
    assertThat(price.perHour()).isEqualByComparingTo("55.04");
    assertThat(price.asOf()).contains(java.time.LocalDate.of(2026, 11, 30));
  }

  @Test
  void shouldKeepToTheTokenBucketRate() {
    var api = new PricingApiAdapter(aws, Optional.empty(), 50, 2);
    long t0 = System.nanoTime();
    for (int i = 0; i < 7; i++) {
      api.hourly("us-east-1", "p5.48xlarge");
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    // burst 2, then 5 more at 50/s = at least 100 ms
    assertThat(ms).isGreaterThanOrEqualTo(95);
    assertThat(STUB.calls(PricingStub.OPERATION)).hasSize(7);
  }

  @Test
  void shouldFollowEveryPageAndTakeATokenForEach() throws Exception {
    // Given one document a page (the price behind a decoy), and a bucket of one token at 10/s
    pricing.pageSize(1);
    var api = new PricingApiAdapter(aws, Optional.empty(), 10, 1);
    long t0 = System.nanoTime();

    var price = api.hourly("us-east-1", "p5.48xlarge");

    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(price).hasValueSatisfying(p -> assertThat(p).isEqualByComparingTo("55.04"));
    var calls = STUB.calls(PricingStub.OPERATION);
    assertThat(calls).hasSize(3);
    assertThat(Json.MAPPER.readTree(calls.get(0).body()).has("NextToken")).isFalse();
    assertThat(Json.MAPPER.readTree(calls.get(2).body()).path("NextToken").asText()).isEqualTo("2");
    assertThat(Json.MAPPER.readTree(calls.get(2).body()).path("Filters"))
        .isEqualTo(Json.MAPPER.readTree(calls.get(0).body()).path("Filters"));
    // three pages, one token each: two waits of 100 ms after the first
    assertThat(ms).isGreaterThanOrEqualTo(195);
  }

  @Test
  void shouldFailWithTheServiceErrorCodeOfARefusedCall() {
    STUB.failNext(PricingStub.OPERATION, 1, 400, "AccessDeniedException");
    var api = new PricingApiAdapter(aws, Optional.empty(), 5, 10);

    assertThatThrownBy(() -> api.hourly("us-east-1", "p5.48xlarge"))
        .isInstanceOfSatisfying(
            io.gpufleet.core.aws.AwsCallException.class,
            e -> {
              assertThat(e.code()).isEqualTo("AccessDeniedException");
              assertThat(e.service()).isEqualTo("Pricing");
              assertThat(e.retryable()).isFalse();
            });
    assertThat(STUB.calls(PricingStub.OPERATION)).hasSize(1);
  }

  @Test
  void shouldRejectAnEndpointRegionThatServesNoPricingApi() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                OnDemandPricing.create(
                    aws,
                    settings("PRICING_ENDPOINT_REGION", "us-west-2"),
                    Optional.empty(),
                    Clock.systemUTC()))
        .hasMessageContaining("PRICING_ENDPOINT_REGION='us-west-2'");
  }
}
