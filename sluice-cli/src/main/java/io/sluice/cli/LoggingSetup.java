package io.sluice.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.status.Status;
import java.time.InstantSource;
import org.slf4j.LoggerFactory;

/**
 * Configures Logback from the serve flags: Sluice's own loggers at the chosen level, third-party
 * libraries at warn (CLI.md §7), written in the chosen format to stdout or to rotated files.
 * Rotated files are named {@code sluice.log.1} (the newest) to {@code sluice.log.<max-files>}.
 */
final class LoggingSetup {
  /** The compact format: one line per event, its instant in UTC. */
  static final String COMPACT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level %logger{0} [%thread] %msg%n";

  private LoggingSetup() {}

  /**
   * Replaces whatever Logback was configured with.
   *
   * @param files where log files go, or null to log to stdout
   * @param clock decides when a time-based rotation is due
   * @throws ServeCommand.StartupException if the log file cannot be opened
   */
  static void configure(String format, String level, LogFileConfig files, InstantSource clock) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    apply(context, format, level, files, clock);
  }

  /** Configures a context that holds no configuration yet. */
  static void apply(LoggerContext context, String format, String level, LogFileConfig files,
      InstantSource clock) {
    boolean toFiles = files != null;
    Encoder<ILoggingEvent> encoder = encoder(context, resolveFormat(format, toFiles), toFiles);
    Appender<ILoggingEvent> appender = toFiles
        ? rollingFile(context, encoder, files, clock)
        : stdout(context, encoder);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(appender);
    context.getLogger("io.sluice").setLevel(Level.toLevel(level, Level.INFO));
  }

  private static String resolveFormat(String format, boolean toFiles) {
    if (format != null && !format.isEmpty()) {
      return format;
    }
    return !toFiles && System.console() != null ? "pretty" : "compact";
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, String format,
      boolean toFiles) {
    if (format.equals("json")) {
      JsonLogEncoder json = new JsonLogEncoder();
      json.setContext(context);
      json.start();
      return json;
    }
    PatternLayoutEncoder pattern = new PatternLayoutEncoder();
    pattern.setContext(context);
    if (format.equals("compact")) {
      pattern.setPattern(COMPACT_PATTERN);
    } else if (toFiles) {
      // Colour escapes would only clutter a file.
      pattern.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{0} %msg%n");
    } else {
      pattern.setPattern("%d{HH:mm:ss.SSS} %highlight(%-5level) %cyan(%logger{0}) %msg%n");
    }
    pattern.start();
    return pattern;
  }

  private static Appender<ILoggingEvent> stdout(LoggerContext context,
      Encoder<ILoggingEvent> encoder) {
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("stdout");
    appender.setEncoder(encoder);
    appender.start();
    return appender;
  }

  private static Appender<ILoggingEvent> rollingFile(LoggerContext context,
      Encoder<ILoggingEvent> encoder, LogFileConfig files, InstantSource clock) {
    RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
    appender.setContext(context);
    appender.setName("file");
    appender.setEncoder(encoder);
    appender.setFile(files.file().toString());
    FixedWindowRollingPolicy kept = new FixedWindowRollingPolicy() {
      // Logback caps the window at 20 files; --log-max-files may ask for more.
      @Override
      protected int getMaxWindowSize() {
        return files.maxFiles();
      }
    };
    kept.setContext(context);
    kept.setParent(appender);
    kept.setFileNamePattern(files.file() + ".%i");
    kept.setMinIndex(1);
    kept.setMaxIndex(files.maxFiles());
    kept.start();
    RotationTrigger<ILoggingEvent> trigger = new RotationTrigger<>(files.rotation(),
        files.maxBytes(), clock, files.file().toFile());
    trigger.setContext(context);
    trigger.start();
    appender.setRollingPolicy(kept);
    appender.setTriggeringPolicy(trigger);
    appender.start();
    if (!appender.isStarted()) {
      throw new ServeCommand.StartupException("unusable log file " + files.file() + ": "
          + lastError(context, appender));
    }
    return appender;
  }

  /** Logback reports why an appender did not start only to its context's status manager. */
  private static String lastError(LoggerContext context, Object appender) {
    String message = "it could not be opened";
    for (Status status : context.getStatusManager().getCopyOfStatusList()) {
      if (status.getLevel() == Status.ERROR && status.getOrigin() == appender) {
        message = status.getThrowable() != null
            ? status.getThrowable().getMessage()
            : status.getMessage();
      }
    }
    return message;
  }

  /**
   * Mutes Sluice's own lines below WARN until the returned handle is closed, except those of
   * {@code kept}: the warm-up's throwaway servers would otherwise announce their ports and
   * recovery as if they were the real one.
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
