package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterListTest {
  @Test
  void shouldKeepASingleClusterStackAsAListOfOne() {
    var list = ClusterList.from(new Settings(Map.of("CLUSTER_NAME", "prod-gpu")));

    assertThat(list.names()).containsExactly("prod-gpu");
    assertThat(list.many()).isFalse();
    assertThat(list.negativeTtl()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void shouldAppendTheListedClustersInOrderDroppingBlanksAndRepeats() {
    // the template joins DrainAdditionalClusterNames, so its empty default arrives as ""
    var list =
        ClusterList.from(
            new Settings(
                Map.of(
                    "CLUSTER_NAME", "prod-gpu",
                    "CLUSTER_NAMES", " research , ,prod-gpu,batch_2,",
                    "ROUTING_NEGATIVE_TTL", "0")));

    assertThat(list.names()).containsExactly("prod-gpu", "research", "batch_2");
    assertThat(list.negativeTtl()).isZero();
  }

  @Test
  void shouldNameABadClusterNameBeforeAnythingRuns() {
    assertThatThrownBy(
            () ->
                ClusterList.from(
                    new Settings(Map.of("CLUSTER_NAME", "prod", "CLUSTER_NAMES", "ok,-bad"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'-bad'");
  }

  @Test
  void shouldRefuseANegativeCacheTtlAboveAnHour() {
    assertThatThrownBy(
            () ->
                ClusterList.from(
                    new Settings(Map.of("CLUSTER_NAME", "prod", "ROUTING_NEGATIVE_TTL", "2h"))))
        .isInstanceOf(ConfigException.class);
  }
}
