package io.gpufleet.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.internal.LoggingManager;

/**
 * Powertools' hook for changing log levels (POWERTOOLS_LOG_LEVEL at start-up, DEBUG for sampled
 * invocations), on logback; found through {@code META-INF/services}. Without one, Powertools prints
 * three "ERROR. No LoggingManager was found" lines and ignores the level.
 *
 * <p>Unlike Powertools' log4j manager, which set every logger, this one sets the functions' own
 * loggers ({@link LogConfigurator#OWN_LOGGERS}) only: the AWS SDK and the other libraries stay at
 * WARN, as the configuration sets them, and a DEBUG sample is the functions' DEBUG lines.
 */
public final class LogbackLoggingManager implements LoggingManager {
  private final LoggerContext context;

  /** As Powertools' service loader creates it: the logback context SLF4J is bound to. */
  public LogbackLoggingManager() {
    this((LoggerContext) LoggerFactory.getILoggerFactory());
  }

  LogbackLoggingManager(LoggerContext context) {
    this.context = context;
  }

  @Override
  public void setLogLevel(org.slf4j.event.Level level) {
    context.getLogger(LogConfigurator.OWN_LOGGERS).setLevel(Level.toLevel(level.toString()));
  }

  @Override
  public org.slf4j.event.Level getLogLevel(org.slf4j.Logger logger) {
    Level effective = context.getLogger(logger.getName()).getEffectiveLevel();
    if (effective.toInt() > Level.ERROR_INT) {
      return org.slf4j.event.Level.ERROR; // OFF: SLF4J has no such level, ERROR is the nearest
    }
    if (effective.toInt() < Level.TRACE_INT) {
      return org.slf4j.event.Level.TRACE; // ALL
    }
    return org.slf4j.event.Level.valueOf(effective.toString());
  }
}
