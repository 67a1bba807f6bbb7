package io.gpufleet.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.core.ConsoleAppender;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LogConfiguratorTest {

  /** A fresh context configured with the given environment and no system properties. */
  static LoggerContext configured(Map<String, String> env) {
    var context = new LoggerContext();
    var configurator = new LogConfigurator(env::get, name -> null);
    configurator.setContext(context);
    assertThat(configurator.configure(context))
        .isEqualTo(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    return context;
  }

  static Level own(LoggerContext context) {
    return context.getLogger("io.gpufleet.drain.DrainHandler").getEffectiveLevel();
  }

  static Level sdk(LoggerContext context) {
    return context.getLogger("software.amazon.awssdk.request").getEffectiveLevel();
  }

  @Test
  void withoutLevelVariablesTheFunctionsLogAtInfoAndLibrariesAtWarnAsJsonOnStdout() {
    var context = configured(Map.of());
    assertThat(own(context)).isEqualTo(Level.INFO);
    assertThat(sdk(context)).isEqualTo(Level.WARN);
    var appender = context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("json");
    assertThat(appender).isInstanceOf(ConsoleAppender.class);
    assertThat(((ConsoleAppender<?>) appender).getTarget()).isEqualTo("System.out");
    assertThat(((ConsoleAppender<?>) appender).getEncoder())
        .isInstanceOf(PowertoolsJsonEncoder.class);
  }

  @Test
  void powertoolsLogLevelWinsOverLambdasAdvancedLoggingControls() {
    var context =
        configured(Map.of("POWERTOOLS_LOG_LEVEL", "debug", "AWS_LAMBDA_LOG_LEVEL", "ERROR"));
    assertThat(own(context)).isEqualTo(Level.DEBUG);
    assertThat(sdk(context)).isEqualTo(Level.WARN);
  }

  @Test
  void lambdasLevelAppliesWhenPowertoolsIsUnset() {
    assertThat(own(configured(Map.of("AWS_LAMBDA_LOG_LEVEL", "ERROR")))).isEqualTo(Level.ERROR);
    assertThat(
            own(configured(Map.of("POWERTOOLS_LOG_LEVEL", " ", "AWS_LAMBDA_LOG_LEVEL", "TRACE"))))
        .isEqualTo(Level.TRACE);
  }

  @Test
  void aValueThatIsNoLevelFallsBackToInfoAndSaysSo() {
    var choice =
        new LogConfigurator(Map.of("POWERTOOLS_LOG_LEVEL", "LOUD")::get, name -> null).ownLevel();
    assertThat(choice.level()).isEqualTo(Level.INFO);
    assertThat(choice.variable()).isEqualTo("POWERTOOLS_LOG_LEVEL");
    assertThat(choice.rejected()).isEqualTo("LOUD");
    // a bad POWERTOOLS_LOG_LEVEL does not fall through to AWS_LAMBDA_LOG_LEVEL silently
    assertThat(
            own(
                configured(
                    Map.of("POWERTOOLS_LOG_LEVEL", "LOUD", "AWS_LAMBDA_LOG_LEVEL", "ERROR"))))
        .isEqualTo(Level.INFO);
  }

  @Test
  void textFormatLogsEveryLoggerAtTheGivenLevelOnStderr() {
    var context = new LoggerContext();
    var configurator =
        new LogConfigurator(
            Map.of("POWERTOOLS_LOG_LEVEL", "DEBUG")::get,
            Map.of("gpufleet.logFormat", "text", "gpufleet.logLevel", "INFO")::get);
    configurator.setContext(context);
    configurator.configure(context);
    var appender = context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("text");
    assertThat(((ConsoleAppender<?>) appender).getTarget()).isEqualTo("System.err");
    assertThat(own(context)).isEqualTo(Level.INFO);
    assertThat(sdk(context)).isEqualTo(Level.INFO);
  }

  @Test
  void logbackFindsTheConfiguratorAndPowertoolsTheLevelManager() {
    // surefire sets gpufleet.logFormat=text: the service-loaded configurator ran in text mode
    var context = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("text")).isNotNull();
    var found =
        java.util.ServiceLoader.load(
                software.amazon.lambda.powertools.logging.internal.LoggingManager.class)
            .stream()
            .<Class<?>>map(p -> p.type())
            .toList();
    assertThat(found).containsExactly(LogbackLoggingManager.class);
  }

  @Test
  void powertoolsLevelChangesMoveTheFunctionsLoggersOnly() {
    var context = configured(Map.of());
    var manager = new LogbackLoggingManager(context);
    manager.setLogLevel(org.slf4j.event.Level.DEBUG);
    assertThat(own(context)).isEqualTo(Level.DEBUG);
    assertThat(sdk(context)).isEqualTo(Level.WARN);
    assertThat(manager.getLogLevel(context.getLogger("io.gpufleet.x")))
        .isEqualTo(org.slf4j.event.Level.DEBUG);
    context.getLogger("quiet").setLevel(Level.OFF);
    assertThat(manager.getLogLevel(context.getLogger("quiet")))
        .isEqualTo(org.slf4j.event.Level.ERROR);
  }
}
