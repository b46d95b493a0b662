package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.ContextInitializer;
import ch.qos.logback.core.ConsoleAppender;
import org.junit.jupiter.api.Test;

/** The configuration Logback finds on its own, before a command's flags replace it. */
class DefaultLoggingTest {
  @Test
  @SuppressWarnings("unchecked")
  void sluiceAtInfoLibrariesAtWarnOneLinePerEventOnStdout() throws Exception {
    LoggerContext context = new LoggerContext();
    new ContextInitializer(context).autoConfig();

    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.sluice").getLevel()).isEqualTo(Level.INFO);
    assertThat(context.getLogger("io.netty").getEffectiveLevel()).isEqualTo(Level.WARN);
    ConsoleAppender<ILoggingEvent> stdout =
        (ConsoleAppender<ILoggingEvent>) root.getAppender("stdout");
    assertThat(stdout).isNotNull();
    assertThat(stdout.isStarted()).isTrue();
    assertThat(((PatternLayoutEncoder) stdout.getEncoder()).getPattern())
        .isEqualTo("%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level %logger{0} [%thread] %msg%n");
    context.stop();
  }
}
