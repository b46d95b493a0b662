package io.sluice.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.time.Clock;

/**
 * Logback's configuration until the command's flags say otherwise: {@link LoggingSetup}'s compact
 * lines on stdout, Sluice's loggers at info, the libraries' at warn. Found by Logback through
 * {@code META-INF/services}, it takes the place of a {@code logback.xml}, whose parsing took
 * about a tenth of a second of every start. A file named by {@code -Dlogback.configurationFile}
 * is still read, by Logback's own configurator.
 */
public final class DefaultLogging extends ContextAwareBase implements Configurator {
  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    LoggingSetup.apply(context, "compact", "info", null, Clock.systemUTC());
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
