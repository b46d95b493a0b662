package io.sluice.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's configuration until the command's flags say otherwise ({@link LoggingSetup}):
 * Sluice's loggers at info, the libraries' at warn, one line per event on stdout. Found by
 * Logback through {@code META-INF/services}, it takes the place of a {@code logback.xml}, whose
 * parsing took about a tenth of a second of every start. A file named by
 * {@code -Dlogback.configurationFile} is still read, by Logback's own configurator.
 */
public final class DefaultLogging extends ContextAwareBase implements Configurator {
  static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level %logger{0} [%thread] %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stdout = new ConsoleAppender<>();
    stdout.setContext(context);
    stdout.setName("stdout");
    stdout.setEncoder(encoder);
    stdout.start();
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.WARN);
    root.addAppender(stdout);
    context.getLogger("io.sluice").setLevel(Level.INFO);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
