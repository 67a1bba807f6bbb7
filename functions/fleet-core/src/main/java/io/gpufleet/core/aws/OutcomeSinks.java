package io.gpufleet.core.aws;

import io.gpufleet.core.config.Settings;
import io.gpufleet.core.outcome.EventPublisher;
import io.gpufleet.core.outcome.Notifier;
import java.net.URI;
import java.util.ArrayList;
import java.util.function.Supplier;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.sns.SnsClient;

/**
 * Where a function's outcomes go, from the environment every function shares: {@code
 * OUTCOME_EVENT_BUS} (EventBridge), {@code NOTIFY_TOPIC_ARN} (SNS) and {@code SLACK_WEBHOOK_URL}.
 * AWS clients are built only for the sinks that are configured.
 */
public record OutcomeSinks(EventPublisher publisher, Notifier notifier) {

  public static OutcomeSinks fromEnvironment(
      Settings env, Supplier<AwsClients> aws, String eventSource) {
    EventPublisher publisher =
        env.optional("OUTCOME_EVENT_BUS")
            .<EventPublisher>map(
                bus ->
                    new EventBridgePublisher(
                        aws.get().build(EventBridgeClient.builder()), bus, eventSource))
            .orElse(EventPublisher.NONE);
    var notifiers = new ArrayList<Notifier>();
    env.optional("NOTIFY_TOPIC_ARN")
        .ifPresent(
            arn -> notifiers.add(new SnsNotifier(aws.get().build(SnsClient.builder()), arn)));
    env.optional("SLACK_WEBHOOK_URL")
        .ifPresent(url -> notifiers.add(new SlackWebhookNotifier(URI.create(url))));
    return new OutcomeSinks(publisher, Notifier.all(notifiers));
  }
}
