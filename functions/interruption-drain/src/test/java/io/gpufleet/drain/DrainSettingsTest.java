package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.drain.model.Action;
import io.gpufleet.drain.model.DrainKind;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The drain's environment: DRAIN_ACTIONS and the other DRAIN_* variables, with precise errors. */
class DrainSettingsTest {

  static DrainSettings from(String... keyValues) {
    var env = new HashMap<String, String>();
    env.put("CLUSTER_NAME", "gpu-prod");
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return DrainSettings.from(new Settings(env));
  }

  @Nested
  class Actions {
    @ParameterizedTest
    @ValueSource(strings = {"", "   ", ";", " ; \n "})
    void shouldKeepTheDefaultsWhenNothingIsConfigured(String text) {
      var actions = DrainSettings.parseActions(text);

      assertThat(actions)
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  DrainKind.SPOT_INTERRUPTION,
                      EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN),
                  DrainKind.HEALTH_SCHEDULED, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN),
                  DrainKind.REBALANCE, EnumSet.of(Action.TAINT, Action.CORDON),
                  DrainKind.STATE_CHANGE, EnumSet.of(Action.CORDON, Action.DRAIN),
                  DrainKind.ASG_TERMINATE, EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN),
                  DrainKind.ASG_LAUNCH, EnumSet.noneOf(Action.class),
                  DrainKind.CAPACITY_RESERVATION_INTERRUPTION,
                      EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN),
                  DrainKind.CAPACITY_BLOCK_EXPIRING,
                      EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN)));
    }

    @Test
    void shouldKeepTheDefaultsWhenTheVariableIsUnset() {
      assertThat(from().actions()).isEqualTo(DrainSettings.defaultActions());
      assertThat(DrainSettings.parseActions(null)).isEqualTo(DrainSettings.defaultActions());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
        delimiter = '|',
        value = {
          "rebalance=taint+cordon+drain        | rebalance         | TAINT CORDON DRAIN",
          "rebalance = Taint , CORDON          | rebalance         | TAINT CORDON",
          "spot-interruption=cordon+drain      | spot-interruption | CORDON DRAIN",
          "state-change=taint+cordon+drain;    | state-change      | TAINT CORDON DRAIN",
          "health-scheduled=taint              | health-scheduled  | TAINT",
          "health-scheduled=none               | health-scheduled  | ''",
          "spot-interruption=NONE              | spot-interruption | ''",
        })
    void shouldOverrideOnlyTheNamedKind(String text, String kindLabel, String expected) {
      // When
      var actions = DrainSettings.parseActions(text);

      // Then the named kind has exactly what was asked
      var kind = DrainKind.byLabel(kindLabel).orElseThrow();
      var want = EnumSet.noneOf(Action.class);
      for (String a : expected.split(" ")) {
        if (!a.isBlank()) {
          want.add(Action.valueOf(a));
        }
      }
      assertThat(actions.get(kind)).isEqualTo(want);
      // and every other kind keeps its default
      DrainSettings.defaultActions().entrySet().stream()
          .filter(e -> e.getKey() != kind)
          .forEach(e -> assertThat(actions.get(e.getKey())).isEqualTo(e.getValue()));
    }

    @Test
    void shouldReadSeveralEntriesSeparatedBySemicolonsOrNewlines() {
      var actions =
          from("DRAIN_ACTIONS", "rebalance=none;\nstate-change=taint+cordon+drain\n").actions();

      assertThat(actions.get(DrainKind.REBALANCE)).isEmpty();
      assertThat(actions.get(DrainKind.STATE_CHANGE))
          .isEqualTo(EnumSet.of(Action.TAINT, Action.CORDON, Action.DRAIN));
      assertThat(actions.get(DrainKind.SPOT_INTERRUPTION))
          .isEqualTo(Set.of(Action.TAINT, Action.CORDON, Action.DRAIN));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
        delimiter = '|',
        value = {
          "spot=taint+cordon+drain             | unknown kind 'spot'",
          "Rebalance=taint                     | unknown kind 'Rebalance'",
          "rebalance=taint+evict               | unknown action 'evict' for rebalance",
          "rebalance=taint++cordon             | unknown action '' for rebalance",
          "state-change=drain                  | state-change drains without cordon",
          "spot-interruption=taint+drain       | spot-interruption drains without cordon",
          "rebalance                           | 'rebalance' is not KIND=ACTION+ACTION",
          "rebalance=taint;bogus-kind=cordon   | unknown kind 'bogus-kind'",
        })
    void shouldRejectAMistakeNamingTheOffendingPart(String text, String message) {
      assertThatThrownBy(() -> DrainSettings.parseActions(text))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DRAIN_ACTIONS")
          .hasMessageContaining(message);
    }

    @Test
    void shouldListTheKnownKindsWhenAKindIsUnknown() {
      assertThatThrownBy(() -> from("DRAIN_ACTIONS", "spot=cordon"))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("spot-interruption, rebalance, state-change, health-scheduled");
    }
  }

  @Nested
  class TaintKey {
    @ParameterizedTest
    @ValueSource(
        strings = {
          "gpufleet.io/interruption",
          "interruption",
          "aws-node-termination-handler/spot-itn",
          "karpenter.sh/disrupted",
          "example.com/My_Key.v2",
          "a",
        })
    void shouldAcceptAValidTaintKey(String key) {
      assertThat(from("DRAIN_TAINT_KEY", key).taintKey()).isEqualTo(key);
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "-interruption",
          "interruption-",
          "Example.com/key",
          "a/b/c",
          "gpufleet.io/",
          "/interruption",
          "has space",
          "key=value",
          "gpufleet.io/bad:key",
          "gpufleet..io/key",
          "gpufleet.-io/key",
        })
    void shouldRejectAnInvalidTaintKeyNamingIt(String key) {
      assertThatThrownBy(() -> from("DRAIN_TAINT_KEY", key))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DRAIN_TAINT_KEY")
          .hasMessageContaining(key);
    }

    @Test
    void shouldRejectATaintKeyWhoseNameIsLongerThanKubernetesAllows() {
      // Kubernetes qualified names: the part after the prefix is at most 63 characters
      String key = "gpufleet.io/" + "k".repeat(64);

      assertThatThrownBy(() -> from("DRAIN_TAINT_KEY", key))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DRAIN_TAINT_KEY");
    }

    @Test
    void shouldRejectATaintKeyWhosePrefixIsLongerThanKubernetesAllows() {
      // the prefix is a DNS subdomain: at most 253 characters
      String key =
          "a".repeat(60)
              + "."
              + "b".repeat(60)
              + "."
              + "c".repeat(60)
              + "."
              + "d".repeat(80)
              + "/key";

      assertThatThrownBy(() -> from("DRAIN_TAINT_KEY", key))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DRAIN_TAINT_KEY");
    }

    @Test
    void shouldAcceptTheLongestValidTaintKey() {
      String key =
          "a".repeat(63)
              + "."
              + "b".repeat(63)
              + "."
              + "c".repeat(63)
              + "."
              + "d".repeat(61)
              + "/"
              + "k".repeat(63);

      assertThat(from("DRAIN_TAINT_KEY", key).taintKey()).isEqualTo(key);
    }

    @Test
    void shouldDefaultTheTaintKey() {
      assertThat(from().taintKey()).isEqualTo("gpufleet.io/interruption");
    }
  }

  @Nested
  class Others {
    @ParameterizedTest
    @ValueSource(strings = {"", "  "})
    void shouldRequireTheClusterName(String value) {
      var env = new HashMap<String, String>();
      if (!value.isEmpty()) {
        env.put("CLUSTER_NAME", value);
      }

      assertThatThrownBy(() -> DrainSettings.from(new Settings(env)))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("CLUSTER_NAME");
    }

    @Test
    void shouldMatchTheDocumentedDefaults() {
      assertThat(from()).isEqualTo(DrainSettings.defaults("gpu-prod"));
    }

    @ParameterizedTest
    @CsvSource({"1, 1", "128, 128", "1000, 1000"})
    void shouldAcceptAnEvictionConcurrencyInRange(String value, int expected) {
      assertThat(from("DRAIN_EVICTION_CONCURRENCY", value).evictionConcurrency())
          .isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "1001", "many", "1.5"})
    void shouldRejectAnEvictionConcurrencyOutOfRange(String value) {
      assertThatThrownBy(() -> from("DRAIN_EVICTION_CONCURRENCY", value))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DRAIN_EVICTION_CONCURRENCY")
          .hasMessageContaining(value);
    }

    @ParameterizedTest
    @CsvSource({"15, 15", "30s, 30", "90s, 90", "1m, 60", "0, 0"})
    void shouldReadTheDeadlineMargin(String value, long seconds) {
      assertThat(from("DRAIN_DEADLINE_MARGIN", value).deadlineMargin())
          .isEqualTo(Duration.ofSeconds(seconds));
    }

    @ParameterizedTest
    @ValueSource(strings = {"91s", "2m", "ten"})
    void shouldRejectADeadlineMarginBeyondNinetySecondsOrUnreadable(String value) {
      assertThatThrownBy(() -> from("DRAIN_DEADLINE_MARGIN", value))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DRAIN_DEADLINE_MARGIN");
    }

    @Test
    void shouldReadTheSwitches() {
      var s =
          from(
              "DRAIN_SKIP_DAEMONSETS", "false",
              "DRAIN_FORCE_DELETE", "yes",
              "DRAIN_EXCLUDE_FROM_LB", "off");

      assertThat(s.skipDaemonSets()).isFalse();
      assertThat(s.forceDeleteAtDeadline()).isTrue();
      assertThat(s.excludeFromLoadBalancers()).isFalse();
    }

    @Test
    void shouldRejectASwitchThatIsNotABoolean() {
      assertThatThrownBy(() -> from("DRAIN_FORCE_DELETE", "maybe"))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DRAIN_FORCE_DELETE");
    }
  }
}
