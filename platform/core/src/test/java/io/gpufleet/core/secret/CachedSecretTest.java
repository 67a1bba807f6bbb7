package io.gpufleet.core.secret;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.time.VirtualTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CachedSecretTest {
  static final SecretRef REF =
      new SecretRef.SecretsManagerSecret(
          "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/slack-AbCdEf");

  /** A store that answers the queued values in turn and records each read. */
  static final class FakeStore implements SecretPort {
    final List<String> values = new ArrayList<>();
    final List<SecretRef> reads = new ArrayList<>();

    @Override
    public String read(SecretRef ref) {
      reads.add(ref);
      if (values.isEmpty()) {
        throw new IllegalStateException("FakeStore: no value queued for " + ref);
      }
      return values.size() == 1 ? values.get(0) : values.remove(0);
    }
  }

  final FakeStore store = new FakeStore();
  final VirtualTime time = new VirtualTime(Instant.parse("2026-12-01T03:00:00Z"));
  final Clock clock = time.clock();

  @Test
  void shouldNotReadTheStoreUntilFirstUse() {
    // Given a secret built the way init builds it
    var secret = new CachedSecret(REF, store, Duration.ofMinutes(5), clock);

    // Then nothing was read (a SnapStart snapshot taken now holds no value)
    assertThat(store.reads).isEmpty();
    assertThat(secret.holdsValue()).isFalse();
  }

  @Test
  void shouldServeTheCachedValueWithinTheTtlAndReadAgainAfterIt() {
    // Given a value that is rotated between the second and third read
    store.values.addAll(List.of("first", "rotated"));
    var secret = new CachedSecret(REF, store, Duration.ofMinutes(5), clock);

    // When / Then
    assertThat(secret.get()).isEqualTo("first");
    time.advance(Duration.ofMinutes(4).plusSeconds(59));
    assertThat(secret.get()).isEqualTo("first");
    assertThat(store.reads).hasSize(1);
    time.advance(Duration.ofSeconds(1));
    assertThat(secret.get()).isEqualTo("rotated");
    assertThat(store.reads).containsExactly(REF, REF);
  }

  @Test
  void shouldDropTheValueBeforeACheckpoint() throws Exception {
    // Given a value read during init (e.g. by a priming path)
    store.values.add("value");
    var secret = new CachedSecret(REF, store, Duration.ofHours(1), clock);
    secret.get();

    // When the snapshot is about to be taken
    secret.beforeCheckpoint(null);

    // Then the snapshot holds no value and the first use after restore reads the store again
    assertThat(secret.holdsValue()).isFalse();
    secret.get();
    assertThat(store.reads).hasSize(2);
  }

  @Test
  void shouldReadAgainAfterInvalidate() {
    store.values.add("value");
    var secret = new CachedSecret(REF, store, Duration.ofHours(1), clock);
    secret.get();

    secret.invalidate();
    secret.get();

    assertThat(store.reads).hasSize(2);
  }

  @Test
  void shouldParseASecretsManagerArn() {
    var arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/slack-AbCdEf";
    assertThat(SecretRef.parse("S", arn)).isEqualTo(new SecretRef.SecretsManagerSecret(arn));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "gpufleet/slack-webhook",
        "ssm:/gpufleet/slack-webhook",
        "arn:aws:ssm:us-east-1:123456789012:parameter/x",
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:"
      })
  void shouldRefuseAnythingButAReferenceWithoutEchoingIt(String value) {
    assertThatThrownBy(() -> SecretRef.parse("SLACK_WEBHOOK_SECRET", value))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "SLACK_WEBHOOK_SECRET must be the ARN of the Secrets Manager secret")
        .message()
        .doesNotContain(value);
  }
}
