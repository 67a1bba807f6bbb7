package io.gpufleet.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.time.VirtualTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cluster's own behaviour (pods terminating, replacements) runs on its time source. */
class SimClusterTimeTest {
  static final Instant START = Instant.parse("2026-11-29T12:00:00Z");
  final VirtualTime time = new VirtualTime(START);
  SimCluster cluster;
  KubernetesClient client;

  @BeforeEach
  void start() {
    cluster = SimCluster.start(time);
    client = cluster.newClient();
    cluster.create(
        SimCluster.gpuNode(
            "gpu-a", "i-0aaaaaaaaaaaaaaa1", "us-east-1a", "g6e.xlarge", "spot", "p", null, 1));
    cluster.create(
        SimCluster.gpuNode(
            "gpu-b", "i-0bbbbbbbbbbbbbbb2", "us-east-1a", "g6e.xlarge", "spot", "p", null, 1));
    cluster.create(
        SimCluster.runningPod(
            "apps", "web-0", "gpu-a", "StatefulSet", "web", Map.of("app", "web"), 30, 0));
  }

  @AfterEach
  void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void shouldRemoveAnEvictedPodExactlyWhenItsTerminationTimeHasPassed() {
    cluster.setTerminationTime(p -> Duration.ofSeconds(20));
    time.advance(Duration.ofSeconds(7));

    assertThat(client.pods().inNamespace("apps").withName("web-0").evict()).isTrue();

    // deletionTimestamp is, as the API server sets it, the end of the granted grace (30 s)
    var terminating = cluster.pod("apps", "web-0").orElseThrow();
    assertThat(terminating.getMetadata().getDeletionTimestamp())
        .isEqualTo(START.plusSeconds(7 + 30).toString());
    assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30);
    time.advance(Duration.ofSeconds(20).minusNanos(1));
    assertThat(client.pods().inNamespace("apps").withName("web-0").get()).isNotNull();
    time.advance(Duration.ofNanos(1));
    assertThat(client.pods().inNamespace("apps").withName("web-0").get()).isNull();
  }

  @Test
  void shouldCapTheTerminationAtTheGrantedGracePeriod() {
    cluster.setTerminationTime(p -> Duration.ofMinutes(5));

    client
        .pods()
        .inNamespace("apps")
        .withName("web-0")
        .evict(
            new io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder()
                .withNewMetadata()
                .withName("web-0")
                .withNamespace("apps")
                .endMetadata()
                .withDeleteOptions(
                    new io.fabric8.kubernetes.api.model.DeleteOptionsBuilder()
                        .withGracePeriodSeconds(12L)
                        .build())
                .build());

    time.advance(Duration.ofSeconds(11));
    assertThat(cluster.podsOn("gpu-a")).hasSize(1);
    time.advance(Duration.ofSeconds(1));
    assertThat(cluster.podsOn("gpu-a")).isEmpty();
  }

  @Test
  void shouldStartAReplacementElsewhereAfterTheDelay() {
    cluster.setTerminationTime(p -> Duration.ofSeconds(10));
    cluster.enableReplacements(Duration.ofSeconds(15));

    client.pods().inNamespace("apps").withName("web-0").evict();

    time.advance(Duration.ofSeconds(24));
    assertThat(cluster.replacementsStarted()).isZero();
    time.advance(Duration.ofSeconds(1));
    assertThat(cluster.replacementsStarted()).isEqualTo(1);
    assertThat(cluster.podsOn("gpu-b"))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("web-0");
  }

  @Test
  void shouldActAtTheTimeTheSendingThreadStampedOnTheRequest() throws Exception {
    cluster.setTerminationTime(p -> Duration.ofSeconds(20));
    // a worker thread whose own time has run 60 s ahead of the test thread evicts the pod
    Thread worker =
        Thread.ofPlatform()
            .unstarted(
                () -> {
                  try {
                    time.sleeper().sleep(Duration.ofSeconds(60));
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  client.pods().inNamespace("apps").withName("web-0").evict();
                });
    worker.start();
    worker.join();

    // the eviction happened at the worker's +60 s (deletionTimestamp: that + the 30 s grace), and
    // the pod goes 20 s after it
    assertThat(cluster.pod("apps", "web-0").orElseThrow().getMetadata().getDeletionTimestamp())
        .isEqualTo(START.plusSeconds(60 + 30).toString());
    assertThat(time.now()).isEqualTo(START.plusSeconds(60));
    time.advance(Duration.ofSeconds(20));
    assertThat(cluster.pod("apps", "web-0")).isEmpty();
  }
}
