package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.preflight.model.CapacityBlockOffer;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.RegionFacts;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.Verdict;
import io.gpufleet.testkit.aws.contract.BotocoreModels;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Capacity Blocks for ML as EC2 takes them: durations, families and the instance caps. */
class CapacityBlocksTest {

  @ParameterizedTest
  @ValueSource(ints = {24, 48, 168, 312, 336, 504, 672, 2184, 4200, 4368})
  void shouldAcceptTheDurationsEc2Takes(int hours) {
    assertThat(CapacityBlocks.validDuration(hours)).isTrue();
    assertThat(CapacityBlocks.checkDuration("hours", hours)).isEqualTo(hours);
  }

  @ParameterizedTest
  @CsvSource({
    "0, 24",
    "23, 24",
    "25, 24 or 48",
    "100, 96 or 120",
    "360, 336 or 504",
    "500, 336 or 504",
    "528, 504 or 672",
    "4369, 4368",
    "5000, 4368"
  })
  void shouldRefuseOtherDurationsNamingTheValueTheStepsAndTheNearest(int hours, String nearest) {
    assertThat(CapacityBlocks.validDuration(hours)).isFalse();
    assertThatThrownBy(() -> CapacityBlocks.checkDuration("PREFLIGHT_CAPACITY_BLOCK_HOURS", hours))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "PREFLIGHT_CAPACITY_BLOCK_HOURS="
                + hours
                + " is not a Capacity Block duration EC2 takes: 24..336 hours in steps of 24 (1 to"
                + " 14 days), or 504..4368 in steps of 168 (3 to 26 weeks); nearest: "
                + nearest);
  }

  @Test
  void shouldRefuseABadDurationSettingBeforeAnythingIsAsked() {
    var settings = new Settings(Map.of("PREFLIGHT_CAPACITY_BLOCK_HOURS", "400"));

    assertThatThrownBy(() -> PreflightSettings.from(settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "PREFLIGHT_CAPACITY_BLOCK_HOURS=400 is not a Capacity Block duration EC2 takes")
        .hasMessageEndingWith("nearest: 336 or 504");
    assertThat(
            PreflightSettings.from(new Settings(Map.of("PREFLIGHT_CAPACITY_BLOCK_HOURS", "672")))
                .capacityBlockHours())
        .isEqualTo(672);
  }

  /** The steps and caps are those EC2's own model states for DescribeCapacityBlockOfferings. */
  @Test
  void shouldHoldTheStepsAndCapsToTheEc2ServiceModel() {
    var ec2 = BotocoreModels.shared().service("ec2");

    String duration =
        ec2.inputMemberDocumentation("DescribeCapacityBlockOfferings", "CapacityDurationHours");
    var steps =
        Pattern.compile(
                "1-day increments up (?:to )?(\\d+) days, and in 7-day increments up to (\\d+)")
            .matcher(duration);
    assertThat(steps.find()).as(duration).isTrue();
    assertThat(Integer.parseInt(steps.group(1)) * 24).isEqualTo(CapacityBlocks.LAST_DAILY);
    assertThat(Integer.parseInt(steps.group(2)) * 24).isEqualTo(CapacityBlocks.MAX_HOURS);

    String count = ec2.inputMemberDocumentation("DescribeCapacityBlockOfferings", "InstanceCount");
    var caps = Pattern.compile("up to (\\d+) instances.*up to (\\d+) instances").matcher(count);
    assertThat(caps.find()).as(count).isTrue();
    assertThat(Integer.parseInt(caps.group(1))).isEqualTo(CapacityBlocks.MAX_PER_BLOCK);
    assertThat(Integer.parseInt(caps.group(2))).isEqualTo(CapacityBlocks.MAX_PER_ACCOUNT);
  }

  @ParameterizedTest
  @CsvSource({
    "p5.48xlarge, true",
    "p4d.24xlarge, true",
    "p5en.48xlarge, true",
    "trn1.32xlarge, true",
    "trn2.48xlarge, true",
    "g6e.12xlarge, false",
    "inf2.48xlarge, false",
    "m7i.large, false"
  })
  void shouldOfferCapacityBlocksForPAndTrainiumFamilies(String type, boolean offered) {
    assertThat(CapacityBlocks.offered(type)).isEqualTo(offered);
  }

  @Test
  void shouldCountBlocksOfAtMost64() {
    assertThat(CapacityBlocks.blocksFor(0)).isZero();
    assertThat(CapacityBlocks.blocksFor(64)).isEqualTo(1);
    assertThat(CapacityBlocks.blocksFor(65)).isEqualTo(2);
    assertThat(CapacityBlocks.blocksFor(256)).isEqualTo(4);
  }

  // --- in the verdict

  static final QuotaBucket.Key TRN_OD =
      new QuotaBucket.Key(QuotaBucket.TRN, CapacityType.ON_DEMAND);
  static final QuotaBucket.Key P_OD = new QuotaBucket.Key(QuotaBucket.P, CapacityType.ON_DEMAND);

  static QuotaValue quota(QuotaBucket.Key key, double value) {
    return new QuotaValue(
        key,
        key.bucket().fallbackQuotaCode(key.capacityType()).get(),
        "n",
        value,
        key.usageClass(),
        "name",
        true);
  }

  static RegionFacts facts(Map<String, List<CapacityBlockOffer>> blocks, String... types) {
    var specs = new HashMap<String, io.gpufleet.core.catalog.InstanceSpec>();
    var offered = new HashMap<String, Set<String>>();
    for (String t : types) {
      specs.put(t, InstanceCatalog.find(t).orElseThrow());
      offered.put(t, Set.of("us-east-1a"));
    }
    return new RegionFacts(
        "us-east-1",
        specs,
        offered,
        Map.of(TRN_OD, quota(TRN_OD, 1e6), P_OD, quota(P_OD, 1e6)),
        Map.of(TRN_OD, 0.0, P_OD, 0.0),
        Map.of(),
        Map.of(),
        Map.of("p5.48xlarge", 10),
        blocks,
        List.of());
  }

  static CapacityBlockOffer offer(String type, int count) {
    return new CapacityBlockOffer(
        "cbo-1",
        type,
        "us-east-1a",
        count,
        Instant.parse("2026-12-10T11:30:00Z"),
        Instant.parse("2026-12-11T11:30:00Z"),
        24,
        new BigDecimal("1234.56"),
        "USD");
  }

  static PlanEntry onDemand(String name, int count, String type) {
    return new PlanEntry(name, List.of(type), count, CapacityType.ON_DEMAND, List.of());
  }

  @Test
  void shouldWarnAboutTrainiumOnDemandAndNameItsCapacityBlockOffering() {
    var facts =
        facts(Map.of("trn2.48xlarge", List.of(offer("trn2.48xlarge", 16))), "trn2.48xlarge");

    RegionResult r =
        PreflightPlanner.defaults()
            .evaluate(
                new Plan("t", List.of(onDemand("trn", 16, "trn2.48xlarge")), List.of(), false),
                facts,
                Map.of(),
                0);

    assertThat(r.verdict()).isEqualTo(Verdict.GO_WITH_WARNINGS);
    assertThat(r.warnings())
        .singleElement()
        .asString()
        .startsWith("trn2.48xlarge On-Demand is often out of capacity")
        .contains("1 Capacity Block offering, earliest 16 × trn2.48xlarge in us-east-1a");
  }

  @Test
  void shouldCountBlocksPerEntryAndTheAccountCapAcrossTheEntries() {
    var facts =
        facts(
            Map.of("p5.48xlarge", List.of(offer("p5.48xlarge", 64))),
            "p5.48xlarge",
            "trn2.48xlarge");

    // 10 of the 150 p5 are in open reservations: 140 need blocks (three of 64);
    // the 140 trn2 after them pass the account's 256 by 24
    RegionResult r =
        PreflightPlanner.defaults()
            .evaluate(
                new Plan(
                    "t",
                    List.of(
                        onDemand("p5", 150, "p5.48xlarge"), onDemand("trn", 140, "trn2.48xlarge")),
                    List.of(),
                    false),
                facts,
                Map.of(),
                0);

    assertThat(r.warnings()).hasSize(2);
    assertThat(r.warnings().get(0))
        .contains("Capacity Reservations cover 10 of 150")
        .contains("the other 140 need 3 Capacity Blocks (at most 64 instances each)")
        .doesNotContain("across the account");
    assertThat(r.warnings().get(1))
        .contains("the other 140 need 3 Capacity Blocks")
        .contains(
            "Capacity Blocks can hold at most 256 instances across the account, 24 of these"
                + " cannot be in one")
        .contains("no Capacity Block offering found");
  }

  @Test
  void shouldAskForCapacityBlocksOfTrainiumAndAtMost64Instances() {
    var account = new FakeAccount();
    account
        .offer("us-east-1", "trn2.48xlarge", "a")
        .offer("us-east-1", "p5.48xlarge", "a")
        .offer("us-east-1", "g6e.12xlarge", "a")
        .quota("us-east-1", QuotaBucket.TRN, CapacityType.ON_DEMAND, 1e6)
        .quota("us-east-1", QuotaBucket.P, CapacityType.ON_DEMAND, 1e6)
        .quota("us-east-1", QuotaBucket.G_VT, CapacityType.ON_DEMAND, 1e6);
    var settings =
        PreflightSettings.from(new Settings(Map.of("PREFLIGHT_CAPACITY_BLOCK_HOURS", "504")));

    new PreflightService(
            account,
            account,
            account,
            io.gpufleet.core.pricing.OnDemandPrices.none(),
            settings,
            PreflightServiceTest.CLOCK)
        .run(
            new Plan(
                "t",
                List.of(
                    onDemand("trn", 100, "trn2.48xlarge"),
                    onDemand("p5", 8, "p5.48xlarge"),
                    onDemand("g", 2, "g6e.12xlarge")),
                List.of("us-east-1"),
                false),
            List.of(),
            "test");

    assertThat(account.blockQueries)
        .containsExactlyInAnyOrder("trn2.48xlarge x64 for 504h", "p5.48xlarge x8 for 504h");
  }
}
