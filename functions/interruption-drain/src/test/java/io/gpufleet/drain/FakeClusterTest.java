package io.gpufleet.drain;

import static io.gpufleet.drain.FakeCluster.evicted;
import static io.gpufleet.drain.FakeCluster.tooManyRequests;
import static io.gpufleet.drain.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.NodeChange;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fake the drainer tests rely on: it fails by default and does what it is scripted to do. */
class FakeClusterTest {
  final VirtualTime time = new VirtualTime(Instant.parse("2026-11-29T12:00:00Z"));
  final FakeCluster cluster = new FakeCluster(time.clock());

  @Test
  void shouldFailAnEvictionNobodyScripted() {
    cluster.givenNode(TestPods.node("gpu-a", "i-0aaaaaaaaaaaaaaa1"), pod("apps/web-0"));

    assertThatThrownBy(() -> cluster.evict(pod("apps/web-0"), 30))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("apps/web-0");
  }

  @Test
  void shouldFailWhenTheScriptedAnswersRunOut() {
    cluster.onEvict("apps/web-0").answer(tooManyRequests(), 2);

    cluster.evict(pod("apps/web-0"), 30);
    cluster.evict(pod("apps/web-0"), 30);

    assertThatThrownBy(() -> cluster.evict(pod("apps/web-0"), 30))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("no eviction answer left");
  }

  @Test
  void shouldFailOnAnUnknownNodeAndOnBudgetsNobodyGave() {
    assertThatThrownBy(() -> cluster.podsOnNode("nowhere")).isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> cluster.patchNode(TestPods.node("nowhere", "i-0"), change(false)))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> cluster.budgetsFor(List.of(pod("apps/web-0"))))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void shouldAnswerInScriptOrderAndRemoveEvictedPods() {
    cluster.givenNode(TestPods.node("gpu-a", "i-0aaaaaaaaaaaaaaa1"), pod("apps/web-0"));
    cluster.onEvict("apps/web-0").answer(tooManyRequests()).answer(evicted());

    var first = cluster.evict(pod("apps/web-0"), 30);
    time.advance(Duration.ofSeconds(1));
    var second = cluster.evict(pod("apps/web-0"), 29);

    assertThat(first).isInstanceOf(EvictionResult.Blocked.class);
    assertThat(second).isInstanceOf(EvictionResult.Evicted.class);
    assertThat(cluster.podsLeftOn("gpu-a")).isEmpty();
    assertThat(cluster.evictionsOf("apps/web-0"))
        .extracting(FakeCluster.Evict::gracePeriodSeconds)
        .containsExactly(30L, 29L);
    assertThat(cluster.evictionsOf("apps/web-0").get(1).at())
        .isEqualTo(Instant.parse("2026-11-29T12:00:01Z"));
  }

  @Test
  void shouldRefuseAGuardedPatchOfANodeThatChangedSinceItWasRead() {
    var read = TestPods.node("gpu-a", "i-0aaaaaaaaaaaaaaa1");
    cluster.givenNode(read);

    boolean first = cluster.patchNode(read, change(true));
    boolean stale = cluster.patchNode(read, change(true));

    assertThat(first).isTrue();
    assertThat(stale).isFalse();
    assertThat(cluster.node("gpu-a").unschedulable()).isTrue();
  }

  @Test
  void shouldForgetEverythingOnReset() {
    cluster.givenNode(TestPods.node("gpu-a", "i-0aaaaaaaaaaaaaaa1"), pod("apps/web-0"));
    cluster.onEvict("apps/web-0").forever(evicted());
    cluster.givenBudgets(Map.of());
    cluster.podsOnNode("gpu-a");

    cluster.reset();

    assertThat(cluster.calls()).isEmpty();
    assertThatThrownBy(() -> cluster.podsOnNode("gpu-a")).isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> cluster.evict(pod("apps/web-0"), 30))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> cluster.budgetsFor(List.of())).isInstanceOf(AssertionError.class);
  }

  static NodeChange change(boolean guarded) {
    return new NodeChange(null, true, Map.of(), Map.of(), guarded);
  }
}
