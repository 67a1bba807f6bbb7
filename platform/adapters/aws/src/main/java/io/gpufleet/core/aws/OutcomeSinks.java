package io.gpufleet.core.aws;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.secret.CachedSecret;
import io.gpufleet.core.secret.SecretPort;
import io.gpufleet.core.secret.SecretRef;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.function.Supplier;

/**
 * Where a function's outcomes go, from the environment every function shares: {@code
 * OUTCOME_EVENT_BUS} (EventBridge), {@code NOTIFY_TOPIC_ARN} (SNS) and {@code SLACK_WEBHOOK_SECRET}
 * (the ARN of the Secrets Manager secret holding the Slack webhook URL; the URL itself is read on
 * first use, never at init, and cached for {@code SECRET_CACHE_TTL}). AWS clients are built only
 * for the sinks that are configured.
 */
public record OutcomeSinks(EventPublisherPort publisher, NotifierPort notifier) {
  public static final String SLACK_SECRET = "SLACK_WEBHOOK_SECRET";
  public static final String SECRET_TTL = "SECRET_CACHE_TTL";
  static final Duration DEFAULT_SECRET_TTL = Duration.ofMinutes(5);

  public static OutcomeSinks fromEnvironment(
      Settings env, Supplier<AwsClients> aws, String eventSource) {
    return fromEnvironment(
        env, aws, eventSource, new SecretsManagerAdapter(aws), Clock.systemUTC());
  }

  public static OutcomeSinks fromEnvironment(
      Settings env, Supplier<AwsClients> aws, String eventSource, SecretPort secrets, Clock clock) {
    if (env.optional("SLACK_WEBHOOK_URL").isPresent()) {
      throw new ConfigException(
          "SLACK_WEBHOOK_URL is not read any more: an environment variable is readable with"
              + " lambda:GetFunctionConfiguration. Store the URL as a Secrets Manager secret and set "
              + SLACK_SECRET
              + " to the secret's ARN");
    }
    EventPublisherPort publisher =
        env.optional("OUTCOME_EVENT_BUS")
            .<EventPublisherPort>map(
                bus ->
                    new EventBridgeAdapter(
                        AwsJson.from(aws.get(), AwsJson.EVENTBRIDGE), bus, eventSource))
            .orElse(EventPublisherPort.NONE);
    var notifiers = new ArrayList<NotifierPort>();
    env.optional("NOTIFY_TOPIC_ARN")
        .ifPresent(
            arn ->
                notifiers.add(new SnsNotifierAdapter(AwsQuery.from(aws.get(), AwsQuery.SNS), arn)));
    var ttl = env.duration(SECRET_TTL, DEFAULT_SECRET_TTL, Duration.ofHours(24));
    env.optional(SLACK_SECRET)
        .map(value -> SecretRef.parse(SLACK_SECRET, value))
        .ifPresent(
            ref ->
                notifiers.add(
                    new SlackWebhookAdapter(CachedSecret.registered(ref, secrets, ttl, clock))));
    return new OutcomeSinks(publisher, NotifierPort.all(notifiers));
  }
}
