package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * NTH's and Karpenter's fixtures through {@code gpufleet invoke interruption-drain}, as a new user
 * tries them: directly and SQS-wrapped ({@code --sqs}), each instance given a simulated node
 * ({@code --node-per-instance}). Every fixture ends with the outcome {@code
 * events/corpus/corpus.json} gives for the peer's expectation (documented differences in
 * docs/interruption-drain.md), and an SQS delivery shows its record's message id and outcomes.
 */
class InvokePeerCorpusTest extends CapturedCli {
  static final Path CORPUS = MainTest.repositoryRoot().resolve("events/corpus");

  static Stream<Arguments> peerFixtures() throws Exception {
    JsonNode manifest = Json.MAPPER.readTree(Files.readAllBytes(CORPUS.resolve("corpus.json")));
    var out = new ArrayList<Arguments>();
    for (JsonNode f : manifest.path("fixtures")) {
      String file = f.path("file").asText();
      if (!file.matches("(nth|nth-v2|karpenter)/.*")) {
        continue;
      }
      for (String delivery : List.of("direct", "sqs")) {
        out.add(
            Arguments.of(
                file,
                delivery,
                f.path("drain").asText(),
                f.path("kind").asText(null),
                f.path("hookResult").asText(null)));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("peerFixtures")
  void shouldGiveEachPeerFixtureThePeersOutcomeThroughInvoke(
      String file, String delivery, String expected, String kind, String hookResult)
      throws Exception {
    var args = new ArrayList<>(List.of("invoke", "drain", CORPUS.resolve(file).toString()));
    args.addAll(List.of("--json", "--node-per-instance"));
    if (delivery.equals("sqs")) {
      args.add("--sqs");
    }

    int code = run(args.toArray(String[]::new));

    assertThat(code).as(errBytes.toString(StandardCharsets.UTF_8)).isZero();
    JsonNode answer = Json.MAPPER.readTree(outBytes.toString(StandardCharsets.UTF_8)).get(0);
    var outcomes = new ArrayList<JsonNode>();
    JsonNode outcome = answer.path("outcome");
    if (outcome.has("records")) {
      assertThat(outcome.path("batchItemFailures")).isEmpty();
      for (JsonNode r : outcome.path("records")) {
        assertThat(r.path("messageId").asText()).isNotBlank();
        assertThat(r.path("retried").asBoolean()).isFalse();
        r.path("outcomes").forEach(outcomes::add);
      }
    } else if (outcome.isArray()) {
      outcome.forEach(outcomes::add);
    } else {
      outcomes.add(outcome);
    }
    assertThat(outcomes).as("%s", answer).isNotEmpty();
    for (JsonNode o : outcomes) {
      String status = o.path("status").asText();
      switch (expected) {
        case "drain" -> assertThat(status).as("%s", o).isIn("DRAINED", "PARTIAL");
        case "cordon" -> assertThat(status).as("%s", o).isEqualTo("CORDONED");
        default -> assertThat(status).as("%s", o).isEqualTo(expected);
      }
      if (kind != null) {
        assertThat(o.path("kind").asText()).isEqualTo(kind);
      }
      if (hookResult != null) {
        assertThat(o.path("lifecycle").path("result").asText()).as("%s", o).isEqualTo(hookResult);
      }
    }
  }

  @Test
  void shouldPrintEachSqsRecordsMessageIdInTheTable() {
    String spot = CORPUS.resolve("nth-v2/spot-itn.json").toString();

    int code = run("invoke", "drain", spot, "--sqs", "--node-per-instance");

    assertThat(code).isZero();
    String id = java.util.UUID.nameUUIDFromBytes(readBytes(spot)).toString();
    assertThat(outBytes.toString(StandardCharsets.UTF_8))
        .containsPattern(id + " +(DRAINED|PARTIAL) +spot-interruption +i-0b662ef9931388ba0")
        .doesNotContain("BATCH_OK");
  }

  @Test
  void shouldHeartbeatAndCompleteALifecycleActionAgainstTheSimulatedGroup() throws Exception {
    String hook = CORPUS.resolve("nth/asg-lifecycle-event.json").toString();

    int code = run("invoke", "drain", hook, "--json", "--node-per-instance");

    assertThat(code).isZero();
    JsonNode o = Json.MAPPER.readTree(outBytes.toString(StandardCharsets.UTF_8)).get(0);
    assertThat(o.path("outcome").get(0).path("message").asText())
        .doesNotContain("no Auto Scaling client configured");
    assertThat(o.path("outcome").get(0).path("lifecycle").path("result").asText())
        .isEqualTo("CONTINUE");
  }

  static byte[] readBytes(String file) {
    try {
      return Files.readAllBytes(Path.of(file));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
