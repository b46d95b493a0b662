package io.sluice.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * After each test that reconfigured Logback through {@link LoggingSetup}, stops its appenders (so
 * the log files it opened are closed before the temporary directory goes) and configures Logback
 * as a start does ({@link DefaultLogging}): the other test classes of the module share this
 * JVM's Logback.
 */
final class RestoresDefaultLogging implements AfterEachCallback {
  @Override
  public void afterEach(ExtensionContext extension) throws Exception {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
  }
}
