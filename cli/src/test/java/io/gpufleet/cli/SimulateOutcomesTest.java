package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.gpufleet.core.json.Json;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Refactoring keeps behaviour: {@code gpufleet simulate --json} prints the outcome records it
 * printed when {@code simulate-outcomes.json} was recorded (before the drain's and the cost
 * report's code was split for issue 27), field by field, once what depends on the wall clock is
 * taken out: instants, elapsed times and the grace periods granted from the time left. Anything
 * else that changes — a status, a message, a pod in the wrong list, a record more or less — fails
 * here with the path of the first difference.
 *
 * <p>To record it anew after a change of behaviour that is meant, run this test with {@code
 * -Dgpufleet.simulate.record=PATH} and check the diff of the file it writes.
 */
class SimulateOutcomesTest extends CapturedCli {
  static final String RECORDED = "simulate-outcomes.json";

  /** Fields whose value is a reading of the wall clock, in whatever record they appear. */
  static final Set<String> CLOCK_FIELDS =
      Set.of(
          "receivedAt",
          "firstReceived",
          "deadline",
          "timings",
          "elapsedMs",
          "generatedAt",
          "gracePeriodGranted",
          "attempts",
          "raisedAt",
          "replacementReadyAt",
          "terminatedAt",
          "evictedAt",
          "toldAt",
          "checkpointDone",
          "latestEviction",
          "reported");

  static final Pattern INSTANT = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}.*Z");

  @Test
  void shouldPrintTheOutcomeRecordsItPrintedBeforeTheRefactoring() throws Exception {
    int code =
        run(
            "simulate",
            "--json",
            "--speed",
            "50",
            "--events",
            MainTest.repositoryRoot().resolve("events").toString());
    assertThat(code).as("stderr: %s", err()).isZero();
    JsonNode now = withoutClock(Json.MAPPER.readTree(out()));

    String record = System.getProperty("gpufleet.simulate.record");
    if (record != null) {
      Files.writeString(Path.of(record), Json.writePretty(now) + "\n");
    }
    JsonNode recorded;
    try (InputStream in = getClass().getResourceAsStream(RECORDED)) {
      assertThat(in).as(RECORDED + " on the test class path").isNotNull();
      recorded = Json.MAPPER.readTree(in);
    }
    assertThat(differences(recorded, now, "$")).isEmpty();
    assertThat(now).isEqualTo(recorded);
  }

  @Test
  void shouldTellWhereTwoRecordsDiffer() throws Exception {
    JsonNode a = Json.MAPPER.readTree("[{\"status\":\"DRAINED\",\"podsEvicted\":[\"a\",\"b\"]}]");
    JsonNode b = Json.MAPPER.readTree("[{\"status\":\"PARTIAL\",\"podsEvicted\":[\"a\"]}]");

    assertThat(differences(a, b, "$"))
        .containsExactly(
            "$[0].podsEvicted: 2 entries became 1", "$[0].status: DRAINED became PARTIAL");
  }

  @Test
  void shouldTakeOutOnlyWhatTheClockDecides() throws Exception {
    JsonNode record =
        Json.MAPPER.readTree(
            "[{\"status\":\"DRAINED\",\"receivedAt\":\"2026-12-04T02:35:25.857Z\","
                + "\"note\":\"2026-12-04T02:36:31Z\",\"timings\":{\"cordonedMs\":58}}]");

    assertThat(Json.write(withoutClock(record)))
        .isEqualTo("[{\"status\":\"DRAINED\",\"note\":\"<instant>\"}]");
  }

  /** {@code node} without {@link #CLOCK_FIELDS}, every other instant replaced by a marker. */
  static JsonNode withoutClock(JsonNode node) {
    if (node instanceof ObjectNode o) {
      var copy = Json.MAPPER.createObjectNode();
      o.properties()
          .forEach(
              e -> {
                if (!CLOCK_FIELDS.contains(e.getKey())) {
                  copy.set(e.getKey(), withoutClock(e.getValue()));
                }
              });
      return copy;
    }
    if (node instanceof ArrayNode a) {
      var copy = Json.MAPPER.createArrayNode();
      a.forEach(v -> copy.add(withoutClock(v)));
      return copy;
    }
    if (node.isTextual() && INSTANT.matcher(node.asText()).matches()) {
      return TextNode.valueOf("<instant>");
    }
    return node;
  }

  /** Where {@code b} differs from {@code a}, as JSON paths with both values. */
  static List<String> differences(JsonNode a, JsonNode b, String path) {
    var out = new ArrayList<String>();
    if (a.isObject() && b.isObject()) {
      var names = new java.util.TreeSet<String>();
      a.fieldNames().forEachRemaining(names::add);
      b.fieldNames().forEachRemaining(names::add);
      for (String n : names) {
        if (!a.has(n)) {
          out.add(path + "." + n + ": added " + b.get(n));
        } else if (!b.has(n)) {
          out.add(path + "." + n + ": gone (was " + a.get(n) + ")");
        } else {
          out.addAll(differences(a.get(n), b.get(n), path + "." + n));
        }
      }
    } else if (a.isArray() && b.isArray()) {
      if (a.size() != b.size()) {
        out.add(path + ": " + a.size() + " entries became " + b.size());
      } else {
        for (int i = 0; i < a.size(); i++) {
          out.addAll(differences(a.get(i), b.get(i), path + "[" + i + "]"));
        }
      }
    } else if (!a.equals(b)) {
      out.add(path + ": " + text(a) + " became " + text(b));
    }
    return out;
  }

  private static String text(JsonNode n) {
    return n.isValueNode() ? n.asText() : n.toString();
  }
}
