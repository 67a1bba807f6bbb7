package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.secret.SecretPort;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SlackWebhookValidationTest {
  static final String TOKEN = "XXXXsecretXXXXtokenXXXX";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://hooks.slack.com/services/T0000/B0000/" + TOKEN,
        "https://HOOKS.slack.com/services/T0000/B0000/" + TOKEN,
        "https://hooks.slack.com:443/workflows/T0000/A0000/1/" + TOKEN,
        "https://hooks.slack.com/triggers/T0000/1/" + TOKEN,
        "  https://hooks.slack.com/services/T0000/B0000/" + TOKEN + "\n"
      })
  void shouldAcceptSlackWebhookAddresses(String url) {
    assertThat(
            SlackWebhookAdapter.validate(
                    url, "arn:aws:secretsmanager:us-east-1:123456789012:secret:w-AbCdEf")
                .getHost())
        .isEqualToIgnoringCase("hooks.slack.com");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "http://hooks.slack.com/services/T/B/" + TOKEN + "| scheme 'http'",
        "https://hooks.slack.com.attacker.example/services/T/B/"
            + TOKEN
            + "| host 'hooks.slack.com.attacker.example'",
        "https://attacker.example/services/T/B/" + TOKEN + "| host 'attacker.example'",
        "https://user@hooks.slack.com/services/T/B/" + TOKEN + "| user info or a port",
        "https://hooks.slack.com:8443/services/T/B/" + TOKEN + "| user info or a port",
        "https://hooks.slack.com/api/" + TOKEN + "| URL that is no webhook",
        "https://hooks.slack.com/services/| URL that is no webhook",
        "xoxb-" + TOKEN + "| scheme 'null'",
        "https://hooks.slack.com/services/T/B/" + TOKEN + " x| does not hold a valid URL"
      })
  void shouldRefuseOtherAddressesNamingWhatIsWrongButNotThePath(String url, String problem) {
    assertThatThrownBy(
            () ->
                SlackWebhookAdapter.validate(
                    url, "arn:aws:secretsmanager:us-east-1:123456789012:secret:s-AbCdEf"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "Slack webhook secret arn:aws:secretsmanager:us-east-1:123456789012:secret:s-AbCdEf ")
        .hasMessageContaining(problem)
        .message()
        .doesNotContain(TOKEN);
  }

  @Test
  void shouldRefuseAWebhookUrlInTheEnvironmentWithoutEchoingIt() {
    var url = "https://hooks.slack.com/services/T/B/" + TOKEN;
    var env = new Settings(Map.of("SLACK_WEBHOOK_URL", url));
    SecretPort never =
        ref -> {
          throw new AssertionError("no secret may be read at wiring");
        };

    assertThatThrownBy(
            () ->
                OutcomeSinks.fromEnvironment(
                    env,
                    () -> {
                      throw new AssertionError("no AWS client needed");
                    },
                    "test",
                    never,
                    Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SLACK_WEBHOOK_SECRET")
        .message()
        .doesNotContain(TOKEN);
  }

  @Test
  void shouldWireASlackNotifierWithoutReadingTheSecret() {
    var env =
        new Settings(
            Map.of(
                "SLACK_WEBHOOK_SECRET",
                "arn:aws:secretsmanager:us-east-1:123456789012:secret:gpufleet/slack-AbCdEf"));
    SecretPort never =
        ref -> {
          throw new AssertionError("the secret must not be read at init");
        };

    var sinks =
        OutcomeSinks.fromEnvironment(
            env,
            () -> {
              throw new AssertionError("no AWS client needed at init");
            },
            "test",
            never,
            Clock.systemUTC());

    assertThat(sinks.notifier()).isNotNull();
  }

  @Test
  void shouldRefuseAMalformedSecretReferenceAtWiring() {
    var env = new Settings(Map.of("SLACK_WEBHOOK_SECRET", "slack-webhook"));

    assertThatThrownBy(
            () ->
                OutcomeSinks.fromEnvironment(
                    env, () -> null, "test", ref -> "unused", Clock.systemUTC()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "SLACK_WEBHOOK_SECRET must be the ARN of the Secrets Manager secret");
  }
}
