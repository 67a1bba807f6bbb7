package io.gpufleet.core.lambda;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A handler's entry, rebuilt when the function's settings document changes. The entry is wired at
 * init from the document of that moment; with SnapStart, init ran when the version was published,
 * maybe hours before. So before an event is handled, at most once per {@link #PERIOD}, the
 * document's current text is read ({@code probe}: one GetParameter) and compared with the text the
 * entry was built from. A different text wires a new entry before this event; the old one is
 * closed.
 *
 * <p>A document that no longer wires (it fails its schema, say) keeps the entry that works and logs
 * the reason at ERROR, once per text: an interruption must not go unhandled over a typo, and {@code
 * gpufleet doctor} names the problem. A probe that fails (throttled, denied) keeps the entry too
 * and is tried again at the next check.
 */
public final class Rewiring<E> implements Supplier<E> {
  /** How long a read of the document is trusted. */
  public static final Duration PERIOD = Duration.ofMinutes(1);

  private static final Logger LOG = LoggerFactory.getLogger(Rewiring.class);

  private final Supplier<Optional<String>> probe;
  private final Supplier<E> wire;
  private final java.util.function.Consumer<E> close;
  private final Clock clock;
  private E current;
  private Optional<String> built;

  /** The text last refused (null: none), not tried again. */
  private Optional<String> refused;

  private Instant checked;

  private Rewiring(
      Supplier<Optional<String>> probe,
      Supplier<E> wire,
      java.util.function.Consumer<E> close,
      Clock clock) {
    this.probe = probe;
    this.wire = wire;
    this.close = close;
    this.clock = clock;
    this.built = probe.get();
    this.checked = clock.instant();
    this.current = wire.get();
  }

  /**
   * Reads the document ({@code probe}), then wires the first entry: both at init, so a document
   * init cannot use fails init.
   */
  public static <E> Rewiring<E> of(
      Supplier<Optional<String>> probe,
      Supplier<E> wire,
      java.util.function.Consumer<E> close,
      Clock clock) {
    return new Rewiring<>(probe, wire, close, clock);
  }

  /** The entry for this event: the current one, or a new one when the document changed. */
  @Override
  public synchronized E get() {
    Instant now = clock.instant();
    if (Duration.between(checked, now).compareTo(PERIOD) < 0) {
      return current;
    }
    checked = now;
    Optional<String> text;
    try {
      text = probe.get();
    } catch (RuntimeException e) {
      LOG.warn("settings document not read, keeping the current settings: {}", e.getMessage());
      return current;
    }
    if (text.equals(built) || text.equals(refused)) {
      return current;
    }
    E next;
    try {
      next = wire.get();
    } catch (RuntimeException e) {
      refused = text;
      LOG.error(
          "settings document changed but is refused, keeping the previous settings: {}",
          e.getMessage());
      return current;
    }
    E old = current;
    current = next;
    built = text;
    refused = null;
    LOG.info("settings document changed: the function is wired from the new one");
    if (!Objects.equals(old, next)) {
      close.accept(old);
    }
    return current;
  }

  /** When the current entry's document was last read. */
  synchronized Instant checked() {
    return checked;
  }
}
