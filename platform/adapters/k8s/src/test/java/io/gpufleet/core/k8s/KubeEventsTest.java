package io.gpufleet.core.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class KubeEventsTest {
  static final Instant NOW = Instant.parse("2026-12-01T07:10:42.123Z");

  @Test
  void shouldDescribeTheObjectTheFunctionActedOn() {
    var node = new ObjectReferenceBuilder().withApiVersion("v1").withKind("Node").withName("n1");

    var e = KubeEvents.event(NOW, "gpufleet-x", "default", node.build(), true, "Drain", "msg");

    assertThat(e.getMetadata().getName()).startsWith("n1.").hasSize("n1.".length() + 12);
    assertThat(e.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
    assertThat(e.getType()).isEqualTo("Warning");
    assertThat(e.getSource().getComponent()).isEqualTo("gpufleet-x");
    assertThat(e.getFirstTimestamp()).isEqualTo("2026-12-01T07:10:42Z");
    assertThat(e.getCount()).isEqualTo(1);
  }

  @Test
  void shouldCutALongMessageAndNameEachEventApart() {
    var ref = new ObjectReferenceBuilder().withKind("NodePool").withName("p").build();

    var a = KubeEvents.event(NOW, "c", "default", ref, false, "R", "x".repeat(5000));
    var b = KubeEvents.event(NOW, "c", "default", ref, false, "R", "short");

    assertThat(a.getMessage()).hasSize(KubeEvents.MAX_MESSAGE);
    assertThat(a.getType()).isEqualTo("Normal");
    assertThat(a.getMetadata().getName()).isNotEqualTo(b.getMetadata().getName());
  }
}
