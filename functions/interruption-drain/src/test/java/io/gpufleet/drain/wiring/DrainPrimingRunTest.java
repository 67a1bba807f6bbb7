package io.gpufleet.drain.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.lambda.ProcSockets;
import org.junit.jupiter.api.Test;

class DrainPrimingRunTest {
  @Test
  void shouldRunACompleteDrainAgainstTheLoopbackClusterAndLeaveNoSocket() {
    // Given a priming node of 24 pods, 2 of them under a budget refusing their first eviction
    // When the priming drain runs twice
    var result = DrainPrimingRun.run(2, DrainPrimingRun.PODS, DrainPrimingRun.GUARDED);

    // Then every round drained its node: cordoned (claim + taint patches), each pod evicted, the
    // refusals retried, no request the loopback cluster does not model
    assertThat(result.unexpected()).isEmpty();
    assertThat(result.answer()).contains("\"status\":\"DRAINED\"");
    assertThat(result.evictions()).isEqualTo(2L * DrainPrimingRun.PODS);
    assertThat(result.refusals()).isEqualTo(2L * DrainPrimingRun.GUARDED);
    assertThat(result.patches()).isGreaterThanOrEqualTo(2);
    assertThat(result.podsLeft()).isZero();
    // and nothing of it is open any more: no listening port, no client connection to it
    assertThat(ProcSockets.touching(result.port())).isEmpty();
  }

  @Test
  void shouldSeeTheSocketsOfAServerThatIsStillOpen() throws Exception {
    // the check above is worth something only if it sees an open server and its connections
    var cluster = new PrimingCluster(1, 0);
    try (var server = io.gpufleet.core.lambda.LoopbackHttps.start(cluster)) {
      assertThat(ProcSockets.touching(server.port()))
          .extracting(ProcSockets.Socket::state)
          .contains("LISTEN");
    }
  }
}
