package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The gpufleet command as a user meets it: exit codes, what goes to stdout and stderr. */
class MainTest extends CapturedCli {

  /** The repository root: the first directory above the working directory with events/. */
  static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("events")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no events/ above " + Path.of("").toAbsolutePath());
  }

  @Nested
  class Commands {
    @Test
    void shouldExitTwoWithTheUsageForAnUnknownCommand() {
      int code = run("frobnicate", "--json");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("unknown command 'frobnicate'").contains("usage: gpufleet");
      assertThat(out()).isEmpty();
    }

    @Test
    void shouldExitTwoWithTheUsageWithoutACommand() {
      int code = run();

      assertThat(code).isEqualTo(2);
      assertThat(out()).contains("usage: gpufleet").contains("simulate").contains("bench");
    }

    @ParameterizedTest
    @ValueSource(strings = {"help", "--help"})
    void shouldPrintTheUsageOnRequest(String help) {
      int code = run(help);

      assertThat(code).isZero();
      assertThat(out()).contains("usage: gpufleet");
      assertThat(err()).isEmpty();
    }
  }

  @Nested
  class Drain {
    @Test
    void shouldExitTwoNamingInstanceWhenItIsMissing() {
      int code = run("drain", "--cluster", "gpu-prod", "--dry-run");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("--instance").contains("required");
      assertThat(out()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
        strings = {"i-xyz", "0123456789abcdef0", "i-0123", "i-0123456789ABCDEF0", "node-1"})
    void shouldExitTwoForAnInstanceIdThatIsNotOne(String instance) {
      int code = run("drain", "--instance", instance, "--cluster", "gpu-prod", "--dry-run");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("'" + instance + "'").contains("not an EC2 instance id");
    }

    @Test
    void shouldExitTwoNamingAnUnknownFlagAndTheKnownOnes() {
      int code = run("drain", "--instance", "i-0123456789abcdef0", "--bogus", "x");

      assertThat(code).isEqualTo(2);
      assertThat(err())
          .startsWith("gpufleet drain: Unknown option")
          .contains("'--bogus'")
          .contains("--instance")
          .contains("--cluster")
          .contains("--dry-run")
          .contains("--kubeconfig")
          .contains("--deadline");
    }

    @Test
    void shouldExitTwoWhenAFlagLacksItsValue() {
      int code = run("drain", "--instance");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("Missing required parameter for option '--instance'");
    }

    @Test
    void shouldExitTwoForAnUnknownKind() {
      int code =
          run("drain", "--instance", "i-0123456789abcdef0", "--cluster", "c", "--kind", "reboot");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("--kind must be one of");
    }
  }

  @Nested
  class Bench {
    @Test
    void shouldExitTwoNamingTheBenchmarksWhenNoneIsNamed() {
      int code = run("bench");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("drain").contains("drain-burst").contains("cold");
      assertThat(out()).isEmpty();
    }

    @Test
    void shouldExitTwoForAnUnknownBenchmark() {
      int code = run("bench", "nope");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("unknown benchmark 'nope'");
      assertThat(out()).isEmpty();
    }

    @Test
    void shouldExitTwoForAnUnknownBenchmarkFlag() {
      int code = run("bench", "drain", "--bogus", "1");

      assertThat(code).isEqualTo(2);
      assertThat(err())
          .startsWith("gpufleet bench drain: Unknown option")
          .contains("'--bogus'")
          .contains("--pods");
    }
  }

  @Nested
  class Simulate {
    @Test
    void shouldExitTwoForAMissingEventsDirectory() {
      int code = run("simulate", "--json", "--events", "/nonexistent/gpufleet-events");

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("/nonexistent/gpufleet-events").contains("does not exist");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1001", "fast"})
    void shouldExitTwoForASpeedOutOfRange(String speed) {
      int code =
          run(
              "simulate",
              "--speed",
              speed,
              "--events",
              repositoryRoot().resolve("events").toString());

      assertThat(code).isEqualTo(2);
      assertThat(err()).contains("--speed");
    }

    @Test
    void shouldReplayTheRepositorysEventsAndPrintEveryOutcomeAsJson() throws Exception {
      // When
      int code =
          run(
              "simulate",
              "--json",
              "--speed",
              "50",
              "--events",
              repositoryRoot().resolve("events").toString());

      // Then stdout is one JSON array of outcome records
      assertThat(code).as("stderr: %s", err()).isZero();
      JsonNode json = Json.MAPPER.readTree(out());
      assertThat(json.isArray()).isTrue();
      List<String> statuses = new ArrayList<>();
      for (JsonNode o : json) {
        assertThat(o.path("eventId").asText()).isNotBlank();
        assertThat(o.path("status").isTextual()).isTrue();
        statuses.add(o.path("status").asText());
      }
      Set<String> seen = new TreeSet<>(statuses);
      assertThat(seen)
          .contains("PARTIAL", "DRAINED", "CORDONED", "NOT_IN_CLUSTER", "DUPLICATE")
          .doesNotContain("REJECTED");
      // the spot warning delivered a second time is the one duplicate
      assertThat(statuses).containsOnlyOnce("DUPLICATE");
      // a Capacity Reservation interruption and a Capacity Block ending drained their nodes
      var kinds = new TreeSet<String>();
      json.forEach(o -> kinds.add(o.path("kind").asText() + "/" + o.path("status").asText()));
      assertThat(kinds)
          .anyMatch(
              k ->
                  k.equals("capacity-reservation-interruption/DRAINED")
                      || k.equals("capacity-reservation-interruption/PARTIAL"))
          .anyMatch(
              k ->
                  k.equals("capacity-block-expiring/DRAINED")
                      || k.equals("capacity-block-expiring/PARTIAL"));
      // the drain serves two clusters: the second cluster's Spot warning drained there, its
      // unlabelled Capacity Block node too, and the foreign instance is in neither
      var byCluster = new TreeSet<String>();
      json.forEach(
          o ->
              byCluster.add(
                  o.path("kind").asText()
                      + "@"
                      + o.path("cluster").asText()
                      + "/"
                      + o.path("status").asText()));
      assertThat(byCluster)
          .contains(
              "spot-interruption@sim-research-cluster/DRAINED",
              "capacity-block-expiring@sim-research-cluster/DRAINED",
              "capacity-block-expiring@sim-gpu-cluster/DRAINED",
              "spot-interruption@sim-gpu-cluster,sim-research-cluster/NOT_IN_CLUSTER");
      // the training node's Spot warning shows the checkpoint timelines of its two opted-in jobs:
      // one checkpointed before its eviction, one never reported and went at the latest safe moment
      var timelines = new ArrayList<String>();
      json.forEach(
          o ->
              o.path("checkpoints")
                  .forEach(
                      c ->
                          timelines.add(
                              o.path("kind").asText()
                                  + " "
                                  + c.path("pod").asText()
                                  + " "
                                  + (c.path("checkpointDone").asText().equals("not reported")
                                      ? "not reported"
                                      : "done")
                                  + (c.has("evictedAt") ? " evicted" : ""))));
      assertThat(timelines)
          .contains(
              "spot-interruption training/trainer-ckpt-0 done evicted",
              "spot-interruption training/trainer-silent-0 not reported evicted");
    }

    @Test
    void shouldReportABadFileAndReplayTheRestEachOnAFreshCluster() throws Exception {
      // Given two files reusing one event id for different nodes, and a file that is not JSON
      Path dir = Files.createTempDirectory("gpufleet-simulate-bad-");
      Path events = repositoryRoot().resolve("events");
      Files.copy(events.resolve("spot-interruption-warning.json"), dir.resolve("a-spot.json"));
      String inference =
          Files.readString(events.resolve("spot-interruption-warning-inference.json"));
      String firstId =
          Json.MAPPER
              .readTree(events.resolve("spot-interruption-warning.json").toFile())
              .path("id")
              .asText();
      String sameId =
          inference.replaceFirst("\"id\"\\s*:\\s*\"[^\"]+\"", "\"id\": \"" + firstId + "\"");
      Files.writeString(dir.resolve("b-spot-same-id.json"), sameId);
      Files.writeString(dir.resolve("c-broken.json"), "{\"detail-type\": ");

      // When
      int code = run("simulate", "--json", "--speed", "50", "--events", dir.toString());

      // Then it finishes, names the bad file's rejection, and both warnings drain their nodes
      assertThat(code).as("stderr: %s", err()).isZero();
      JsonNode json = Json.MAPPER.readTree(out());
      List<String> statuses = new ArrayList<>();
      json.forEach(o -> statuses.add(o.path("status").asText()));
      assertThat(statuses).contains("REJECTED").doesNotContain("NOT_IN_CLUSTER");
      assertThat(statuses.stream().filter(st -> st.equals("DRAINED") || st.equals("PARTIAL")))
          .hasSize(2);
    }
  }
}
