package io.sluice.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import org.slf4j.LoggerFactory;

/**
 * Configures Logback from the serve flags: Sluice's own loggers at the chosen level, third-party
 * libraries at warn (CLI.md §7), written to stdout in the chosen format.
 */
final class LoggingSetup {
  private LoggingSetup() {}

  static void configure(String format, String level) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    Encoder<ILoggingEvent> encoder = encoder(context, resolveFormat(format));
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("stdout");
    appender.setEncoder(encoder);
    appender.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(appender);
    context.getLogger("io.sluice").setLevel(Level.toLevel(level, Level.INFO));
  }

  private static String resolveFormat(String format) {
    if (format != null && !format.isEmpty()) {
      return format;
    }
    return System.console() != null ? "pretty" : "compact";
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, String format) {
    if (format.equals("json")) {
      JsonLogEncoder json = new JsonLogEncoder();
      json.setContext(context);
      json.start();
      return json;
    }
    PatternLayoutEncoder pattern = new PatternLayoutEncoder();
    pattern.setContext(context);
    pattern.setPattern(format.equals("pretty")
        ? "%d{HH:mm:ss.SSS} %highlight(%-5level) %cyan(%logger{0}) %msg%n"
        : "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level %logger{0} [%thread] %msg%n");
    pattern.start();
    return pattern;
  }

  /**
   * Mutes Sluice's own lines below WARN until the returned handle is closed, except those of
   * {@code kept}: the warm-up's throwaway server would otherwise announce its ports and recovery
   * as if it were the real one.
   */
  static AutoCloseable mutedExcept(Class<?> kept) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return () -> { };
    }
    Logger sluice = context.getLogger("io.sluice");
    Logger keptLogger = context.getLogger(kept);
    Level sluiceLevel = sluice.getLevel();
    Level keptLevel = keptLogger.getLevel();
    keptLogger.setLevel(sluice.getEffectiveLevel());
    if (sluice.getEffectiveLevel().toInt() < Level.WARN_INT) {
      sluice.setLevel(Level.WARN);
    }
    return () -> {
      sluice.setLevel(sluiceLevel);
      keptLogger.setLevel(keptLevel);
    };
  }
}
