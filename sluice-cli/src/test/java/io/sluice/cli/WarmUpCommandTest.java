package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code sluice warm-up}: what bin/sluice runs to record its class-data archive. */
@ExtendWith(RestoresDefaultLogging.class)
class WarmUpCommandTest {
  private static long warmUpDirectories() throws IOException {
    try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return entries.filter(p -> p.getFileName().toString().startsWith("sluice-warm-up-"))
          .count();
    }
  }

  @Test
  void runsTheWarmUpThenExitsCleanly() throws IOException {
    long before = warmUpDirectories();
    CliRunner.Result result = CliRunner.sluice("warm-up", "--jobs", "200");
    assertThat(result.exitCode()).isZero();
    assertThat(result.err()).doesNotContain("warm-up skipped");
    assertThat(warmUpDirectories()).as("the throwaway server's directory is gone")
        .isEqualTo(before);
  }

  @Test
  void isNotListedAmongTheCommands() {
    CliRunner.Result help = CliRunner.sluice("--help");
    assertThat(help.out()).contains("serve").doesNotContain("warm-up");
  }
}
