package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A handler follows its settings document: read again at most once a minute, rewired when its text
 * changed, the old wiring closed; a new text that does not wire keeps the working one.
 */
class RewiringTest {
  /** A clock the test moves. */
  static final class Hands extends Clock {
    Instant now = Instant.parse("2026-12-04T03:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }

    void pass(Duration d) {
      now = now.plus(d);
    }
  }

  final Hands clock = new Hands();
  final AtomicInteger probes = new AtomicInteger();
  Supplier<Optional<String>> document = () -> Optional.of("DRAIN_DRY_RUN: false\n");
  String refuse = null;
  final List<String> closed = new ArrayList<>();
  int wired = 0;

  Rewiring<String> rewiring() {
    return Rewiring.of(
        () -> {
          probes.incrementAndGet();
          return document.get();
        },
        () -> {
          var text = document.get().orElse("");
          if (text.strip().equals(refuse)) {
            throw new IllegalStateException("DRAIN_DRYRUN: unknown field");
          }
          return "wiring " + ++wired + " from " + text.strip();
        },
        closed::add,
        clock);
  }

  @Test
  void shouldWireOnceAtInitAndTrustTheReadForAMinute() {
    var r = rewiring();

    assertThat(r.get()).isEqualTo("wiring 1 from DRAIN_DRY_RUN: false");
    clock.pass(Duration.ofSeconds(59));
    document = () -> Optional.of("DRAIN_DRY_RUN: true\n");

    assertThat(r.get()).isEqualTo("wiring 1 from DRAIN_DRY_RUN: false");
    assertThat(probes).hasValue(1);
  }

  @Test
  void shouldRewireWhenTheDocumentChangedAndCloseTheOldWiring() {
    var r = rewiring();
    document = () -> Optional.of("DRAIN_DRY_RUN: true\n");
    clock.pass(Rewiring.PERIOD);

    assertThat(r.get()).isEqualTo("wiring 2 from DRAIN_DRY_RUN: true");
    assertThat(closed).containsExactly("wiring 1 from DRAIN_DRY_RUN: false");

    // the same text again: no new wiring
    clock.pass(Rewiring.PERIOD);
    assertThat(r.get()).isEqualTo("wiring 2 from DRAIN_DRY_RUN: true");
    assertThat(wired).isEqualTo(2);
  }

  @Test
  void shouldRewireWhenTheDocumentIsDeleted() {
    var r = rewiring();
    document = Optional::empty;
    clock.pass(Rewiring.PERIOD);

    assertThat(r.get()).isEqualTo("wiring 2 from ");
  }

  @Test
  void shouldKeepTheWorkingWiringWhenTheNewDocumentIsRefusedAndTryOnlyANewText() {
    var r = rewiring();
    refuse = "DRAIN_DRYRUN: true";
    document = () -> Optional.of("DRAIN_DRYRUN: true");
    clock.pass(Rewiring.PERIOD);

    assertThat(r.get()).isEqualTo("wiring 1 from DRAIN_DRY_RUN: false");
    clock.pass(Rewiring.PERIOD);
    assertThat(r.get()).isEqualTo("wiring 1 from DRAIN_DRY_RUN: false");
    assertThat(wired).isEqualTo(1);
    assertThat(closed).isEmpty();

    // fixed: wired from the fixed text
    document = () -> Optional.of("DRAIN_DRY_RUN: true");
    clock.pass(Rewiring.PERIOD);
    assertThat(r.get()).isEqualTo("wiring 2 from DRAIN_DRY_RUN: true");
  }

  @Test
  void shouldKeepTheWiringWhenTheDocumentCannotBeRead() {
    var r = rewiring();
    document =
        () -> {
          throw new IllegalStateException("ThrottlingException");
        };
    clock.pass(Rewiring.PERIOD);

    assertThat(r.get()).isEqualTo("wiring 1 from DRAIN_DRY_RUN: false");
    assertThat(closed).isEmpty();
  }

  @Test
  void shouldFailInitWhenTheFirstDocumentDoesNotWire() {
    refuse = "DRAIN_DRY_RUN: false";

    assertThatThrownBy(this::rewiring).hasMessage("DRAIN_DRYRUN: unknown field");
  }
}
