package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice serve --log-dir} as an operator runs it: the server's log lines go to {@code
 * sluice.log} in that directory, not to stdout.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LogDirServeTest {
  @TempDir Path root;
  @TempDir Path logDir;
  @TempDir Path output;

  @Test
  void theServerLogsToSluiceLogInTheLogDirectoryAndNotToStdout() throws Exception {
    SluiceProcess server = SluiceProcess.start(root, output.resolve("stdout.log"),
        Duration.ofSeconds(60), List.of(),
        List.of("--warm-up-jobs", "0", "--log-dir", logDir.toString()));
    try {
      Path logFile = logDir.resolve("sluice.log");
      String listening = "listening on " + server.uri("") + " (primary)";
      // The health check can answer a moment before the line is written.
      long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!(Files.exists(logFile) && Files.readString(logFile).contains(listening))
          && System.nanoTime() < until) {
        Thread.sleep(20);
      }

      assertThat(logFile).content().contains(listening);
      assertThat(server.sigterm(Duration.ofSeconds(30))).as("exit status").isZero();
      assertThat(server.output()).doesNotContainIgnoringCase("listening")
          .contains("Server stopped.");
      assertThat(root.resolve("log")).doesNotExist();
    } finally {
      server.forceStop();
    }
  }
}
