package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.aws.SecretsManagerAdapter;
import io.gpufleet.core.aws.SlackWebhookAdapter;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.secret.CachedSecret;
import io.gpufleet.core.secret.SecretRef;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainHandlerEventsTest;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * The Slack webhook URL is a secret: a drain whose summary goes to Slack (URL read from a Secrets
 * Manager secret in moto, posted to a local server standing in for hooks.slack.com) must not put
 * the URL, or its token path, in any log line (every level, every logger), the handler's answer,
 * the published outcome event or the metrics; a URL for another host is refused before anything is
 * sent, and the drain still completes.
 */
class SlackSecretLeakTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  static final String TOKEN = "T0LEAK/B0LEAK/leakcanary0123456789abcdef";

  VirtualTime time;
  SimCluster cluster;
  KubernetesClient client;
  HttpServer slack;
  final List<String> slackBodies = new CopyOnWriteArrayList<>();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final List<String> logLines = new CopyOnWriteArrayList<>();
  Capture capture;
  Level rootLevel;
  String secretArn;

  /** Every log event of every logger, message and throwable chain, as text. */
  final class Capture extends AppenderBase<ILoggingEvent> {
    @Override
    protected void append(ILoggingEvent event) {
      var text = new StringBuilder(event.getFormattedMessage());
      for (Object p : event.getArgumentArray() == null ? new Object[0] : event.getArgumentArray()) {
        text.append(' ').append(p);
      }
      Throwable thrown =
          event.getThrowableProxy() instanceof ThrowableProxy proxy ? proxy.getThrowable() : null;
      for (Throwable t = thrown; t != null; t = t.getCause()) {
        text.append(' ').append(t);
        for (Throwable s : t.getSuppressed()) {
          text.append(' ').append(s);
        }
      }
      logLines.add(text.toString());
    }
  }

  static Logger root() {
    var context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
    return context.getLogger(Logger.ROOT_LOGGER_NAME);
  }

  @BeforeEach
  void start() throws Exception {
    slack = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    slack.createContext(
        "/",
        exchange -> {
          slackBodies.add(
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    slack.start();
    time = new VirtualTime(DrainFixture.START);
    cluster = SimCluster.start(time);
    client = cluster.newClient();
    DemoFleet.populate(cluster);

    var root = root();
    rootLevel = root.getLevel();
    capture = new Capture();
    capture.setContext(root.getLoggerContext());
    capture.setName("leak-capture");
    capture.start();
    root.addAppender(capture);
    root.setLevel(Level.ALL);
  }

  @AfterEach
  void stop() {
    var root = root();
    root.detachAppender(capture);
    capture.stop();
    root.setLevel(rootLevel);
    client.close();
    cluster.close();
    slack.stop(0);
  }

  /** Stores the URL as a secret in moto and drains with Slack reading it from there. */
  DrainHandler handlerNotifyingSlackFrom(String name, String url) {
    var clients = AWS.emulator().clients();
    String arn;
    try (var secrets = clients.build(SecretsManagerClient.builder())) {
      arn = secrets.createSecret(r -> r.name(name).secretString(url)).arn();
    }
    secretArn = arn;
    var secret =
        new CachedSecret(
            new SecretRef.SecretsManagerSecret(arn),
            new SecretsManagerAdapter(() -> clients),
            Duration.ofMinutes(5),
            time.clock());
    URI stub = URI.create("http://127.0.0.1:" + slack.getAddress().getPort() + "/");
    var notifier =
        new SlackWebhookAdapter(
            secret, HttpClient.newHttpClient(), webhook -> stub.resolve(webhook.getRawPath()));
    var service =
        DrainWiring.service(
            client,
            DrainWiring.Parts.of(DrainSettings.defaults(DemoFleet.CLUSTER))
                .reportingTo(metrics, publisher, notifier)
                .timedBy(time));
    return new DrainHandler(service, metrics, time.clock());
  }

  String drainRebalance(DrainHandler handler) throws Exception {
    var event =
        Json.MAPPER.readTree(
            DrainHandlerEventsTest.eventsDir().resolve("rebalance-recommendation.json").toFile());
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(io.gpufleet.sim.SimEvents.rebase(event, time.now())),
        output,
        new LocalContext("interruption-drain", 170_000));
    return output.toString(StandardCharsets.UTF_8);
  }

  /** Everything the drain left behind that a reader of logs, outcomes or metrics could see. */
  String everythingObservable(String answer) {
    return String.join("\n", logLines)
        + "\n"
        + answer
        + "\n"
        + Json.write(publisher.published)
        + "\n"
        + metrics.snapshot();
  }

  @Test
  void shouldPostTheSummaryToSlackWithoutTheUrlAppearingAnywhere() throws Exception {
    // Given the webhook URL in a SecureString
    var url = "https://hooks.slack.com/services/" + TOKEN;
    var handler = handlerNotifyingSlackFrom("gpufleet/test/slack-ok", url);

    // When a rebalance recommendation is handled (cordon, taint, outcome, notification)
    var answer = drainRebalance(handler);

    // Then Slack got the summary
    assertThat(answer).contains("\"status\":\"" + Status.CORDONED + "\"");
    assertThat(slackBodies).singleElement().asString().contains("i-");
    assertThat(metrics.total("ReportFailures")).isZero();
    // and neither the URL nor its token path is in any log line, the answer, the event or metrics
    assertThat(logLines).isNotEmpty();
    assertThat(everythingObservable(answer))
        .doesNotContain(url)
        .doesNotContain(TOKEN)
        .doesNotContain("leakcanary");
  }

  @Test
  void shouldRefuseAUrlForAnotherHostBeforeSendingAndStillFinishTheDrain() throws Exception {
    // Given a secret pointing at a host that is not Slack (the test route would deliver it)
    var url = "https://hooks.attacker.example/services/" + TOKEN;
    var handler = handlerNotifyingSlackFrom("gpufleet/test/slack-foreign", url);

    // When
    var answer = drainRebalance(handler);

    // Then the drain is done, nothing was sent, the failure is counted and logged precisely
    assertThat(answer).contains("\"status\":\"" + Status.CORDONED + "\"");
    assertThat(slackBodies).isEmpty();
    assertThat(metrics.total("ReportFailures")).isEqualTo(1);
    assertThat(logLines)
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("Slack webhook secret " + secretArn)
                    .contains("host 'hooks.attacker.example'"));
    assertThat(everythingObservable(answer)).doesNotContain(TOKEN).doesNotContain("leakcanary");
  }
}
