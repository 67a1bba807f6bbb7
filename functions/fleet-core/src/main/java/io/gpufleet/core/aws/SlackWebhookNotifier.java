package io.gpufleet.core.aws;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.Notifier;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Posts a summary to a Slack incoming webhook. The URL is a secret: it is never logged. */
public final class SlackWebhookNotifier implements Notifier {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
  private final URI webhook;

  public SlackWebhookNotifier(URI webhook) {
    this.webhook = webhook;
  }

  @Override
  public void notify(String subject, String message) {
    String body = Json.write(Map.of("text", "*" + subject + "*\n```" + message + "```"));
    var request =
        HttpRequest.newBuilder(webhook)
            .timeout(Duration.ofSeconds(5))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      var response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException("Slack webhook answered HTTP " + response.statusCode());
      }
    } catch (IOException e) {
      throw new IllegalStateException("Slack webhook unreachable: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while posting to Slack", e);
    }
  }
}
