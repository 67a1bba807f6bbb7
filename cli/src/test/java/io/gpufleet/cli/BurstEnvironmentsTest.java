package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bench drain-burst} runs a burst as Lambda would: E environments, each with its own
 * handler, client and caches, handling its events one after another (structure and counts only, no
 * timing).
 */
class BurstEnvironmentsTest {
  @Test
  void shouldGiveEveryEventItsOwnEnvironmentAsADeploymentSizedByTheReadmeRule() {
    assertThat(BenchCommand.burstEnvironments(1)).isEqualTo(1);
    assertThat(BenchCommand.burstEnvironments(50)).isEqualTo(50);
    assertThat(BenchCommand.burstEnvironments(200)).isEqualTo(200);
  }

  @Test
  void shouldBenchmarkAtTheReservedConcurrencyTheTemplateDeploysByDefault() throws Exception {
    var m =
        Pattern.compile(
                "(?m)^  DrainReservedConcurrency:\\s*\\n    Type: Number\\s*\\n    Default: (\\d+)")
            .matcher(TemplateMemoryTest.template());
    assertThat(m.find()).as("DrainReservedConcurrency in template.yaml").isTrue();
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(BenchCommand.DRAIN_RESERVED_CONCURRENCY);
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
    try (var cluster = SimCluster.start(time)) {
      for (int i = 0; i < 5; i++) {
        BenchCommand.seedNode(cluster, "burst-" + i, BenchCommand.instanceId(i), 3);
        BenchCommand.seedNode(cluster, "seq-" + i, BenchCommand.instanceId(100_000 + i), 0);
      }
      BenchCommand.seedNode(cluster, "warm-node", BenchCommand.WARM_INSTANCE, 3);
      var log = new ByteArrayOutputStream();

      var f =
          BurstEnvironments.run(
              cluster.url(), 5, 2, new PrintStream(log, true, StandardCharsets.UTF_8));

      assertThat(f)
          .containsEntry("environments", 2)
          .containsEntry("failedInvocations", 0)
          .containsEntry("distinctClients", 2)
          .containsEntry("mostEventsInOneEnvironment", 3)
          .containsEntry("outcomes", 5)
          .containsEntry("drained", 5L)
          .containsKeys("allCordonedMs", "allGoneMs", "baselineSequentialCordonMs");
      assertThat(List.copyOf(((Map<?, ?>) f.get("environmentInitMs")).keySet()))
          .isEqualTo(List.of("min", "median", "max", "sum"));
      assertThat(List.copyOf(((Map<?, ?>) f.get("eventHandlingMs")).keySet()))
          .isEqualTo(List.of("min", "median", "max", "sum"));
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
    var run = new BurstEnvironments.EnvironmentRun(0, null, 4_000_000, List.of(failed, next));

    var f = BurstEnvironments.figures(List.of(run), java.time.Instant.EPOCH);

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
    assertThat(BenchCommand.burstPasses(f, 4, 2, 0)).isTrue();
    f.put("distinctClients", 1);
    assertThat(BenchCommand.burstPasses(f, 4, 2, 0)).isFalse();
    f.put("distinctClients", 2);
    assertThat(BenchCommand.burstPasses(f, 4, 2, 1)).as("a pod left").isFalse();
    f.put("failedInvocations", 1);
    assertThat(BenchCommand.burstPasses(f, 4, 2, 0)).as("an invocation failed").isFalse();
    f.put("failedInvocations", 0);
    f.put("drained", 3L);
    assertThat(BenchCommand.burstPasses(f, 4, 2, 0)).as("an event not drained").isFalse();
  }
}
