package io.gpufleet.core.aws;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.secret.CachedSecret;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Posts a summary to a Slack incoming webhook whose URL is a secret (Secrets Manager), read on
 * first use after restore and cached for a TTL. The URL must be {@code
 * https://hooks.slack.com/services|workflows|triggers/…}; anything else is refused before a byte is
 * sent. No message of this class contains the URL or any part of its path.
 */
public final class SlackWebhookAdapter implements NotifierPort {
  public static final String HOST = "hooks.slack.com";
  private static final java.util.List<String> PATHS =
      java.util.List.of("/services/", "/workflows/", "/triggers/");

  private final CachedSecret url;
  private final HttpClient http;
  private final UnaryOperator<URI> route;

  public SlackWebhookAdapter(CachedSecret url) {
    this(
        url,
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build(),
        UnaryOperator.identity());
  }

  /**
   * {@code route} maps the validated webhook URL to the address actually called: the identity in
   * production; tests send to a local server standing in for {@value #HOST}.
   */
  public SlackWebhookAdapter(CachedSecret url, HttpClient http, UnaryOperator<URI> route) {
    this.url = url;
    this.http = http;
    this.route = route;
  }

  @Override
  public void notify(String subject, String message) {
    URI webhook;
    try {
      webhook = validate(url.get(), url.ref().toString());
    } catch (ConfigException e) {
      url.invalidate(); // read the store again next time: the secret may have been fixed
      throw e;
    }
    String body = Json.write(Map.of("text", "*" + subject + "*\n```" + message + "```"));
    var request =
        HttpRequest.newBuilder(route.apply(webhook))
            .timeout(Duration.ofSeconds(5))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      var response = http.send(request, HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "Slack webhook (" + url.ref() + ") answered HTTP " + response.statusCode());
      }
    } catch (IOException e) {
      // The exception's own message may carry the address; keep only its type.
      throw new IllegalStateException(
          "Slack webhook (" + url.ref() + ") unreachable: " + e.getClass().getSimpleName());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while posting to Slack");
    }
  }

  /**
   * The webhook URL if it is a Slack webhook address, else a {@link ConfigException} naming {@code
   * source} and what is wrong (scheme, host, port, path kind) without quoting the path.
   */
  public static URI validate(String value, String source) {
    URI uri;
    try {
      uri = new URI(value.strip());
    } catch (URISyntaxException e) {
      throw new ConfigException("Slack webhook secret " + source + " does not hold a valid URL");
    }
    String expected =
        "; only https://" + HOST + "/services/…, /workflows/… or /triggers/… is accepted";
    if (!"https".equalsIgnoreCase(uri.getScheme())) {
      throw new ConfigException(
          "Slack webhook secret "
              + source
              + " holds a URL with scheme '"
              + uri.getScheme()
              + "'"
              + expected);
    }
    String host = uri.getHost() == null ? null : uri.getHost().toLowerCase(Locale.ROOT);
    if (!HOST.equals(host)) {
      throw new ConfigException(
          "Slack webhook secret "
              + source
              + " holds a URL for host '"
              + (host == null ? "(none)" : host)
              + "'"
              + expected);
    }
    if (uri.getRawUserInfo() != null || (uri.getPort() != -1 && uri.getPort() != 443)) {
      throw new ConfigException(
          "Slack webhook secret " + source + " holds a URL with user info or a port" + expected);
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    if (PATHS.stream().noneMatch(p -> path.startsWith(p) && path.length() > p.length())
        || uri.getRawFragment() != null) {
      throw new ConfigException(
          "Slack webhook secret "
              + source
              + " holds a "
              + HOST
              + " URL that is no webhook"
              + expected);
    }
    return uri;
  }
}
