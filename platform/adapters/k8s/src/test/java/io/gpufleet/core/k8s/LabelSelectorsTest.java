package io.gpufleet.core.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LabelSelectorsTest {
  private static final Map<String, String> TRAINER_POD =
      Map.of("app", "trainer", "tier", "gpu", "team", "ml");

  private static LabelSelector expression(String key, String operator, String... values) {
    return new LabelSelectorBuilder()
        .withMatchExpressions(
            new LabelSelectorRequirement(
                key, operator, values.length == 0 ? null : Arrays.asList(values)))
        .build();
  }

  @Test
  void shouldSelectNothingWithANullSelector() {
    assertThat(LabelSelectors.matches(null, TRAINER_POD)).isFalse();
    assertThat(LabelSelectors.matches(null, Map.of())).isFalse();
  }

  @Test
  void shouldSelectEverythingWithAnEmptySelector() {
    var empty = new LabelSelector();

    assertThat(LabelSelectors.matches(empty, TRAINER_POD)).isTrue();
    assertThat(LabelSelectors.matches(empty, Map.of())).isTrue();
    assertThat(LabelSelectors.matches(empty, null)).isTrue();
    assertThat(
            LabelSelectors.matches(
                new LabelSelectorBuilder().withMatchLabels(Map.of()).build(), Map.of()))
        .isTrue();
  }

  @ParameterizedTest(name = "matchLabels {0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "app=trainer          | true",
        "app=trainer,tier=gpu | true",
        "app=inference        | false",
        "app=trainer,tier=cpu | false",
        "zone=a               | false",
        "App=trainer          | false",
      })
  void shouldRequireEveryMatchLabel(String labels, boolean selected) {
    var matchLabels =
        Arrays.stream(labels.split(","))
            .map(kv -> kv.split("="))
            .collect(java.util.stream.Collectors.toMap(kv -> kv[0], kv -> kv[1]));
    var selector = new LabelSelectorBuilder().withMatchLabels(matchLabels).build();

    assertThat(LabelSelectors.matches(selector, TRAINER_POD)).isEqualTo(selected);
  }

  @ParameterizedTest(name = "{0} {1} [{2}] -> {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "app   | In           | trainer,inference | true",
        "app   | In           | inference         | false",
        "zone  | In           | a,b               | false",
        "app   | NotIn        | inference         | true",
        "app   | NotIn        | trainer,inference | false",
        "zone  | NotIn        | a,b               | true",
        "team  | Exists       |                   | true",
        "zone  | Exists       |                   | false",
        "zone  | DoesNotExist |                   | true",
        "team  | DoesNotExist |                   | false",
        "app   | Gt           | 1                 | false",
      })
  void shouldEvaluateMatchExpressionsLikeTheApiServer(
      String key, String operator, String values, boolean selected) {
    var selector =
        values == null ? expression(key, operator) : expression(key, operator, values.split(","));

    assertThat(LabelSelectors.matches(selector, TRAINER_POD)).isEqualTo(selected);
  }

  @Test
  void shouldTreatInWithoutValuesAsMatchingNothing() {
    assertThat(LabelSelectors.matches(expression("app", "In"), TRAINER_POD)).isFalse();
  }

  @Test
  void shouldRequireMatchLabelsAndEveryExpressionTogether() {
    var selector =
        new LabelSelectorBuilder()
            .withMatchLabels(Map.of("app", "trainer"))
            .withMatchExpressions(
                new LabelSelectorRequirement("tier", "In", List.of("gpu")),
                new LabelSelectorRequirement("preemptible", "DoesNotExist", null))
            .build();

    assertThat(LabelSelectors.matches(selector, TRAINER_POD)).isTrue();
    assertThat(
            LabelSelectors.matches(
                selector, Map.of("app", "trainer", "tier", "gpu", "preemptible", "true")))
        .isFalse();
    assertThat(LabelSelectors.matches(selector, Map.of("app", "other", "tier", "gpu"))).isFalse();
  }

  @Test
  void shouldTreatNullLabelsAsNoLabels() {
    assertThat(LabelSelectors.matches(expression("app", "DoesNotExist"), null)).isTrue();
    assertThat(LabelSelectors.matches(expression("app", "NotIn", "trainer"), null)).isTrue();
    assertThat(LabelSelectors.matches(expression("app", "Exists"), null)).isFalse();
    assertThat(
            LabelSelectors.matches(
                new LabelSelectorBuilder().withMatchLabels(Map.of("app", "trainer")).build(), null))
        .isFalse();
  }
}
