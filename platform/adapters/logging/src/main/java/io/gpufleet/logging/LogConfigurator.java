package io.gpufleet.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Configures logback in code, found by logback through {@code
 * META-INF/services/ch.qos.logback.classic.spi.Configurator}: no XML, no Joran, no classpath scan
 * for configuration files at start-up.
 *
 * <p>Default (the functions in Lambda and {@code LocalInvoke}): {@link PowertoolsJsonEncoder} lines
 * on stdout, which Lambda sends to CloudWatch Logs. The root logger (the AWS SDK, Netty, Powertools
 * itself) is at WARN; the functions' own loggers ({@value #OWN_LOGGERS}) at {@code
 * POWERTOOLS_LOG_LEVEL}, else {@code AWS_LAMBDA_LOG_LEVEL} (Lambda's advanced logging controls),
 * else INFO. A value that is no level is reported by a WARN line and INFO used.
 *
 * <p>With the system property {@code gpufleet.logFormat=text} (the CLI and the unit tests): plain
 * text lines on stderr, every logger at {@code gpufleet.logLevel} (default WARN).
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class LogConfigurator extends ContextAwareBase implements Configurator {
  /** The logger subtree of the functions' own code. */
  public static final String OWN_LOGGERS = "io.gpufleet";

  static final String FORMAT_PROPERTY = "gpufleet.logFormat";
  static final String TEXT_LEVEL_PROPERTY = "gpufleet.logLevel";
  private static final Set<String> LEVELS =
      Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");

  private final UnaryOperator<String> env;
  private final UnaryOperator<String> properties;

  /** As logback's service loader creates it: the process environment and system properties. */
  public LogConfigurator() {
    this(System::getenv, System::getProperty);
  }

  LogConfigurator(UnaryOperator<String> env, UnaryOperator<String> properties) {
    this.env = env;
    this.properties = properties;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    if ("text".equals(properties.apply(FORMAT_PROPERTY))) {
      var encoder = new PatternLayoutEncoder();
      encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{0} %msg%n");
      root.addAppender(console(context, "text", "System.err", encoder));
      String level = properties.apply(TEXT_LEVEL_PROPERTY);
      root.setLevel(Level.toLevel(level, Level.WARN));
      return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
    root.addAppender(console(context, "json", "System.out", new PowertoolsJsonEncoder()));
    root.setLevel(Level.WARN);
    var choice = ownLevel();
    context.getLogger(OWN_LOGGERS).setLevel(choice.level());
    if (choice.rejected() != null) {
      context
          .getLogger(LogConfigurator.class)
          .warn(
              "{}={} is not a log level (one of {}); logging at {}",
              choice.variable(),
              choice.rejected(),
              LEVELS,
              choice.level());
    }
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** The level of the functions' own loggers, from the environment, and how it was chosen. */
  LevelChoice ownLevel() {
    for (String variable : new String[] {"POWERTOOLS_LOG_LEVEL", "AWS_LAMBDA_LOG_LEVEL"}) {
      String value = env.apply(variable);
      if (value == null || value.isBlank()) {
        continue;
      }
      String name = value.strip().toUpperCase(Locale.ROOT);
      if (LEVELS.contains(name)) {
        return new LevelChoice(Level.toLevel(name), variable, null);
      }
      return new LevelChoice(Level.INFO, variable, value);
    }
    return new LevelChoice(Level.INFO, null, null);
  }

  /** A level, the variable it came from (null: the default) and a rejected value (or null). */
  record LevelChoice(Level level, String variable, String rejected) {}

  private static ConsoleAppender<ILoggingEvent> console(
      LoggerContext context, String name, String target, Encoder<ILoggingEvent> encoder) {
    encoder.setContext(context);
    encoder.start();
    var appender = new ConsoleAppender<ILoggingEvent>();
    appender.setContext(context);
    appender.setName(name);
    appender.setTarget(target);
    appender.setEncoder(encoder);
    appender.start();
    return appender;
  }
}
