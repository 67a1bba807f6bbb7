package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.testkit.lambda.SamTemplate;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench drain-burst} runs a burst as Lambda would: E environments, each with its own
 * handler, client and caches, handling its events one after another (structure and counts only, no
 * timing).
 */
class BurstEnvironmentsTest {
  @Test
  void shouldGiveEveryEventItsOwnEnvironmentAsADeploymentSizedByTheReadmeRule() {
    assertThat(DrainBurstBench.burstEnvironments(1)).isEqualTo(1);
    assertThat(DrainBurstBench.burstEnvironments(50)).isEqualTo(50);
    assertThat(DrainBurstBench.burstEnvironments(200)).isEqualTo(200);
  }

  @Test
  void shouldBenchmarkAtTheReservedConcurrencyTheTemplateDeploysByDefault() throws Exception {
    var m =
        Pattern.compile(
                "(?m)^  DrainReservedConcurrency:\\s*\\n    Type: Number\\s*\\n    Default: (\\d+)")
            .matcher(SamTemplate.projectTemplateText());
    assertThat(m.find()).as("DrainReservedConcurrency in template.yaml").isTrue();
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(DrainBurstBench.DRAIN_RESERVED_CONCURRENCY);
  }

  @Test
  void shouldHandEventsToEnvironmentsInTurnEachKeepingItsOrder() {
    assertThat(BurstEnvironments.assign(5, 2)).containsExactly(List.of(0, 2, 4), List.of(1, 3));
    assertThat(BurstEnvironments.assign(3, 50)).containsExactly(List.of(0), List.of(1), List.of(2));
    assertThat(BurstEnvironments.assign(200, 50))
        .hasSize(50)
        .allSatisfy(e -> assertThat(e).hasSize(4));
    assertThatThrownBy(() -> BurstEnvironments.assign(3, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldDrainEveryNodeOfTheBurstWithOneClientPerEnvironment() throws Exception {
    var time = SimTime.realTime();
    // as deployed: HTTPS with HTTP/2, each environment's client trusting the cluster CA
    try (var cluster = SimCluster.startHttps(time)) {
      for (int i = 0; i < 5; i++) {
        DrainBench.seedNode(cluster, "burst-" + i, DrainBench.instanceId(i), 3);
        DrainBench.seedNode(cluster, "seq-" + i, DrainBench.instanceId(100_000 + i), 0);
      }
      DrainBench.seedNode(cluster, "warm-node", DrainBench.WARM_INSTANCE, 3);
      var log = new ByteArrayOutputStream();

      var f =
          BurstEnvironments.run(
              new BurstEnvironments.Target(
                  Map.of("bench", cluster.url()),
                  Map.of("bench", cluster.caData().orElseThrow()),
                  null),
              5,
              2,
              BurstEnvironments.Schedule.inWaves(1),
              new PrintStream(log, true, StandardCharsets.UTF_8));

      assertThat(f)
          .containsEntry("environments", 2)
          .containsEntry("waves", 2)
          .containsEntry("failedInvocations", 0)
          .containsEntry("distinctClients", 2)
          .containsEntry("mostEventsInOneEnvironment", 3)
          .containsEntry("outcomes", 5)
          .containsEntry("drained", 5L)
          .containsKeys("allCordonedMs", "allGoneMs", "baselineSequentialCordonMs", "burstWallMs");
      assertThat(((Map<?, ?>) f.get("firstWave")).get("events")).isEqualTo(3);
      assertThat(((Map<?, ?>) f.get("laterWaves")).get("events")).isEqualTo(2);
      assertThat((List<?>) f.get("perWaveAllCordonedMs")).hasSize(2);
      var slowest = (Map<?, ?>) f.get("slowestEvent");
      assertThat(slowest.get("cordonedFromEnvironmentStartMs")).isEqualTo(f.get("allCordonedMs"));
      assertThat(slowest.get("wave")).isEqualTo(slowest.get("environment"));
      assertThat(List.copyOf(((Map<?, ?>) f.get("environmentInitMs")).keySet()))
          .isEqualTo(List.of("min", "median", "max", "sum"));
      assertThat(List.copyOf(((Map<?, ?>) f.get("eventHandlingMs")).keySet()))
          .isEqualTo(List.of("min", "median", "max", "sum"));
      assertThat(cluster.url()).startsWith("https://");
      // each environment its own connection and handshake: 2 environments, the warm-up one and
      // the baseline's
      assertThat(cluster.tlsConnections()).isGreaterThanOrEqualTo(4);
      for (int i = 0; i < 5; i++) {
        assertThat(cluster.podsOn("burst-" + i))
            .as("burst-%d keeps only its DaemonSet pod", i)
            .hasSize(1);
        assertThat(cluster.podsOn("seq-" + i)).hasSize(1);
      }
    }
  }

  @Test
  void shouldCountAFailedInvocationAndGoOnWithTheEnvironmentsNextEvent() {
    var failed = new BurstEnvironments.Invocation(3, List.of(), 10_000_000, "timed out");
    var next = new BurstEnvironments.Invocation(5, List.of(), 20_000_000, null);
    var run =
        new BurstEnvironments.EnvironmentRun(
            0, 0, Instant.EPOCH, null, 4_000_000, List.of(failed, next));

    var f = BurstEnvironments.figures(List.of(run));

    assertThat(f)
        .containsEntry("failedInvocations", 1)
        .containsEntry("firstFailure", "event 3: timed out")
        .containsEntry("mostEventsInOneEnvironment", 2)
        .containsEntry("outcomes", 0);
    assertThat(f.get("environmentInitMs"))
        .isEqualTo(Map.of("min", 4L, "median", 4L, "max", 4L, "sum", 4L));
    assertThat(((Map<?, ?>) f.get("eventHandlingMs")).get("sum")).isEqualTo(30L);
  }

  @Test
  void shouldFailABurstWhoseEnvironmentsSharedAClient() {
    var f = new HashMap<String, Object>();
    f.put("failedInvocations", 0);
    f.put("outcomes", 4);
    f.put("drained", 4L);
    f.put("environments", 2);
    f.put("distinctClients", 2);
    f.put("allCordonedMs", 10L);
    assertThat(DrainBurstBench.burstPasses(f, 4, 2, 0)).isTrue();
    f.put("distinctClients", 1);
    assertThat(DrainBurstBench.burstPasses(f, 4, 2, 0)).isFalse();
    f.put("distinctClients", 2);
    assertThat(DrainBurstBench.burstPasses(f, 4, 2, 1)).as("a pod left").isFalse();
    f.put("failedInvocations", 1);
    assertThat(DrainBurstBench.burstPasses(f, 4, 2, 0)).as("an invocation failed").isFalse();
    f.put("failedInvocations", 0);
    f.put("drained", 3L);
    assertThat(DrainBurstBench.burstPasses(f, 4, 2, 0)).as("an event not drained").isFalse();
  }

  @Test
  void shouldRunAsManyEnvironmentsAtOnceAsTheHostHasWholeLambdaSharesForAtLeastOne() {
    assertThat(BurstEnvironments.waveWidth(2, new LambdaShare(3008))).isEqualTo(1);
    assertThat(BurstEnvironments.waveWidth(2, new LambdaShare(1769))).isEqualTo(2);
    assertThat(BurstEnvironments.waveWidth(2, new LambdaShare(1024))).isEqualTo(3);
    assertThat(BurstEnvironments.waveWidth(16, new LambdaShare(3008))).isEqualTo(9);
    assertThat(BurstEnvironments.waveWidth(4, new LambdaShare(3538))).isEqualTo(2);
    assertThat(BurstEnvironments.waveWidth(2, new LambdaShare(10_240)))
        .as("a share above the host still runs, one at a time")
        .isEqualTo(1);
    assertThatThrownBy(() -> BurstEnvironments.waveWidth(0, new LambdaShare(1024)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldSplitTheEnvironmentsIntoWavesInOrderAndAllAtOnceIntoOne() {
    assertThat(BurstEnvironments.waves(5, 2))
        .containsExactly(List.of(0, 1), List.of(2, 3), List.of(4));
    assertThat(BurstEnvironments.waves(3, 10)).containsExactly(List.of(0, 1, 2));
    assertThat(BurstEnvironments.Schedule.inWaves(1).wavesOf(200))
        .hasSize(200)
        .allSatisfy(w -> assertThat(w).hasSize(1));
    assertThat(BurstEnvironments.Schedule.allAtOnce(200).wavesOf(200)).hasSize(1);
    assertThat(BurstEnvironments.Schedule.allAtOnce(200).wavesOf(200).get(0)).hasSize(200);
    assertThat(BurstEnvironments.waves(0, 1)).isEmpty();
    assertThatThrownBy(() -> BurstEnvironments.Schedule.inWaves(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static DrainOutcome cordoned(String node, Instant received, long cordonedMs) {
    return new DrainOutcome(
        node,
        "SPOT_INTERRUPTION",
        "i-0" + node,
        "bench",
        node,
        DrainOutcome.Status.DRAINED,
        "",
        Set.of(),
        received,
        null,
        null,
        new DrainOutcome.Timings(cordonedMs, cordonedMs + 5, cordonedMs + 50),
        List.of(),
        List.of(),
        List.of(),
        List.of());
  }

  @Test
  void shouldCountEachEventFromItsOwnEnvironmentsStartWithItsQueueingNotFromTheFirstWave() {
    Instant t0 = Instant.parse("2026-12-01T10:00:00Z");
    // wave 0: init 50 ms, event 0 received at +60 ms, cordoned 300 ms later: 360 ms
    var first =
        new BurstEnvironments.EnvironmentRun(
            0,
            0,
            t0,
            null,
            50_000_000,
            List.of(
                new BurstEnvironments.Invocation(
                    0, List.of(cordoned("a", t0.plusMillis(60), 300)), 400_000_000, null)));
    // wave 1 starts 10 s later; its environment handles events 1 and 2 back to back: event 2
    // waits behind event 1 (received at +500 ms), cordoned 250 ms later: 750 ms
    Instant t1 = t0.plusSeconds(10);
    var later =
        new BurstEnvironments.EnvironmentRun(
            1,
            1,
            t1,
            null,
            30_000_000,
            List.of(
                new BurstEnvironments.Invocation(
                    1, List.of(cordoned("b", t1.plusMillis(40), 200)), 450_000_000, null),
                new BurstEnvironments.Invocation(
                    2, List.of(cordoned("c", t1.plusMillis(500), 250)), 300_000_000, null)));

    var f = BurstEnvironments.figures(List.of(first, later));

    assertThat(f)
        .containsEntry("allCordonedMs", 750L)
        .containsEntry("waves", 2)
        .containsEntry("lastReceivedMs", 500L)
        .containsEntry("slowestCordonMs", 300L)
        .containsEntry("allGoneMs", 800L)
        .containsEntry("perWaveAllCordonedMs", List.of(360L, 750L));
    assertThat(f.get("slowestEvent"))
        .isEqualTo(
            Map.of(
                "event", 2,
                "wave", 1,
                "environment", 1,
                "environmentInitMs", 30L,
                "cordonedFromEnvironmentStartMs", 750L));
    var firstWave = (Map<?, ?>) f.get("firstWave");
    assertThat(firstWave.get("allCordonedMs")).isEqualTo(360L);
    assertThat(firstWave.get("events")).isEqualTo(1);
    var laterWaves = (Map<?, ?>) f.get("laterWaves");
    assertThat(laterWaves.get("allCordonedMs")).isEqualTo(750L);
    assertThat(laterWaves.get("eventCordonedMs"))
        .isEqualTo(Map.of("min", 240L, "median", 750L, "max", 750L, "sum", 990L));
    assertThat(f.get("eventCordonedMs"))
        .isEqualTo(Map.of("min", 240L, "median", 360L, "max", 750L, "sum", 1350L));
    assertThat(f.get("waveAllCordonedMs"))
        .isEqualTo(Map.of("min", 360L, "median", 750L, "max", 750L, "sum", 1110L));
  }

  @Test
  void shouldNotCountAnEventThatWasNeverCordonedAsTheSlowest() {
    Instant t0 = Instant.EPOCH;
    var lost =
        DrainOutcome.simple(
            "x", "SPOT_INTERRUPTION", "i-x", "bench", "x", DrainOutcome.Status.NODE_GONE, "", t0);
    var run =
        new BurstEnvironments.EnvironmentRun(
            0,
            0,
            t0,
            null,
            1_000_000,
            List.of(
                new BurstEnvironments.Invocation(0, List.of(lost), 1_000_000, null),
                new BurstEnvironments.Invocation(
                    1, List.of(cordoned("y", t0.plusMillis(5), 20)), 1_000_000, null)));

    var f = BurstEnvironments.figures(List.of(run));

    assertThat(f).containsEntry("allCordonedMs", 25L).containsEntry("drained", 1L);
    assertThat(((Map<?, ?>) f.get("slowestEvent")).get("event")).isEqualTo(1);
    assertThat(f).containsEntry("laterWaves", null);
  }

  @Test
  void shouldSayWhatTheWaveModeIsAndThatTheApiServerSeesOnlyWEnvironments() {
    var share = Confinement.unconfined(3008, "test");
    var fields =
        DrainBurstBench.scheduleFields(BurstEnvironments.Schedule.inWaves(1), 200, 2, share);

    assertThat(fields)
        .containsEntry("mode", "waves")
        .containsEntry("waveWidth", 1)
        .containsEntry("hostCpus", 2)
        .containsEntry("apiServerConcurrentEnvironments", 1);
    assertThat((String) fields.get("apiServerNote"))
        .contains("1 environment(s) at once, not the burst's 200");
    assertThat(
            DrainBurstBench.scheduleFields(BurstEnvironments.Schedule.inWaves(3), 2, 2, share)
                .get("apiServerConcurrentEnvironments"))
        .as("never more at once than there are environments")
        .isEqualTo(2);
  }

  @Test
  void shouldNeverPassAnAllAtOnceBurstCutToTheHostsCpusButDecideTheWaveRunByItsFigures(
      @TempDir Path notACgroupRoot) {
    // 200 shares of 1.7 CPU: more than any host here; no cgroup under a temp dir, the cap is still
    // computed
    try (var capped =
        Confinement.of(new LambdaShare(3008), 200, "test", notACgroupRoot.resolve("none"))) {
      assertThat(capped.cappedByHost()).isTrue();
      var allAtOnce =
          DrainBurstBench.burstVerdict(BurstEnvironments.Schedule.allAtOnce(200), capped, true);
      assertThat(allAtOnce).containsEntry("pass", false).containsKey("passNote");
      assertThat(
              DrainBurstBench.scheduleFields(
                  BurstEnvironments.Schedule.allAtOnce(200), 200, 2, capped))
          .containsEntry("mode", "all-at-once")
          .containsEntry("cappedByHostCpus", true)
          .containsEntry("apiServerConcurrentEnvironments", 200);
    }
    var whole = Confinement.unconfined(3008, "test");
    assertThat(DrainBurstBench.burstVerdict(BurstEnvironments.Schedule.inWaves(1), whole, true))
        .isEqualTo(Map.of("pass", true));
    assertThat(DrainBurstBench.burstVerdict(BurstEnvironments.Schedule.inWaves(1), whole, false))
        .isEqualTo(Map.of("pass", false));
  }
}
