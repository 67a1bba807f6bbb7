package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.Settings;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScheduleSettingsTest {
  static Settings env(String... kv) {
    var m = new HashMap<String, String>(Map.of("CLUSTER_NAME", "gpu-prod"));
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return new Settings(m);
  }

  @Test
  void shouldReadDefaults() {
    var s = ScheduleSettings.from(env("SCHEDULE_POLICY", "ssm:/gpufleet/disruption-schedule"));
    assertThat(s.clusterName()).isEqualTo("gpu-prod");
    assertThat(s.dryRun()).isFalse();
    assertThat(s.writeConcurrency()).isEqualTo(64);
    assertThat(s.kubeEvents()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          SCHEDULE_POLICY            | s3://bucket             | is not s3://bucket/key
          SCHEDULE_POLICY            | ssm:no spaces allowed   | is not ssm:/parameter/name
          SCHEDULE_DRY_RUN           | maybe                   | SCHEDULE_DRY_RUN='maybe' is not true or false
          SCHEDULE_WRITE_CONCURRENCY | 0                       | outside the allowed range 1..256
          """)
  void shouldRejectBadValuesNamingTheVariable(String name, String value, String expected) {
    var kv =
        name.equals("SCHEDULE_POLICY")
            ? env(name, value)
            : env("SCHEDULE_POLICY", "s3://b-1/k.yaml", name, value);
    assertThatThrownBy(() -> ScheduleSettings.from(kv)).hasMessageContaining(expected);
  }

  @Test
  void shouldRequireThePolicyLocation() {
    assertThatThrownBy(() -> ScheduleSettings.from(env()))
        .hasMessageContaining("SCHEDULE_POLICY is required");
  }
}
